// Contradiction by polarity and by outcome, and the list of kept rules (see
// Modality.h). The number rule lives in Quantities.cpp.
#include "engine/Modality.h"

#include "engine/ClaimWords.h"

#include <algorithm>
#include <set>

namespace engram {

namespace {

using claimwords::Word;
using Clause = std::vector<Word>;

bool oneOf(std::string_view w, std::initializer_list<std::string_view> ws) {
    return std::find(ws.begin(), ws.end(), w) != ws.end();
}

// Words that open a condition or a circumstance ("when the key is missing",
// "in Python 3", "for writes"): a comma part starting with one belongs to
// the clause beside it, not to a clause of its own.
bool conditionOpener(const Word& w) {
    static const claimwords::WordSet kOpeners = {
        "when", "whenever", "if",     "unless", "while",  "until",   "before",  "after", "once",
        "on",   "in",       "for",    "at",     "during", "with",    "without", "under", "within",
        "upon", "since",    "except", "even",   "across", "between", "from",    "per"};
    return !w.code && kOpeners.contains(w.text);
}

bool auxiliary(std::string_view w) {
    static const claimwords::WordSet kAuxiliaries = {
        "must", "shall", "should", "ought",  "can",   "could", "may",   "might", "is",
        "are",  "am",    "be",     "been",   "being", "was",   "were",  "do",    "does",
        "did",  "will",  "would",  "always", "never", "not",   "cannot"};
    return kAuxiliaries.contains(w) || claimwords::negation(w);
}

// Clauses: sentences and parts split at ; : ( ) and at a comma, but a comma
// part that is only a condition ("in Python 3, the result is a list") stays
// with its clause. "because", "but", "whereas", "although" start a new
// clause, and so does "and" before a modal or a negation ("is thread-safe
// and can be shared").
std::vector<Clause> clausesOf(std::string_view text) {
    std::vector<Clause> out;
    std::vector<Clause> parts; // comma parts of the current sentence
    auto endSentence = [&] {
        size_t first = out.size(); // this sentence's first clause
        for (size_t i = 0; i < parts.size(); ++i) {
            if (parts[i].empty()) continue;
            bool condition = conditionOpener(parts[i].front());
            if (condition && out.size() > first) // "..., even on errors"
                out.back().insert(out.back().end(), parts[i].begin(), parts[i].end());
            else if (condition && i + 1 < parts.size()) // "In Python 3, ..."
                parts[i + 1].insert(parts[i + 1].begin(), parts[i].begin(), parts[i].end());
            else
                out.push_back(std::move(parts[i]));
        }
        parts.clear();
    };
    parts.emplace_back();
    std::vector<Word> ws;
    for (auto& s : claimwords::statements(text))
        ws.insert(ws.end(), s.begin(), s.end());
    for (size_t i = 0; i < ws.size(); ++i) {
        const Word& w = ws[i];
        if (w.punct) {
            if (w.punct == ',')
                parts.emplace_back();
            else if (w.punct != '=' && w.punct != '<' && w.punct != '>' && w.punct != '~') {
                endSentence();
                parts.emplace_back();
            }
            continue;
        }
        bool split = !w.code && oneOf(w.text, {"because", "but", "whereas", "although", "though"});
        if (!w.code && w.text == "and" && i + 1 < ws.size() && !ws[i + 1].code &&
            auxiliary(ws[i + 1].text))
            split = true;
        if (split) {
            parts.emplace_back();
            continue;
        }
        parts.back().push_back(w);
    }
    endSentence();
    return out;
}

std::string phraseOf(const Clause& c, size_t from) {
    std::string s;
    for (size_t i = from; i < c.size(); ++i)
        s += (s.empty() ? "" : " ") + c[i].text;
    return s;
}

// ---- Polarity ----------------------------------------------------------

enum class Mood { Fact, Possible, Necessary }; // weakest first

struct Polar {
    Mood mood = Mood::Fact;
    std::string modal = "do"; // the class named in the finding
    int negations = 0;
    bool prohibits = false;  // "must not", "may not", "cannot": a negation right after the modal
    bool impossible = false; // "cannot", "could not"
    bool never = false;      // denied by "never"
    bool past = false;
    std::set<std::string> main; // content words before any subordinate clause
    std::set<std::string> sub;  // the subordinate clause ("when the key is empty")
    int subNegations = 0;
    std::string phrase;
};

// Where a subordinate clause starts: its content must match word for word,
// and a negation inside it ("when the key is not set") is not the clause's.
bool subordinator(const Word& w) {
    static const claimwords::WordSet kSubordinators = {"when",  "whenever", "if",     "unless",
                                                       "while", "until",    "before", "after",
                                                       "where", "which",    "who",    "that"};
    return !w.code && kSubordinators.contains(w.text);
}

// The words that set a statement's mood, tense and polarity. A modal's
// name in a finding is the strongest one present: do < is < will < always <
// can < must.
struct Marker {
    std::string_view word;
    Mood mood;
    std::string_view name;  // the class named in a finding; empty: leave it
    bool denies = false;    // the word denies by itself ("isn't", "cannot")
    bool prohibits = false; // ... as a prohibition ("mustn't", "cannot")
    bool past = false;
};

constexpr Marker kMarkers[] = {
    {"must", Mood::Necessary, "must"},
    {"shall", Mood::Necessary, "must"},
    {"should", Mood::Necessary, "must"},
    {"ought", Mood::Necessary, "must"},
    {"mustn't", Mood::Necessary, "must", true, true},
    {"shouldn't", Mood::Necessary, "must", true, true},
    {"shan't", Mood::Necessary, "must", true, true},
    {"needn't", Mood::Necessary, "must", true},
    {"can", Mood::Possible, "can"},
    {"could", Mood::Possible, "can"},
    {"may", Mood::Possible, "can"},
    {"cannot", Mood::Possible, "can", true, true},
    {"can't", Mood::Possible, "can", true, true},
    {"couldn't", Mood::Possible, "can", true, true},
    {"is", Mood::Fact, "is"},
    {"are", Mood::Fact, "is"},
    {"am", Mood::Fact, "is"},
    {"be", Mood::Fact, "is"},
    {"been", Mood::Fact, "is"},
    {"being", Mood::Fact, "is"},
    {"isn't", Mood::Fact, "is", true},
    {"aren't", Mood::Fact, "is", true},
    {"do", Mood::Fact, ""},
    {"does", Mood::Fact, ""},
    {"doesn't", Mood::Fact, "", true},
    {"don't", Mood::Fact, "", true},
    {"will", Mood::Fact, "will"},
    {"would", Mood::Fact, "will"},
    {"won't", Mood::Fact, "will", true},
    {"wouldn't", Mood::Fact, "will", true},
    {"was", Mood::Fact, "", false, false, true},
    {"were", Mood::Fact, "", false, false, true},
    {"did", Mood::Fact, "", false, false, true},
    {"had", Mood::Fact, "", false, false, true},
    {"wasn't", Mood::Fact, "", true, false, true},
    {"weren't", Mood::Fact, "", true, false, true},
    {"didn't", Mood::Fact, "", true, false, true},
    {"hadn't", Mood::Fact, "", true, false, true},
};

int rank(std::string_view modal) {
    static constexpr std::string_view kOrder[] = {"do", "is", "will", "always", "can", "must"};
    return int(std::find(std::begin(kOrder), std::end(kOrder), modal) - std::begin(kOrder));
}

Polar polarOf(const Clause& c) {
    Polar p;
    for (auto& w : c)
        if (!w.code && claimwords::hedge(w.text)) return p; // no words: compared with nothing
    size_t sub = c.size();
    for (size_t i = 1; i < c.size(); ++i)
        if (subordinator(c[i])) {
            sub = i;
            break;
        }
    size_t first = c.size(); // the first polarity word, where the phrase starts
    auto name = [&](Mood m, std::string_view n) {
        p.mood = std::max(p.mood, m);
        if (!n.empty() && rank(n) > rank(p.modal)) p.modal = std::string(n);
    };
    bool afterModal = false; // the previous word was a modal or an auxiliary
    for (size_t i = 0; i < sub; ++i) {
        const Word& w = c[i];
        const std::string& t = w.text;
        bool wasModal = afterModal;
        afterModal = false;
        if (w.code) {
            claimwords::addKeys(p.main, w);
            continue;
        }
        auto m = std::find_if(std::begin(kMarkers), std::end(kMarkers),
                              [&](const Marker& k) { return k.word == t; });
        const std::string_view next = i + 1 < sub ? std::string_view(c[i + 1].text) : "";
        if (m != std::end(kMarkers)) {
            name(m->mood, m->name);
            p.negations += m->denies;
            p.prohibits = p.prohibits || m->prohibits;
            p.impossible = p.impossible || (m->denies && m->mood == Mood::Possible);
            p.past = p.past || m->past;
            afterModal = !m->denies;
        } else if (next == "to" && oneOf(t, {"have", "has", "need", "needs", "required", "used"})) {
            if (t == "used")
                p.past = true;
            else
                name(Mood::Necessary, "must");
            first = std::min(first, i++); // and the "to"
            continue;
        } else if (t == "always" || t == "never") {
            if (p.mood == Mood::Fact) name(Mood::Fact, "always");
            if (t == "never") {
                ++p.negations;
                p.never = true;
                p.prohibits = p.prohibits || (wasModal && p.mood == Mood::Necessary);
            }
        } else if (t == "not" || (t == "no" && (wasModal || next == "longer"))) {
            ++p.negations;
            p.prohibits = p.prohibits || (wasModal && p.mood != Mood::Fact);
            p.impossible = p.impossible || (i > 0 && oneOf(c[i - 1].text, {"can", "could"}));
            if (next == "longer") first = std::min(first, i++);
        } else if (claimwords::negation(t)) {
            ++p.negations;
        } else {
            if (!claimwords::functionWord(t)) claimwords::addKeys(p.main, w);
            continue;
        }
        first = std::min(first, i);
    }
    for (size_t i = sub; i < c.size(); ++i) {
        if (!c[i].code && claimwords::negation(c[i].text)) {
            ++p.subNegations;
            continue;
        }
        if (c[i].code || !claimwords::functionWord(c[i].text)) claimwords::addKeys(p.sub, c[i]);
    }
    p.phrase = phraseOf(c, first == c.size() ? 0 : first);
    return p;
}

// Whether a (affirming) and b (denying) say opposite things about the same
// words. Only like with like: a fact against its denial, "must" against
// "must not" or "need not", "can" against "cannot"; across kinds only where
// the denial rules the affirmation out ("may be modified" / "must not be
// modified", "can throw" / "never throws", "must" / "may not", "handles" /
// "cannot handle"). A prohibition does not deny a fact ("is called" / "must
// not be called" says a rule is broken, not that either claim is wrong).
bool opposed(const Polar& pos, const Polar& neg) {
    if (pos.mood == neg.mood) return true;
    if (pos.mood == Mood::Possible && neg.mood == Mood::Necessary) return neg.prohibits;
    if (pos.mood == Mood::Possible && neg.mood == Mood::Fact) return neg.never;
    if (pos.mood == Mood::Necessary && neg.mood == Mood::Possible) return neg.prohibits;
    if (pos.mood == Mood::Fact && neg.mood == Mood::Possible) return neg.impossible;
    return false;
}

// ---- Outcome -------------------------------------------------------------

enum class Outcome { None, Return, Raise, Block };

struct Result {
    Outcome kind = Outcome::None;
    std::set<std::string> value;   // what is returned or raised
    std::set<std::string> context; // the subject and the condition
    std::string phrase;
};

Outcome outcomeOf(const Word& w) {
    if (w.code || w.text.ends_with("ed")) return Outcome::None; // "returned": history
    auto k = claimwords::keys(w);
    if (k.size() != 1) return Outcome::None;
    if (k[0] == "return") return Outcome::Return;
    if (k[0] == "rais" || k[0] == "throw" || k[0] == "panic") return Outcome::Raise;
    if (k[0] == "block") return Outcome::Block;
    return Outcome::None;
}

bool outcomeCondition(const Word& w) {
    static const claimwords::WordSet kConditions = {"when", "whenever", "if",    "unless", "on",
                                                    "for",  "at",       "after", "upon",   "once",
                                                    "in",   "during",   "while", "until"};
    return !w.code && kConditions.contains(w.text);
}

// The outcome a clause states, if it states one plainly: no negation, no
// modal, no past tense, and a condition ("when ...", "on ...", "for ...").
Result resultOf(const Clause& c) {
    Result r;
    size_t verb = c.size();
    bool conditioned = false;
    for (size_t i = 0; i < c.size(); ++i) {
        const Word& w = c[i];
        // A denial or a modal before the condition changes the outcome; one
        // inside the condition ("when the item is not found") is part of it.
        if (!w.code && claimwords::hedge(w.text)) return {};
        if (!conditioned && !w.code &&
            (claimwords::negation(w.text) || auxiliary(w.text) ||
             oneOf(w.text, {"no", "used", "had", "only"})) &&
            !oneOf(w.text, {"is", "are", "be"}))
            return {};
        if (verb == c.size()) {
            if (auto k = outcomeOf(w); k != Outcome::None) {
                verb = i;
                r.kind = k;
                continue;
            }
        }
        if (outcomeCondition(w)) conditioned = true;
    }
    if (verb == c.size() || !conditioned) return {};
    bool inCondition = false;
    for (size_t i = 0; i < c.size(); ++i) {
        if (i == verb) continue;
        const Word& w = c[i];
        if (outcomeCondition(w)) {
            if (i > verb) inCondition = true;
            continue;
        }
        if (!w.code && claimwords::functionWord(w.text)) continue;
        claimwords::addKeys(i > verb && !inCondition ? r.value : r.context, w);
    }
    if (r.context.empty()) return {};
    r.phrase = phraseOf(c, 0);
    return r;
}

bool disjoint(const std::set<std::string>& a, const std::set<std::string>& b) {
    for (auto& w : a)
        if (b.count(w)) return false;
    return true;
}

// The statements of a text that have words to compare.
std::vector<Polar> polarsOf(std::string_view text) {
    std::vector<Polar> out;
    for (auto& c : clausesOf(text))
        if (Polar p = polarOf(c); !p.main.empty()) out.push_back(std::move(p));
    return out;
}

std::vector<Result> resultsOf(std::string_view text) {
    std::vector<Result> out;
    for (auto& c : clausesOf(text))
        if (Result r = resultOf(c); r.kind != Outcome::None) out.push_back(std::move(r));
    return out;
}

} // namespace

std::optional<ModalityConflict> contradiction(std::string_view a, std::string_view b) {
    auto pa = claimwords::parsedOnce<&polarsOf>(a), pb = claimwords::parsedOnce<&polarsOf>(b);
    for (auto& px : *pa)
        for (auto& py : *pb) {
            if ((px.negations % 2) == (py.negations % 2) || px.past != py.past) continue;
            if (px.main != py.main || px.sub != py.sub ||
                (px.subNegations % 2) != (py.subNegations % 2))
                continue;
            const Polar& pos = px.negations % 2 ? py : px;
            const Polar& neg = px.negations % 2 ? px : py;
            if (!opposed(pos, neg)) continue;
            return ModalityConflict{pos.mood == neg.mood ? neg.modal : pos.modal, pos.phrase,
                                    neg.phrase, "modality"};
        }
    return std::nullopt;
}

std::optional<ModalityConflict> outcomeClash(std::string_view a, std::string_view b) {
    auto ra = claimwords::parsedOnce<&resultsOf>(a), rb = claimwords::parsedOnce<&resultsOf>(b);
    for (auto& rx : *ra)
        for (auto& ry : *rb) {
            if (rx.context != ry.context) continue;
            bool differ = rx.kind != ry.kind || (rx.kind != Outcome::Block && !rx.value.empty() &&
                                                 !ry.value.empty() && disjoint(rx.value, ry.value));
            if (differ) return ModalityConflict{"returns", rx.phrase, ry.phrase, "outcome"};
        }
    return std::nullopt;
}

const std::vector<ContradictionRule>& contradictionRules() {
    static const std::vector<ContradictionRule> rules = {
        {"modality", &contradiction}, {"number", &numberClash}, {"outcome", &outcomeClash}};
    return rules;
}

std::optional<ModalityConflict> contradicts(std::string_view a, std::string_view b) {
    for (auto& r : contradictionRules())
        if (auto m = r.test(a, b)) return m;
    return std::nullopt;
}

} // namespace engram
