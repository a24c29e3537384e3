// Anchors stamped by earlier digest rules, re-derived from git history.
#include "engine/Rederive.h"

#include "engine/Anchoring.h"
#include "store/ClaimFile.h"
#include "store/Store.h"
#include "syntax/Languages.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Hash.h"
#include "util/Lines.h"

#include <algorithm>

namespace engram {

namespace {

std::string stampKey(const std::string& claimId, const std::string& path, const std::string& hash) {
    return claimId + "\t" + path + "\t" + hash;
}

std::string shortId(const std::string& commit) {
    return commit.substr(0, 12);
}

// The components of a qualified name ("a::B.c" -> a, B, c), split at `.`
// and `::` outside brackets (`<P as fmt::Display>::fmt`, `it("a.b")`).
std::vector<std::string_view> nameParts(std::string_view q) {
    std::vector<std::string_view> out;
    int depth = 0;
    bool quoted = false;
    size_t from = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        char c = q[i];
        if (quoted) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '<' || c == '(' || c == '[') {
            ++depth;
        } else if ((c == '>' || c == ')' || c == ']') && depth > 0) {
            --depth;
        } else if (depth == 0 && (c == '.' || (c == ':' && i + 1 < q.size() && q[i + 1] == ':'))) {
            out.push_back(q.substr(from, i - from));
            if (c == ':') ++i;
            from = i + 1;
        }
    }
    out.push_back(q.substr(from));
    return out;
}

} // namespace

std::string headCommit(const std::string& root) {
    auto g = findGit(root);
    if (!g) return "";
    auto head = readFile(g->gitDir + "/HEAD");
    if (!head) return "";
    std::string h = trimRight(*head);
    if (h.starts_with("ref:")) {
        std::string ref = h.substr(4);
        ref.erase(0, ref.find_first_not_of(' '));
        return resolveRef(*g, ref);
    }
    return isHexId(h) ? h : "";
}

std::optional<size_t> stampedDefinition(const std::vector<syntax::Symbol>& symbols, const Anchor& a,
                                        std::string& why) {
    auto keepKind = [&](std::vector<size_t>& v) {
        if (std::any_of(v.begin(), v.end(),
                        [&](size_t i) { return symbols[i].kind == a.nodeKind; }))
            std::erase_if(v, [&](size_t i) { return symbols[i].kind != a.nodeKind; });
    };
    auto where = [&](auto keep) {
        std::vector<size_t> v;
        for (size_t i = 0; i < symbols.size(); ++i)
            if (keep(symbols[i])) v.push_back(i);
        return v;
    };
    // The definitions of its name; failing that, the name as today's rules
    // give it, looked for from the closest to the loosest: a suffix
    // (`LruCache::fmt` finds `<LruCache as fmt::Display>::fmt`), its parts
    // in order with more between (`Gson.compare` finds
    // `Gson.BY_LENGTH.compare`), its own name alone and its kind (a
    // recovering parser's invented qualifier). The first that finds any
    // decides; if it finds several, they are told apart below or not at all.
    auto parts = nameParts(a.symbol);
    auto inOrder = [&](const syntax::Symbol& s) {
        auto have = nameParts(s.qualified);
        if (have.size() <= parts.size() || have.front() != parts.front() ||
            have.back() != parts.back())
            return false;
        size_t j = 0;
        for (auto& h : have)
            if (j < parts.size() && h == parts[j]) ++j;
        return j == parts.size();
    };
    std::vector<size_t> same =
        where([&](const syntax::Symbol& s) { return s.qualified == a.symbol; });
    if (same.size() > 1) keepKind(same);
    if (same.empty()) {
        same = syntax::resolveSymbol(symbols, a.symbol);
        keepKind(same);
    }
    if (same.empty())
        same = where([&](const syntax::Symbol& s) { return s.kind == a.nodeKind && inOrder(s); });
    if (same.empty() && parts.size() > 1)
        same = where([&](const syntax::Symbol& s) {
            return s.kind == a.nodeKind && nameParts(s.qualified).back() == parts.back();
        });
    if (same.empty()) {
        why = "no definition there is named " + a.symbol + " by today's rules";
        return std::nullopt;
    }
    if (same.size() == 1) return same[0];
    // Of several: what the earlier rules recorded and today's still give
    // alike (a hash the rules did not change for this code, the tokens, the
    // head), else the place among as many twins.
    auto single = [&](auto keep) -> std::optional<size_t> {
        std::optional<size_t> hit;
        for (size_t i : same) {
            if (!keep(symbols[i])) continue;
            if (hit) return std::nullopt;
            hit = i;
        }
        return hit;
    };
    if (auto i = single([&](const syntax::Symbol& s) { return s.hash == a.hash; })) return i;
    if (!a.tokens.empty())
        if (auto i = single([&](const syntax::Symbol& s) { return s.tokenHash == a.tokens; }))
            return i;
    if (!a.head.empty())
        if (auto i = single([&](const syntax::Symbol& s) { return s.headHash == a.head; }))
            return i;
    if (a.twins == int(same.size()) && a.ordinal >= 1) return same[size_t(a.ordinal - 1)];
    why = "it cannot be told which of the " + std::to_string(same.size()) + " definitions named " +
          a.symbol + " there it was stamped on";
    return std::nullopt;
}

