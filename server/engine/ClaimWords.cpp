// Splitting claim text for the contradiction rules (see ClaimWords.h).
#include "engine/ClaimWords.h"

#include "text/Tokenize.h"

#include <utility>

namespace engram::claimwords {

namespace {

bool wordByte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c >= 0x80;
}

bool digit(char c) {
    return c >= '0' && c <= '9';
}

char asciiLower(char c) {
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

constexpr std::string_view kPunct = ".,;:!?()[]=<>~";

} // namespace

std::vector<Word> split(std::string_view t) {
    std::vector<Word> out;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty()) out.push_back(Word{std::move(cur), 0, false});
        cur.clear();
    };
    for (size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        bool nextWord = i + 1 < t.size() && wordByte(static_cast<unsigned char>(t[i + 1]));
        if (c == '`') {
            size_t close = t.find('`', i + 1);
            if (close != std::string_view::npos && close > i + 1) {
                flush();
                std::string span;
                for (char s : t.substr(i + 1, close - i - 1))
                    span += asciiLower(s);
                out.push_back(Word{std::move(span), 0, true});
                i = close;
            }
            continue;
        }
        // U+2019 inside a word is an apostrophe ("don’t").
        if (!cur.empty() && t.substr(i, 3) == "\xE2\x80\x99") {
            cur += '\'';
            i += 2;
            continue;
        }
        if (wordByte(static_cast<unsigned char>(c))) {
            cur += asciiLower(c);
            continue;
        }
        if (!cur.empty() && nextWord) {
            // Joiners: "Session.request", "1.5", "thread-safe", "HTTP/1.1",
            // "don't", "02:00" and "Gson.java:412" (a colon before a digit).
            if (c == '.' || c == '-' || c == '/' || c == '\'' || (c == ':' && digit(t[i + 1]))) {
                cur += c;
                continue;
            }
        }
        if (c == '%' && !cur.empty() && digit(cur.back())) { // "10%"
            cur += c;
            continue;
        }
        flush();
        // "#123", and a minus sign: "-1" is not the quantity 1.
        if ((c == '#' || (c == '-' && (i == 0 || t[i - 1] == ' '))) && i + 1 < t.size() &&
            digit(t[i + 1])) {
            cur += c;
            continue;
        }
        // A dot that starts a word is part of it (".ok"), not a full stop.
        if (c == '.' && nextWord) continue;
        if (kPunct.find(c) != std::string_view::npos) out.push_back(Word{"", c, false});
    }
    flush();
    return out;
}

std::vector<std::string> keys(const Word& w) {
    if (w.code) {
        std::string s = w.text;
        if (s.size() > 2 && s.ends_with("()")) s.resize(s.size() - 2);
        return {s};
    }
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= w.text.size(); ++i)
        if (i == w.text.size() || w.text[i] == '-') {
            if (i > start)
                out.push_back(text::stem(std::string_view(w.text).substr(start, i - start)));
            start = i + 1;
        }
    return out;
}

void addKeys(std::set<std::string>& to, const Word& w) {
    for (auto& k : keys(w))
        to.insert(k);
}

bool functionWord(std::string_view w) {
    static const WordSet kWords = {
        "a",     "also", "am",    "an",   "are",  "be",    "been",  "being", "did",    "do",
        "does",  "even", "ever",  "is",   "it",   "its",   "it's",  "just",  "really", "so",
        "still", "the",  "their", "them", "then", "there", "these", "they",  "this",   "those",
        "to",    "very", "was",   "were", "will", "would", "you"};
    return kWords.contains(w);
}

bool negation(std::string_view w) {
    if (w == "not" || w == "never" || w == "cannot") return true;
    return w.size() > 3 && w.ends_with("n't");
}

bool hedge(std::string_view w) {
    static const WordSet kWords = {"might",   "perhaps", "maybe",  "probably",   "possibly",
                                   "likely",  "seems",   "seem",   "apparently", "think",
                                   "unclear", "unsure",  "whether"};
    return kWords.contains(w);
}

std::vector<std::vector<Word>> statements(std::string_view text) {
    std::vector<std::vector<Word>> out(1);
    for (auto& w : split(text)) {
        if (w.punct == '?') {
            out.back().clear();
            continue;
        }
        bool end = w.punct == '.' || w.punct == '!' || w.punct == ';';
        out.back().push_back(std::move(w));
        if (end) out.emplace_back();
    }
    return out;
}

} // namespace engram::claimwords
