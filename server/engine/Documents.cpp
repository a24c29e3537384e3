// The engine's view of one file: the anchors in it, the symbol at a position,
// and the editor's unsaved text for it.
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Paths.h"
#include "util/Time.h"

#include <algorithm>

namespace engram {

namespace {

std::optional<std::string> inRoot(const std::string& root, const std::string& path) {
    return relativeToRoot(root, path);
}

} // namespace

std::vector<AnchoredClaim> Engine::anchorsIn(const std::string& path) {
    const std::string rel = confinedPath(opts_.root, "path", path);
    std::vector<AnchoredClaim> out;
    Tier* t = tiers_.find("project");
    if (!t || !tiers_.ready(*t)) return out;
    int64_t now = nowUnix();
    std::vector<Claim> claims;
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::pair<Tier*, std::string>> changed;
        claims.clear();
        {
            // Read in one snapshot; check afterwards (a check may write the
            // code index, which cannot happen inside a read transaction).
            auto snapshot = t->index->readScope();
            for (auto rowid : t->index->anchoredIn(rel, 1 << 20))
                if (auto ic = t->index->byRowid(rowid)) {
                    // As recall: a claim file changed since it was indexed
                    // is read again before its anchors are shown.
                    if (!sameFile(statFile(t->store->claimPath(ic->claim.id)), ic->file))
                        changed.emplace_back(t, ic->claim.id);
                    if (ic->claim.live()) claims.push_back(std::move(ic->claim));
                }
        }
        if (changed.empty() || pass == 1) break;
        tiers_.reread(changed);
    }
    for (auto& claim : claims) {
        for (size_t i = 0; i < claim.anchors.size(); ++i) {
            const Anchor& a = claim.anchors[i];
            if (a.path != rel) continue;
            auto check = anchorer_.check(a, claim.id);
            AnchoredClaim ac;
            ac.claim = claim;
            ac.tier = t->name;
            ac.anchorIndex = i;
            ac.state = check.state;
            ac.movedTo = check.movedTo;
            if (check.range) {
                ac.startLine = check.range->startLine;
                ac.startColumn = check.range->startColumn;
                ac.endLine = check.range->endLine;
                ac.endColumn = check.range->endColumn;
            }
            if (claim.created) ac.ageSeconds = now - *claim.created;
            out.push_back(std::move(ac));
        }
    }
    // Oldest claim first: a stable order for lenses and hovers.
    std::reverse(out.begin(), out.end());
    return out;
}

std::optional<syntax::Symbol> Engine::symbolAt(const std::string& path, uint32_t line,
                                               uint32_t column) {
    auto rel = inRoot(opts_.root, path);
    if (!rel) return std::nullopt;
    return anchorer_.symbolAt(*rel, line, column);
}

void Engine::openDocument(const std::string& path, std::string text) {
    if (auto rel = inRoot(opts_.root, path)) anchorer_.openDocument(*rel, std::move(text));
}

void Engine::editDocument(const std::string& path, uint32_t startByte, uint32_t oldEndByte,
                          std::string_view newText) {
    if (auto rel = inRoot(opts_.root, path))
        anchorer_.editDocument(*rel, startByte, oldEndByte, newText);
}

void Engine::replaceDocument(const std::string& path, std::string text) {
    if (auto rel = inRoot(opts_.root, path)) anchorer_.replaceDocument(*rel, std::move(text));
}

void Engine::closeDocument(const std::string& path) {
    if (auto rel = inRoot(opts_.root, path)) anchorer_.closeDocument(*rel);
}

std::optional<std::string> Engine::documentText(const std::string& path) {
    auto rel = inRoot(opts_.root, path);
    if (!rel) return std::nullopt;
    if (const std::string* t = anchorer_.documentText(*rel)) return *t;
    return readFile(opts_.root + "/" + *rel);
}

} // namespace engram
