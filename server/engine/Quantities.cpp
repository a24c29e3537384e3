// Contradiction by number (see Modality.h: numberClash).
//
// A number is a quantity only when something says what it measures: a unit
// ("30 s", "10 MB", "3 times", "12 connections") or a copula after the
// measured words ("max_retries is 3", "timeout: 10 s"). Two quantities clash
// when the measured words, the unit's dimension, the bound and the
// conditions all agree and the values do not. Everything else a number can
// be is left alone: an id after its word ("line 12", "claim 13", "PR #123",
// "Python 3.11"), a version or a date (never a bare number), a range or a
// change ("from 30 s to 60 s"), an estimate ("about 30 s"), a possibility
// ("can be raised to 120 s"), a past value ("was 50") or a denied one.
#include "engine/ClaimWords.h"
#include "engine/Modality.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <unordered_map>

namespace engram {

namespace {

using claimwords::Word;

bool isAny(std::string_view w, std::initializer_list<std::string_view> ws) {
    return std::find(ws.begin(), ws.end(), w) != ws.end();
}

// A unit with a dimension: the value in the dimension's base unit. Decimal
// and binary kilo-, mega- and gigabytes are both read ("10 MB" is 10240 KB
// and 10000 KB): two sizes differ only when no reading makes them equal.
struct UnitInfo {
    std::string_view dim; // time, size, percent, factor
    double scale = 1;
    double binary = 0; // the binary reading's scale, when the unit has one
};

std::optional<UnitInfo> unitOf(std::string_view u) {
    struct Row {
        std::initializer_list<std::string_view> names;
        UnitInfo info;
    };
    static const Row rows[] = {
        {{"ns", "nanosecond", "nanoseconds"}, {"time", 1e-9}},
        {{"us", "microsecond", "microseconds"}, {"time", 1e-6}},
        {{"ms", "msec", "msecs", "millisecond", "milliseconds"}, {"time", 1e-3}},
        {{"s", "sec", "secs", "second", "seconds"}, {"time", 1}},
        {{"min", "mins", "minute", "minutes"}, {"time", 60}},
        {{"h", "hr", "hrs", "hour", "hours"}, {"time", 3600}},
        {{"day", "days"}, {"time", 86400}},
        {{"week", "weeks"}, {"time", 604800}},
        {{"bit", "bits"}, {"size", 0.125}},
        {{"byte", "bytes"}, {"size", 1}},
        {{"kb", "kilobyte", "kilobytes"}, {"size", 1e3, 1024.0}},
        {{"kib"}, {"size", 1024.0}},
        {{"mb", "megabyte", "megabytes"}, {"size", 1e6, 1048576.0}},
        {{"mib"}, {"size", 1048576.0}},
        {{"gb", "gigabyte", "gigabytes"}, {"size", 1e9, 1073741824.0}},
        {{"gib"}, {"size", 1073741824.0}},
        {{"tb", "terabyte", "terabytes"}, {"size", 1e12, 1099511627776.0}},
        {{"%", "percent"}, {"percent", 1}},
        {{"x"}, {"factor", 1}},
    };
    // Every word after a number is looked up: by one hash, not a scan of
    // the rows.
    static const auto byName = [] {
        std::unordered_map<std::string_view, UnitInfo> m;
        for (auto& r : rows)
            for (auto n : r.names)
                m.emplace(n, r.info);
        return m;
    }();
    if (auto it = byName.find(u); it != byName.end()) return it->second;
    return std::nullopt;
}

// "3", "0.5", "three", or a number with its unit glued on ("250ms", "2s",
// "64-bit", "10%"). Leading zeros ("0042") and anything else ("4xx", "2nd",
// "1.2.3", "2024-03-01", "02:00") are not quantities.
struct NumberWord {
    double value = 0;
    std::string unit; // glued unit, if any
};

std::optional<NumberWord> parseNumber(const Word& w) {
    if (w.code || w.punct) return std::nullopt;
    const std::string& t = w.text;
    if (t.empty()) return std::nullopt;
    if (t[0] < '0' || t[0] > '9') {
        static const std::unordered_map<std::string_view, double> kWords = {
            {"zero", 0},  {"two", 2},   {"three", 3}, {"four", 4}, {"five", 5},    {"six", 6},
            {"seven", 7}, {"eight", 8}, {"nine", 9},  {"ten", 10}, {"eleven", 11}, {"twelve", 12}};
        if (auto it = kWords.find(t); it != kWords.end()) return NumberWord{it->second, ""};
        return std::nullopt;
    }
    size_t i = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
        ++i;
    if (i == 0 || (t[0] == '0' && i > 1)) return std::nullopt;
    if (i + 1 < t.size() && t[i] == '.' && t[i + 1] >= '0' && t[i + 1] <= '9') {
        ++i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            ++i;
    }
    // strtod, not stod: a run of 400 digits is inf, not an exception.
    NumberWord p{std::strtod(t.substr(0, i).c_str(), nullptr), ""};
    std::string_view rest = std::string_view(t).substr(i);
    if (rest.starts_with("-")) rest.remove_prefix(1);
    if (!rest.empty()) {
        if (!unitOf(rest)) return std::nullopt;
        p.unit = std::string(rest);
    }
    return p;
}

// Words after which a number names something rather than measuring it.
bool idWord(std::string_view w) {
    static const claimwords::WordSet kWords = {
        "line",        "lines",    "l",       "step",     "steps",   "claim",    "claims",
        "issue",       "issues",   "pr",      "ticket",   "bug",     "case",     "phase",
        "stage",       "option",   "item",    "test",     "note",    "finding",  "rule",
        "version",     "versions", "release", "releases", "v",       "r",        "migration",
        "commit",      "rfc",      "cve",     "port",     "code",    "errno",    "signal",
        "shard",       "worker",   "level",   "section",  "chapter", "page",     "figure",
        "requirement", "build",    "patch",   "revision", "rev",     "number",   "no",
        "id",          "day",      "q",       "python",   "go",      "node",     "java",
        "gson",        "openssl",  "tls",     "http",     "https",   "api",      "schema",
        "format",      "c",        "jdk",     "ruby",     "rust",    "postgres", "ipv",
        "utf",         "sha",      "es",      "round",    "attempt", "pass"};
    return kWords.contains(w);
}

// Words that carry no part of what a number measures.
bool measureFiller(std::string_view w) {
    static const claimwords::WordSet kWords = {
        "at",   "in",      "on",   "for",       "of",       "by",   "with",  "after",  "within",
        "into", "has",     "have", "default",   "defaults", "set",  "equal", "equals", "value",
        "only", "exactly", "now",  "currently", "up",       "than", "no",    "and"};
    return claimwords::functionWord(w) || kWords.contains(w);
}

enum class Bound { Exact, AtMost, AtLeast, Above, Below };

// The bound words of "at most 5", "up to 5", "max 5", "capped at 5", "at
// least 8", "more than 10", "under 1 s": they are not part of the measure.
std::optional<Bound> boundWord(const std::vector<Word>& c, size_t i) {
    // Above and Below turn into AtMost and AtLeast after "no" or "not".
    static const std::unordered_map<std::string_view, Bound> kWords = {
        {"most", Bound::AtMost},     {"max", Bound::AtMost},      {"maximum", Bound::AtMost},
        {"cap", Bound::AtMost},      {"caps", Bound::AtMost},     {"capped", Bound::AtMost},
        {"upto", Bound::AtMost},     {"least", Bound::AtLeast},   {"min", Bound::AtLeast},
        {"minimum", Bound::AtLeast}, {"more", Bound::Above},      {"greater", Bound::Above},
        {"larger", Bound::Above},    {"bigger", Bound::Above},    {"longer", Bound::Above},
        {"over", Bound::Above},      {"above", Bound::Above},     {"exceeds", Bound::Above},
        {"exceed", Bound::Above},    {"exceeding", Bound::Above}, {"less", Bound::Below},
        {"fewer", Bound::Below},     {"smaller", Bound::Below},   {"shorter", Bound::Below},
        {"under", Bound::Below},     {"below", Bound::Below}};
    const std::string& w = c[i].text;
    if (w == "up" && i + 1 < c.size() && c[i + 1].text == "to") return Bound::AtMost;
    auto it = kWords.find(w);
    if (it == kWords.end()) return std::nullopt;
    bool denied = i > 0 && isAny(c[i - 1].text, {"no", "not"});
    if (denied && it->second == Bound::Above) return Bound::AtMost;
    if (denied && it->second == Bound::Below) return Bound::AtLeast;
    return it->second;
}

// Words that open a condition: a quantity stated under one ("5 s in tests")
// is another quantity than the same words under another or under none.
bool conditionWord(std::string_view w) {
    static const claimwords::WordSet kWords = {
        "when",  "whenever", "if",      "unless", "while",   "until",  "before",  "after",
        "once",  "on",       "in",      "for",    "at",      "during", "with",    "without",
        "under", "within",   "upon",    "since",  "except",  "across", "between", "from",
        "per",   "via",      "through", "over",   "against", "inside", "outside"};
    return kWords.contains(w);
}

bool stopAfterNumber(const Word& w) {
    static const claimwords::WordSet kWords = {
        "and",  "or",    "but",    "than",  "of",     "because", "so",    "which",
        "that", "must",  "should", "can",   "may",    "not",     "never", "no",
        "each", "every", "apart",  "later", "longer", "more",    "less"};
    return w.punct || (!w.code && (claimwords::functionWord(w.text) || conditionWord(w.text) ||
                                   kWords.contains(w.text)));
}

// Words that make a number something other than a value stated now: a
// past value, a change or a range ("from", "between"), a possibility, a
// habit, an estimate or a guess.
bool notAValue(std::string_view w) {
    static const claimwords::WordSet kWords = {
        "was",       "were",    "used",      "had",   "previously", "formerly", "originally",
        "from",      "between", "can",       "could", "may",        "might",    "usually",
        "typically", "often",   "sometimes", "about", "around",     "roughly",  "approximately",
        "approx",    "nearly",  "almost",    "some",  "e.g"};
    return kWords.contains(w) || claimwords::hedge(w);
}

// A bare number, with no unit and nothing counted, is a value only after a
// copula: "max_retries is 3", "timeout: 10", "max depth = 10", "defaults to
// 3", "capped at 1000". Elsewhere ("Python 3", "since 2.0", "in 2019") it
// is a name, a version or a date.
bool afterCopula(const std::vector<Word>& c, size_t i) {
    if (i == 0) return false;
    const Word& prev = c[i - 1];
    const std::string before = i >= 2 ? c[i - 2].text : "";
    return prev.punct == ':' || prev.punct == '=' ||
           isAny(prev.text, {"is", "are", "be", "equals", "of"}) ||
           (prev.text == "to" &&
            isAny(before, {"default", "defaults", "set", "limited", "capped"})) ||
           (prev.text == "at" && isAny(before, {"capped", "caps", "cap", "limited"}));
}

struct Quantity {
    double value = 0;
    std::optional<UnitInfo> unit;      // a dimension, or none (a count or a bare number)
    std::set<std::string> counted;     // what is counted ("connections"), or what follows a unit
    std::set<std::string> rate;        // "per minute", "per IP"
    std::set<std::string> measure;     // the measured words before the number
    std::set<std::string> qualifier;   // the words after it
    bool qualifierIsCondition = false; // the qualifier opens with a condition word
    bool universal = false;            // the qualifier says "every", "all", "any", "each"
    Bound bound = Bound::Exact;
    std::string phrase;
};

// The number clauses: split at . , ; ! ? ( ) but not at ':' or '=', which
// say what a value is ("max message size: 16 MB", "max depth = 10").
std::vector<std::vector<Word>> numberClauses(std::string_view text) {
    std::vector<std::vector<Word>> out(1);
    for (auto& s : claimwords::statements(text))
        for (auto& w : s) {
            if (w.punct && w.punct != ':' && w.punct != '=') {
                if (!out.back().empty()) out.emplace_back();
                continue;
            }
            out.back().push_back(w);
        }
    return out;
}

// What a word of a clause adds to the measure before a number or the
// qualifier after it, read once per clause: a clause with many numbers
// reads the words around each of them.
struct Reading {
    bool filler = false;    // measureFiller, for a word outside code
    bool universal = false; // "every", "all", "any", "each" outside code
    std::vector<std::string> keys;
};

std::vector<Quantity> quantities(std::string_view text) {
    std::vector<Quantity> out;
    for (auto& c : numberClauses(text)) {
        std::vector<std::optional<Reading>> readings(c.size());
        auto reading = [&](size_t k) -> const Reading& {
            if (!readings[k]) {
                Reading r;
                r.filler = !c[k].code && measureFiller(c[k].text);
                r.universal = !c[k].code && isAny(c[k].text, {"every", "all", "any", "each"});
                r.keys = claimwords::keys(c[k]);
                readings[k] = std::move(r);
            }
            return *readings[k];
        };
        // The measured words and the bound before the number, gathered as
        // the numbers are met: each number's are those of the one before
        // it and the words between.
        std::set<std::string> measure;
        Bound bound = Bound::Exact;
        size_t measured = 0;
        bool denied = false, hedged = false;
        for (size_t i = 0; i < c.size(); ++i) {
            const Word& w = c[i];
            if (!w.code && (claimwords::negation(w.text) || w.text == "no")) {
                // "no more than" bounds a value; any other denial is not a value
                if (!(w.text == "no" || w.text == "not") || i + 1 >= c.size() ||
                    !isAny(c[i + 1].text, {"more", "less", "fewer", "longer", "greater"}))
                    denied = true;
            }
            if (!w.code && notAValue(w.text)) hedged = true;
            if (w.punct == '~') hedged = true;
            auto num = parseNumber(w);
            if (!num) continue;
            if (denied || hedged) break; // the rest of the clause is hedged too
            const Word* prev = i > 0 ? &c[i - 1] : nullptr;
            if (prev && !prev->code && !prev->punct && idWord(prev->text)) continue;
            // A range or an alternative: "3 to 5", "3 or 4", "3-5".
            if (i + 2 < c.size() && isAny(c[i + 1].text, {"to", "or", "and"}) &&
                parseNumber(c[i + 2]))
                continue;
            if (prev && isAny(prev->text, {"to", "or", "and"}) && i >= 2 && parseNumber(c[i - 2]))
                continue;

            Quantity q;
            q.value = num->value;
            size_t j = i + 1;
            if (!num->unit.empty()) {
                q.unit = unitOf(num->unit);
            } else if (j < c.size() && !c[j].code) {
                if (isAny(c[j].text, {"thousand", "million", "billion"})) {
                    q.value *= c[j].text == "thousand" ? 1e3 : c[j].text == "million" ? 1e6 : 1e9;
                    ++j;
                }
                if (j < c.size() && !c[j].code && (q.unit = unitOf(c[j].text))) ++j;
            }
            // What follows: counted things ("12 connections", "3 bcrypt rounds")
            // or, after a unit, what it is the size of ("a 16 KB buffer").
            for (; j < c.size() && !stopAfterNumber(c[j]) && !parseNumber(c[j]); ++j)
                claimwords::addKeys(q.counted, c[j]);
            if (!q.unit && q.counted.empty() && !afterCopula(c, i)) continue;
            // A rate: "per minute", "per IP", "a minute".
            while (j + 1 < c.size() && (c[j].text == "per" ||
                                        (isAny(c[j].text, {"a", "an"}) && unitOf(c[j + 1].text)))) {
                q.rate.insert("per");
                for (++j; j < c.size() && !stopAfterNumber(c[j]); ++j)
                    claimwords::addKeys(q.rate, c[j]);
            }
            for (; measured < i; ++measured) {
                if (c[measured].punct) continue;
                if (auto b = boundWord(c, measured)) {
                    bound = *b;
                    continue;
                }
                const Reading& r = reading(measured);
                if (!r.filler) measure.insert(r.keys.begin(), r.keys.end());
            }
            q.bound = bound;
            q.measure = measure;
            q.measure.erase("default");
            // Something must say what is measured: words before the number, or
            // the counted things after it ("at most 4 retries").
            if (q.measure.empty() && q.counted.empty()) continue;
            if (j < c.size() && !c[j].code && conditionWord(c[j].text))
                q.qualifierIsCondition = true;
            for (size_t k = j; k < c.size(); ++k) {
                if (c[k].punct) continue;
                const Reading& r = reading(k);
                if (r.filler) continue;
                if (r.universal) {
                    q.universal = true;
                    continue;
                }
                q.qualifier.insert(r.keys.begin(), r.keys.end());
            }
            q.qualifier.erase("default");
            if (q.qualifier.count("other") || q.qualifier.count("els") ||
                q.qualifier.count("rest") || q.qualifier.count("remain"))
                q.universal = false;
            // The phrase quoted in a finding: from the first word that is not
            // a function word to the end of the unit ("max depth = 10").
            size_t from = 0;
            while (from < i && !c[from].code && claimwords::functionWord(c[from].text))
                ++from;
            for (size_t k = from; k < j; ++k)
                q.phrase += (q.phrase.empty() ? "" : " ") +
                            (c[k].punct ? std::string(1, c[k].punct) : c[k].text);
            out.push_back(std::move(q));
        }
    }
    return out;
}

bool subset(const std::set<std::string>& a, const std::set<std::string>& b) {
    return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// The same conditions: equal words; or one has none and the other only
// adds what is not a condition ("and truncates the rest"); or one covers
// the other ("for every call" covers "for idempotent calls").
bool sameConditions(const Quantity& x, const Quantity& y) {
    if (x.qualifier == y.qualifier && x.universal == y.universal) return true;
    if (x.qualifier.empty() && !x.universal) return !y.qualifierIsCondition;
    if (y.qualifier.empty() && !y.universal) return !x.qualifierIsCondition;
    if (x.universal != y.universal && x.qualifierIsCondition && y.qualifierIsCondition) {
        const Quantity& all = x.universal ? x : y;
        const Quantity& some = x.universal ? y : x;
        return subset(all.qualifier, some.qualifier);
    }
    return false;
}

bool sameValue(const Quantity& x, const Quantity& y) {
    auto near = [](double a, double b) {
        return a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
    };
    if (!x.unit) return near(x.value, y.value);
    for (double sx : {x.unit->scale, x.unit->binary})
        for (double sy : {y.unit->scale, y.unit->binary})
            if (sx > 0 && sy > 0 && near(x.value * sx, y.value * sy)) return true;
    return false;
}

} // namespace

std::optional<ModalityConflict> numberClash(std::string_view a, std::string_view b) {
    auto qa = claimwords::parsedOnce<&quantities>(a), qb = claimwords::parsedOnce<&quantities>(b);
    for (auto& x : *qa)
        for (auto& y : *qb) {
            if (x.unit.has_value() != y.unit.has_value()) continue;
            if (x.unit && x.unit->dim != y.unit->dim) continue;
            if (x.counted != y.counted || x.rate != y.rate || x.bound != y.bound) continue;
            if (x.measure != y.measure || !sameConditions(x, y)) continue;
            if (sameValue(x, y)) continue;
            return ModalityConflict{"number", x.phrase, y.phrase, "number"};
        }
    return std::nullopt;
}

} // namespace engram
