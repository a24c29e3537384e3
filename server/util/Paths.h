// Workspace roots and the paths inside them.
//
// Anchors never point outside the root (invariant 20): every path a caller gives
// goes through relativeToRoot, which refuses `..` escapes, absolute paths
// elsewhere and symlinks that lead out.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// Absolute, symlink-free form of an existing path; an absolute lexical
// normalisation when it does not exist.
std::string canonicalPath(const std::string& path);
// Whether `p` names a directory (following symlinks).
bool isDirectory(const std::string& p);
// First 16 hex digits of SHA-256 of the canonical absolute path.
std::string rootFingerprint(const std::string& canonicalRoot);
// The nearest ancestor of `start` holding `.engram/` or `.git/`, else start.
std::string discoverRoot(const std::string& start);
std::string currentDir();

// The workspace-relative form of `path` (relative to root, or absolute), or
// nullopt when it lies outside the root (lexically or through a symlink).
std::optional<std::string> relativeToRoot(const std::string& root, const std::string& path);
// The same for a path a caller gave in `field`: the workspace-relative form,
// or OutsideRoot naming the field and the root (InvalidParams when empty).
// Every path parameter of every operation is judged by it.
std::string confinedPath(const std::string& root, const std::string& field,
                         const std::string& path);

// The one rule both servers use for a `root` argument (engram serve's
// workspace folders, engram mcp's bound roots): of these canonical roots,
// the deepest that is `path` or holds it (`/w/src` is `/w`'s). Compared as
// canonical paths, component by component; nullopt when none holds it.
std::optional<std::string> deepestRootHolding(const std::vector<std::string>& roots,
                                              const std::string& path);

// `%XX` escapes decoded (as in URIs and markdown link targets); a '%' not
// followed by two hex digits stays as written.
std::string percentDecoded(std::string_view s);

// file:// URIs (percent-decoding); nullopt for other schemes.
std::optional<std::string> uriToPath(const std::string& uri);
std::string pathToUri(const std::string& path);

} // namespace engram
