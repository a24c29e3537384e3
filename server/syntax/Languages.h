// The tree-sitter grammars engram is built with, by name and file extension.
//
// This module (syntax/) is the only one that includes tree_sitter/api.h.
// Anchoring to symbols builds on it; for now it answers which languages exist
// and can prove each grammar parses (engram doctor).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::syntax {

struct LanguageInfo {
    std::string name; // python, javascript, typescript, tsx, c, cpp, go, rust, java
    std::vector<std::string> extensions; // with the dot: ".py"
    unsigned abiVersion = 0;
};

const std::vector<LanguageInfo>& languages();
// Maps a file extension (".pyw") to a language by name, or to none with an
// empty name. False when the extension or the language is not valid.
bool mapExtension(const std::string& ext, const std::string& language);
// The language for a workspace-relative path, by extension.
std::optional<std::string> languageForPath(std::string_view path);
// The language of a file, by its extension and, where the extension does not
// settle it (a `.h` header, unless store.conf maps `.h`), by its text.
std::optional<std::string> languageFor(std::string_view path, std::string_view text);
// Parses `source` with the named grammar; returns the root node's type
// ("module", "translation_unit"...) or nullopt when the grammar is unknown or
// the tree has errors.
std::optional<std::string> parseRootKind(std::string_view language, std::string_view source);

} // namespace engram::syntax