bool StampHistory::headMoved() const {
    return listed_ && headCommit(root_) != head_;
}

bool StampHistory::listStamps() {
    if (listed_ && !headMoved()) return available_;
    listed_ = true;
    available_ = false;
    stamps_.clear();
    shallow_.clear();
    files_.clear();
    head_ = headCommit(root_);
    auto g = findGit(root_);
    if (!g) return false;
    // The newest commit that added each stamp: `git log` lists newest
    // first, and a diff without context shows exactly the lines a commit
    // added. Merges show no diff (a stamp arrives with the commit that made
    // it, on its branch). Anchors stamped by today's rules never need this.
    std::string commit, claimId;
    auto code = runProcessLines(
        {"git", "-C", root_, "-c", "core.quotePath=false", "log", "--no-renames", "--no-color",
         "--no-ext-diff", "--no-textconv", "-p", "--unified=0", "--format=%x01%H", "--",
         ".engram/claims"},
        [&](std::string_view line) {
            if (!line.empty() && line[0] == '\x01') {
                commit = std::string(line.substr(1));
                claimId.clear();
            } else if (line.starts_with("+++ ")) {
                std::string_view name = line.substr(line.find_last_of('/') + 1);
                claimId.clear();
                if (name.ends_with(".md") && Store::validId(name.substr(0, name.size() - 3)))
                    claimId = std::string(name.substr(0, name.size() - 3));
            } else if (line.starts_with("+anchor: ") && !claimId.empty() &&
                       line.find(" rules=" + std::to_string(syntax::kDigestRules)) ==
                           std::string_view::npos) {
                try {
                    Anchor a = parseAnchor(unescapeValue(line.substr(9)));
                    if (!a.symbol.empty() && !a.hash.empty() && a.rules < syntax::kDigestRules)
                        stamps_.try_emplace(stampKey(claimId, a.path, a.hash), commit);
                } catch (const std::exception&) {
                    // A line no engram wrote stamps nothing.
                }
            }
        });
    if (!code || *code != 0) {
        stamps_.clear();
        // A repository without a commit yet holds no stamp (`git log` fails
        // there); anything else is git failing.
        return available_ = code && head_.empty();
    }
    // A shallow clone's oldest commits seem to add every file they hold:
    // a stamp found there may be older than the clone.
    if (auto shallow = readFile(g->commonDir + "/shallow"))
        forEachLine(*shallow, [&](std::string_view l, int) {
            if (!l.empty()) shallow_.emplace(trimRight(std::string(l)));
        });
    available_ = true;
    return true;
}

const CommittedFile* StampHistory::fileAt(const std::string& commit, const std::string& path) {
    std::string key = commit + ":" + path;
    if (auto it = files_.find(key); it != files_.end()) return it->second;
    const CommittedFile*& slot = files_[key];
    if (!objects_) objects_ = std::make_unique<GitObjectReader>(root_);
    auto text = objects_->blob(commit + ":./" + path, kMaxAnchoredFileBytes);
    if (!text) return slot = nullptr;
    auto lang = syntax::languageFor(path, *text);
    if (!lang) return slot = nullptr;
    // Claims committed one by one over unchanged code read the same file at
    // many commits: it is parsed once.
    auto [it, fresh] = parsed_.try_emplace(*lang + ":" + sha256Hex(*text));
    if (fresh) {
        it->second.language = *lang;
        it->second.symbols = syntax::extractSymbols(*lang, *text);
    }
    return slot = &it->second;
}

Rederived StampHistory::rederive(const std::string& claimId, const Anchor& a) {
    Rederived out;
    if (!listStamps()) {
        out.reason = findGit(root_) ? "git could not list the claims' history"
                                    : "the workspace is not in a git repository";
        return out;
    }
    auto it = stamps_.find(stampKey(claimId, a.path, a.hash));
    if (it == stamps_.end()) {
        out.reason = "no commit adds its stamp (the claim file is not committed as it is)";
        return out;
    }
    out.commit = it->second;
    if (shallow_.count(out.commit)) {
        out.reason = "the commit that added its stamp is older than this shallow clone "
                     "(git fetch --unshallow)";
        return out;
    }
    const CommittedFile* f = fileAt(out.commit, a.path);
    if (!f) {
        out.reason = "commit " + shortId(out.commit) + ", which added its stamp, holds no " +
                     a.path + " engram can parse";
        return out;
    }
    std::string why;
    auto at = stampedDefinition(f->symbols, a, why);
    if (!at) {
        out.reason = "at commit " + shortId(out.commit) + ", which added its stamp, " + why;
        return out;
    }
    out.anchor = symbolAnchor(a.path, f->language, f->symbols[*at]);
    return out;
}

void StampHistory::endSession() {
    objects_.reset();
    files_.clear();
    parsed_.clear();
}

} // namespace engram
