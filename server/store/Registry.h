// The registry of project stores: every workspace root whose `.engram/`
// store engram has served on this machine, kept in `$ENGRAM_HOME/registry`
// so recall with `tier: all` can fan out over them (invariant 1).
//
// One root per line, sorted, after a comment line; rewritten atomically
// under `registry.lock`, so concurrent engram processes never lose each
// other's entries. A root whose store has gone stays listed: recall names it
// unreachable rather than forgetting it silently.
#pragma once
#include <string>
#include <vector>

namespace engram {

class Registry {
public:
    explicit Registry(std::string home);

    // Adds the canonical root if it is not listed yet. Cheap when it is (one
    // read, no lock, no write).
    void add(const std::string& root);
    // Every listed root, sorted. Lines that are not absolute paths are
    // skipped (a hand edit gone wrong must not stop recall).
    std::vector<std::string> roots() const;
    const std::string& path() const { return path_; }

private:
    std::string home_, path_;
};

} // namespace engram
