// An orphaned anchor's likely successor (engine/Successor.h).
#include "engine/Successor.h"

#include "engine/Anchoring.h"
#include "engine/Rederive.h"
#include "syntax/Languages.h"
#include "util/Git.h"

#include <cctype>
#include <unordered_map>

namespace engram {

std::vector<std::string_view> codeTokens(std::string_view code) {
    auto word = [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80;
    };
    std::vector<std::string_view> out;
    for (size_t i = 0; i < code.size();) {
        unsigned char c = static_cast<unsigned char>(code[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (word(c)) {
            size_t from = i;
            while (i < code.size() && word(static_cast<unsigned char>(code[i])))
                ++i;
            out.push_back(code.substr(from, i - from));
        } else {
            out.push_back(code.substr(i++, 1));
        }
    }
    return out;
}

double tokenLikeness(const std::vector<std::string_view>& a, std::string_view ownA,
                     const std::vector<std::string_view>& b, std::string_view ownB) {
    if (a.empty() && b.empty()) return 1;
    // The own name stands for itself under either spelling: a rename changes
    // the places it is written (a recursive call), and may leave others (a
    // local variable named like the function) as they were.
    static constexpr std::string_view kOwn = "\x01";
    std::unordered_map<std::string_view, long> left;
    auto own = [&](std::string_view t) { return t == ownA || t == ownB ? kOwn : t; };
    for (auto t : a)
        ++left[own(t)];
    size_t shared = 0;
    for (auto t : b)
        if (auto it = left.find(own(t)); it != left.end() && it->second > 0) {
            --it->second;
            ++shared;
        }
    return 2.0 * double(shared) / double(a.size() + b.size());
}

std::optional<SuccessorPick> likelySuccessor(size_t was, const std::vector<syntax::Symbol>& before,
                                             std::string_view wasText,
                                             const std::vector<syntax::Symbol>& now,
                                             std::string_view nowText,
                                             const SuccessorRules& rules) {
    const syntax::Symbol& w = before[was];
    auto tokensOf = [](std::string_view file, const syntax::Symbol& s) {
        if (s.endByte > file.size() || s.startByte > s.endByte)
            return std::vector<std::string_view>();
        return codeTokens(file.substr(s.startByte, s.endByte - s.startByte));
    };
    auto wasTokens = tokensOf(wasText, w);
    if (wasTokens.size() < rules.minTokens) return std::nullopt;
    // Definitions are told apart by their written names (an overload is its
    // name and its parameters), counted: of twins (a function defined once
    // per preprocessor branch, a method per impl block), one can go or come
    // while the others stay.
    std::unordered_map<std::string, int> count; // now less before, per name
    for (auto& s : before)
        --count[syntax::writtenName(s)];
    for (auto& s : now)
        ++count[syntax::writtenName(s)];
    auto added = [&](const syntax::Symbol& s) { return count[syntax::writtenName(s)] > 0; };
    // The best of the new definitions of its kind, and the runner-up.
    std::optional<SuccessorPick> best;
    double second = 0;
    for (size_t i = 0; i < now.size(); ++i) {
        const auto& s = now[i];
        if (s.kind != w.kind || !added(s)) continue;
        double like = tokenLikeness(wasTokens, syntax::ownName(w.qualified), tokensOf(nowText, s),
                                    syntax::ownName(s.qualified));
        if (!best || like > best->likeness) {
            if (best) second = best->likeness;
            best = SuccessorPick{i, like};
        } else {
            second = std::max(second, like);
        }
    }
    if (!best || best->likeness < rules.likeness || best->likeness - second < rules.margin)
        return std::nullopt;
    // And the other way: of the definitions the file had, the candidate
    // must be most alike this one. One gone under its name and more alike
    // is the one renamed; one still there and more alike is the one it
    // was copied from, and it is new code.
    const syntax::Symbol& c = now[best->index];
    auto cTokens = tokensOf(nowText, c);
    for (size_t i = 0; i < before.size(); ++i) {
        const auto& s = before[i];
        if (i == was || s.kind != w.kind) continue;
        double like = tokenLikeness(tokensOf(wasText, s), syntax::ownName(s.qualified), cTokens,
                                    syntax::ownName(c.qualified));
        if (like >= best->likeness) return std::nullopt;
    }
    return best;
}

const FormerCode::Found* FormerCode::stamped(const Anchor& a) {
    if (!headRead_) {
        // Once per session: HEAD does not move under one findings run.
        std::string head = headCommit(root_);
        headRead_ = true;
        if (head != head_) {
            // New commits may hold what was not found, and the files' last
            // versions are others.
            found_.clear();
            commits_.clear();
            head_ = std::move(head);
        }
    }
    if (head_.empty() || a.symbol.empty()) return nullptr; // outside git, or nothing committed
    auto [it, fresh] = found_.try_emplace(a.path + "\t" + a.symbol + "\t" + a.hash);
    if (!fresh) return it->second ? &*it->second : nullptr;
    // The file's last versions: one `git log` per file and HEAD.
    auto listed = commits_.find(a.path);
    if (listed == commits_.end()) {
        if (commits_.size() >= size_t(kFilesPerHead)) return nullptr;
        listed = commits_.emplace(a.path, std::vector<std::string>()).first;
        auto code = runProcessLines({"git", "-C", root_, "log", "--no-color",
                                     "-n" + std::to_string(kVersions), "--format=%H", "--", a.path},
                                    [&](std::string_view line) {
                                        std::string id(line);
                                        if (isHexId(id)) listed->second.push_back(std::move(id));
                                    });
        if (!code || *code != 0) listed->second.clear();
    }
    const auto& commits = listed->second;
    if (commits.empty()) return nullptr;
    for (auto& commit : commits) {
        auto v = version(commit, a.path);
        if (!v) continue;
        // The stamp's own definition, by its name and digest (the tokens',
        // for a stamp of other rules whose hash today's rules do not give).
        for (size_t i = 0; i < v->symbols.size(); ++i) {
            const auto& s = v->symbols[i];
            if (s.qualified == a.symbol && s.kind == a.nodeKind &&
                (s.hash == a.hash || (!a.tokens.empty() && s.tokenHash == a.tokens))) {
                it->second = Found{v, i};
                return &*it->second;
            }
        }
    }
    return nullptr;
}

std::shared_ptr<const FormerCode::Version> FormerCode::version(const std::string& commit,
                                                               const std::string& path) {
    auto [it, fresh] = versions_.try_emplace(commit + ":" + path);
    if (!fresh) return it->second;
    if (!objects_) objects_ = std::make_unique<GitObjectReader>(root_);
    auto text = objects_->blob(commit + ":./" + path, kMaxAnchoredFileBytes);
    if (!text) return nullptr;
    auto lang = syntax::languageFor(path, *text);
    if (!lang) return nullptr;
    auto v = std::make_shared<Version>();
    v->text = std::move(*text);
    v->symbols = syntax::extractSymbols(*lang, v->text);
    return it->second = std::move(v);
}

} // namespace engram
