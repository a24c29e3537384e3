// Modal statements and their polarity (see Modality.h).
#include "engine/Modality.h"

#include <algorithm>
#include <set>
#include <vector>

namespace engram {

namespace {

// A word, or "." for a clause boundary (a predicate stops there).
std::vector<std::string> words(std::string_view text) {
    std::vector<std::string> out;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty()) out.push_back(std::move(cur));
        cur.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80) {
            cur += char(c);
        } else if (c >= 'A' && c <= 'Z') {
            cur += char(c - 'A' + 'a');
        } else if (c == '\'' && !cur.empty() && i + 1 < text.size() && text[i + 1] == 't') {
            cur += '\''; // keep contractions ("don't") whole
        } else {
            flush();
            if (c == ';' || c == ',' || c == ':' || c == '!' || c == '?' || c == '(' || c == ')' ||
                (c == '.' && (i + 1 == text.size() || text[i + 1] == ' ')))
                out.push_back(".");
        }
    }
    flush();
    return out;
}

struct Modal {
    std::string cls;
    bool negative = false;
};

// The modal class of a word and whether the word itself denies
// ("cannot", "never", "mustn't").
std::optional<Modal> modalOf(const std::string& w) {
    static const std::vector<std::pair<std::vector<std::string>, std::string>> positive = {
        {{"must", "shall", "should"}, "must"},
        {{"can", "could", "may"}, "can"},
        {{"do", "does", "did"}, "do"},
        {{"is", "are", "was", "were"}, "is"},
        {{"will", "would"}, "will"},
        {{"has", "have"}, "have"},
        {{"always"}, "always"},
    };
    static const std::vector<std::pair<std::vector<std::string>, std::string>> negative = {
        {{"mustn't", "shan't", "shouldn't"}, "must"},
        {{"cannot", "can't", "couldn't"}, "can"},
        {{"don't", "doesn't", "didn't"}, "do"},
        {{"isn't", "aren't", "wasn't", "weren't"}, "is"},
        {{"won't", "wouldn't"}, "will"},
        {{"hasn't", "haven't"}, "have"},
        {{"never"}, "always"},
    };
    for (auto& [ws, cls] : positive)
        if (std::find(ws.begin(), ws.end(), w) != ws.end()) return Modal{cls, false};
    for (auto& [ws, cls] : negative)
        if (std::find(ws.begin(), ws.end(), w) != ws.end()) return Modal{cls, true};
    return std::nullopt;
}

// Words that say nothing about what is claimed.
bool filler(const std::string& w) {
    static const std::set<std::string> kFiller = {
        "a",   "an",   "the",  "be",   "been", "to",    "it",     "its",  "this", "that",
        "and", "or",   "of",   "for",  "in",   "on",    "at",     "by",   "with", "from",
        "as",  "also", "ever", "only", "just", "still", "really", "then", "so",   "very"};
    return kFiller.count(w) > 0;
}

struct Statement {
    Modal modal;
    std::string phrase;              // the modal and its predicate, as words
    std::set<std::string> predicate; // content words after the modal
};

constexpr size_t kPredicateWords = 6;

std::vector<Statement> statements(std::string_view text) {
    auto ws = words(text);
    std::vector<Statement> out;
    for (size_t i = 0; i < ws.size(); ++i) {
        auto m = modalOf(ws[i]);
        if (!m) continue;
        Statement s{*m, ws[i], {}};
        size_t j = i + 1;
        // "must not", "can not", "do not", "must never", "is never": denial
        // right after the modal (adverbs like "also" may sit between).
        while (j < ws.size() && filler(ws[j]) && ws[j] != "to")
            s.phrase += " " + ws[j++];
        if (j < ws.size() && (ws[j] == "not" || ws[j] == "never" || ws[j] == "no")) {
            s.modal.negative = !s.modal.negative;
            s.phrase += " " + ws[j++];
        }
        for (size_t n = 0; j < ws.size() && ws[j] != "." && n < kPredicateWords; ++j, ++n) {
            if (modalOf(ws[j])) break; // the next statement begins
            s.phrase += " " + ws[j];
            if (!filler(ws[j]) && ws[j] != "not") s.predicate.insert(ws[j]);
        }
        out.push_back(std::move(s));
    }
    return out;
}

// Most of the shorter predicate appears in the longer one.
bool samePredicate(const std::set<std::string>& a, const std::set<std::string>& b) {
    if (a.empty() || b.empty()) return a.empty() && b.empty();
    size_t shared = 0;
    for (auto& w : a)
        shared += b.count(w);
    return shared * 2 >= std::min(a.size(), b.size()) + 1 || shared == std::min(a.size(), b.size());
}

} // namespace

std::optional<ModalityConflict> contradiction(std::string_view a, std::string_view b) {
    auto sa = statements(a);
    auto sb = statements(b);
    for (auto& x : sa)
        for (auto& y : sb) {
            if (x.modal.cls != y.modal.cls || x.modal.negative == y.modal.negative) continue;
            if (!samePredicate(x.predicate, y.predicate)) continue;
            const Statement& pos = x.modal.negative ? y : x;
            const Statement& neg = x.modal.negative ? x : y;
            return ModalityConflict{x.modal.cls, pos.phrase, neg.phrase};
        }
    return std::nullopt;
}

std::optional<ModalityConflict> numberClash(std::string_view a, std::string_view b) {
    // The word before each number, and the numbers said after it: "retries
    // are 3" and "retries are 5" both say what "are" is, differently.
    auto numbered = [](std::string_view text) {
        std::vector<std::pair<std::string, std::string>> out; // (word before, number)
        auto w = words(text);
        for (size_t i = 1; i < w.size(); ++i) {
            const std::string& n = w[i];
            if (n.empty() ||
                !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
                continue;
            if (w[i - 1] == ".") continue;
            out.emplace_back(w[i - 1], n);
        }
        return out;
    };
    auto na = numbered(a), nb = numbered(b);
    for (auto& [word, num] : na) {
        bool sameNumber = false;
        std::string other;
        for (auto& [w2, n2] : nb)
            if (w2 == word) {
                if (n2 == num)
                    sameNumber = true;
                else if (other.empty())
                    other = n2;
            }
        if (sameNumber || other.empty()) continue;
        // The number the other text gives must not also follow the word here
        // ("between 3 and 5" against "is 5").
        bool both = false;
        for (auto& [w1, n1] : na)
            if (w1 == word && n1 == other) both = true;
        if (both) continue;
        return ModalityConflict{"number", word + " " + num, word + " " + other};
    }
    return std::nullopt;
}

} // namespace engram
