// Scoring the contradiction rules on a labelled set (see ContradictionScore.h).
#include "engine/ContradictionScore.h"

#include "engine/Modality.h"

#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>

namespace engram {

namespace {

std::vector<std::string_view> splitTabs(std::string_view line) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= line.size(); ++i)
        if (i == line.size() || line[i] == '\t') {
            out.push_back(line.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

} // namespace

std::vector<LabelledPair> parseLabelledPairs(std::string_view text) {
    std::vector<LabelledPair> out;
    size_t lineNo = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        auto bad = [&](const std::string& what) {
            return std::runtime_error("line " + std::to_string(lineNo) + ": " + what);
        };
        auto f = splitTabs(line);
        if (f.size() != 6)
            throw bad("expected 6 tab-separated fields (id, part, label, category, a, b), got " +
                      std::to_string(f.size()));
        LabelledPair p;
        try {
            size_t used = 0;
            p.id = std::stoi(std::string(f[0]), &used);
            if (used != f[0].size()) throw std::invalid_argument("id");
        } catch (const std::exception&) {
            throw bad("id: not a number: '" + std::string(f[0]) + "'");
        }
        if (f[1] != "dev" && f[1] != "held")
            throw bad("part: expected dev or held, got '" + std::string(f[1]) + "'");
        p.held = f[1] == "held";
        if (f[2] != "contradict" && f[2] != "compatible")
            throw bad("label: expected contradict or compatible, got '" + std::string(f[2]) + "'");
        p.contradict = f[2] == "contradict";
        if (f[3].empty()) throw bad("category: empty");
        if (f[4].empty() || f[5].empty()) throw bad(f[4].empty() ? "a: empty" : "b: empty");
        p.category = f[3];
        p.a = f[4];
        p.b = f[5];
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<RuleScore> scoreRules(const std::vector<LabelledPair>& pairs) {
    using Test = std::function<bool(const LabelledPair&)>;
    std::vector<std::pair<std::string, Test>> rules;
    for (auto& r : contradictionRules())
        rules.emplace_back(std::string(r.name), [fn = r.test](const LabelledPair& p) {
            return fn(p.a, p.b).has_value();
        });
    rules.emplace_back("all",
                       [](const LabelledPair& p) { return contradicts(p.a, p.b).has_value(); });

    std::vector<RuleScore> out;
    auto count = [&](RuleScore& s, const LabelledPair& p, bool fired) {
        ++s.pairs;
        s.contradictions += p.contradict;
        if (fired) {
            ++s.fired;
            s.correct += p.contradict;
            if (!p.contradict) s.wrong.push_back(p.id);
        } else if (p.contradict) {
            s.missed.push_back(p.id);
        }
    };
    std::map<std::string, RuleScore> byCategory;
    for (auto& [name, test] : rules) {
        RuleScore dev, held, all;
        dev.rule = held.rule = all.rule = name;
        dev.part = "dev";
        held.part = "held";
        all.part = "all";
        for (auto& p : pairs) {
            bool fired = test(p);
            count(p.held ? held : dev, p, fired);
            count(all, p, fired);
            if (name == "all") {
                auto& c = byCategory[p.category];
                c.rule = name;
                c.part = "all";
                c.category = p.category;
                count(c, p, fired);
            }
        }
        for (auto* s : {&dev, &held, &all})
            out.push_back(std::move(*s));
    }
    for (auto& [_, s] : byCategory)
        out.push_back(std::move(s));
    return out;
}

std::string scoreTable(const std::vector<RuleScore>& scores) {
    std::string out;
    char line[160];
    auto row = [&](const RuleScore& s) {
        std::snprintf(line, sizeof line, "%-9s %-5s %-19s %5zu %10zu %5zu %7zu %9.3f %6.3f\n",
                      s.rule.c_str(), s.part.c_str(), s.category.c_str(), s.pairs, s.contradictions,
                      s.fired, s.correct, s.precision(), s.recall());
        out += line;
    };
    std::snprintf(line, sizeof line, "%-9s %-5s %-19s %5s %10s %5s %7s %9s %6s\n", "rule", "part",
                  "category", "pairs", "contradict", "fired", "correct", "precision", "recall");
    out += line;
    for (auto& s : scores)
        if (s.category.empty()) row(s);
    for (auto& s : scores)
        if (!s.category.empty()) row(s);
    return out;
}

const RuleScore* findScore(const std::vector<RuleScore>& scores, std::string_view rule,
                           std::string_view part, std::string_view category) {
    for (auto& s : scores)
        if (s.rule == rule && s.part == part && s.category == category) return &s;
    return nullptr;
}

} // namespace engram
