// JSON with comments, read with the offset of every value, and edited by
// splicing only what changed (see ConfigEdit.h).
#include "cli/ConfigEdit.h"

#include <algorithm>
#include <vector>

namespace engram::cli::jsonc {

using Doc = ConfigDoc;

namespace {

constexpr size_t npos = std::string::npos;
// Deeper than any configuration file; stops a hostile one from exhausting
// the stack.
constexpr int kMaxDepth = 200;

struct Element;

// A value and where its text lies: [start, end), the brackets included.
struct Node {
    Doc value;
    size_t start = 0, end = 0;
    std::vector<Element> elements; // members or items, in text order
};

struct Element {
    size_t start = 0;    // the member's opening quote, or the item's start
    std::string key;     // members only
    size_t comma = npos; // the comma that follows it, if any
    Node node;
};

size_t lineOf(const std::string& s, size_t at) {
    return 1 + std::count(s.begin(), s.begin() + std::min(at, s.size()), '\n');
}

class Parser {
public:
    explicit Parser(const std::string& s)
        : s_(s) {}

    bool sawComment = false;

    Node document() {
        if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) i_ = 3; // a byte-order mark
        Node root = value(0);
        skip();
        if (i_ < s_.size()) fail("the end of the file after the value");
        return root;
    }

private:
    [[noreturn]] void fail(const std::string& expected) const {
        throw ConfigError(lineOf(s_, i_), "expected " + expected);
    }

    void skip() {
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                ++i_;
            } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
                sawComment = true;
                i_ = s_.find('\n', i_);
                if (i_ == npos) i_ = s_.size();
            } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
                sawComment = true;
                size_t e = s_.find("*/", i_ + 2);
                if (e == npos) fail("the end of a /* comment");
                i_ = e + 2;
            } else {
                return;
            }
        }
    }

    // A string's text, its quotes included; its value is read by the JSON
    // library, which knows every escape.
    Doc string() {
        size_t start = i_++;
        while (i_ < s_.size() && s_[i_] != '"') {
            if (static_cast<unsigned char>(s_[i_]) < 0x20) fail("a closing quote");
            i_ += s_[i_] == '\\' ? 2 : 1;
        }
        if (i_ >= s_.size()) fail("a closing quote");
        ++i_;
        try {
            return Doc::parse(s_.substr(start, i_ - start));
        } catch (const Doc::exception&) {
            i_ = start;
            fail("a valid string");
        }
    }

    Node value(int depth) {
        skip();
        if (i_ >= s_.size()) fail("a value");
        if (depth > kMaxDepth) fail("less nesting");
        Node n;
        n.start = i_;
        char c = s_[i_];
        if (c == '{' || c == '[') {
            const bool object = c == '{';
            const char close = object ? '}' : ']';
            n.value = object ? Doc::object() : Doc::array();
            ++i_;
            for (;;) {
                skip();
                if (i_ < s_.size() && s_[i_] == close) break; // empty, or a trailing comma
                Element el;
                el.start = i_;
                if (object) {
                    if (i_ >= s_.size() || s_[i_] != '"')
                        fail(std::string("a member name in quotes or '") + close + "'");
                    el.key = string().get<std::string>();
                    if (n.value.contains(el.key)) {
                        i_ = el.start;
                        fail("each member once ('" + el.key + "' is there twice)");
                    }
                    skip();
                    if (i_ >= s_.size() || s_[i_] != ':') fail("':'");
                    ++i_;
                }
                el.node = value(depth + 1);
                if (object)
                    n.value[el.key] = el.node.value;
                else
                    n.value.push_back(el.node.value);
                skip();
                const bool more = i_ < s_.size() && s_[i_] == ',';
                if (more) el.comma = i_++;
                n.elements.push_back(std::move(el));
                if (!more) {
                    if (i_ >= s_.size() || s_[i_] != close)
                        fail(std::string("',' or '") + close + "'");
                    break;
                }
            }
            ++i_;
        } else if (c == '"') {
            n.value = string();
        } else {
            size_t e = i_;
            while (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) ||
                                     s_[e] == '-' || s_[e] == '+' || s_[e] == '.'))
                ++e;
            if (e == i_) fail("a value");
            try {
                n.value = Doc::parse(s_.substr(i_, e - i_));
            } catch (const Doc::exception&) {
                fail("a value");
            }
            i_ = e;
        }
        n.end = i_;
        return n;
    }

    const std::string& s_;
    size_t i_ = 0;
};

// One change to the text: [start, end) replaced by text. seq orders the
// insertions made at one place.
struct Splice {
    size_t start, end;
    std::string text;
    int seq;
};

class Editor {
public:
    explicit Editor(const std::string& s)
        : s_(s) {
        // The file's indentation unit: the first indented line's.
        for (size_t at = 0; at < s_.size();) {
            size_t eol = s_.find('\n', at);
            if (eol == npos) eol = s_.size();
            size_t ws = at;
            while (ws < eol && (s_[ws] == ' ' || s_[ws] == '\t'))
                ++ws;
            if (ws > at && ws < eol) {
                unit_ = s_.substr(at, ws - at);
                break;
            }
            at = eol + 1;
        }
        multiline_ = s_.find('\n') != npos && s_.find('\n') + 1 < s_.size();
    }

    bool diff(const Node& n, const Doc& after) {
        if (n.value == after) return true;
        if (n.value.is_object() && after.is_object()) return object(n, after);
        if (n.value.is_array() && after.is_array()) return array(n, after);
        add(n.start, n.end, render(after, lineIndent(n.start)));
        return true;
    }

    std::optional<std::string> apply() {
        std::sort(splices_.begin(), splices_.end(), [](const Splice& a, const Splice& b) {
            if (a.start != b.start) return a.start < b.start;
            if (a.end != b.end) return a.end < b.end;
            return a.seq < b.seq;
        });
        std::string out;
        size_t at = 0;
        for (auto& sp : splices_) {
            if (sp.start < at) return std::nullopt; // overlapping: not a shape handled here
            out.append(s_, at, sp.start - at);
            out += sp.text;
            at = sp.end;
        }
        out.append(s_, at, npos);
        return out;
    }

private:
    void add(size_t start, size_t end, std::string text) {
        splices_.push_back({start, end, std::move(text), seq_++});
    }

    std::string lineIndent(size_t at) const {
        size_t ls = s_.rfind('\n', at == 0 ? 0 : at - 1);
        ls = (ls == npos || at == 0) ? 0 : ls + 1;
        size_t e = ls;
        while (e < s_.size() && (s_[e] == ' ' || s_[e] == '\t'))
            ++e;
        return s_.substr(ls, e - ls);
    }

    bool firstOnLine(size_t at) const {
        while (at > 0 && (s_[at - 1] == ' ' || s_[at - 1] == '\t'))
            --at;
        return at == 0 || s_[at - 1] == '\n';
    }

    // A value rendered at an indentation, in the file's unit.
    std::string render(const Doc& v, const std::string& indent, bool inlineStyle = false) const {
        if (inlineStyle || (!v.is_object() && !v.is_array())) return v.dump();
        const bool tabs = !unit_.empty() && unit_[0] == '\t';
        std::string text = v.dump(static_cast<int>(unit_.size()), tabs ? '\t' : ' ');
        std::string out;
        for (char c : text) {
            out += c;
            if (c == '\n') out += indent;
        }
        return out;
    }

    // [start, end) widened to whole lines when nothing else is on them,
    // else over the blanks that follow on the same line.
    std::pair<size_t, size_t> widen(size_t start, size_t end) const {
        size_t ls = start;
        while (ls > 0 && (s_[ls - 1] == ' ' || s_[ls - 1] == '\t'))
            --ls;
        const bool atLineStart = ls == 0 || s_[ls - 1] == '\n';
        size_t le = end;
        while (le < s_.size() && (s_[le] == ' ' || s_[le] == '\t' || s_[le] == '\r'))
            ++le;
        const bool atLineEnd = le == s_.size() || s_[le] == '\n';
        if (atLineStart && atLineEnd) return {ls, le < s_.size() ? le + 1 : le};
        if (atLineEnd) return {start, end};
        return {start, le};
    }

    // Where text following element `k` goes: past its comma and anything
    // else on its line (a comment stays with the element it was beside).
    size_t pastLine(const Element& k, size_t close) const {
        size_t p = k.comma != npos ? k.comma + 1 : k.node.end;
        while (p < close) {
            char c = s_[p];
            if (c == ' ' || c == '\t' || c == '\r') {
                ++p;
            } else if (c == '/' && p + 1 < s_.size() && s_[p + 1] == '*') {
                size_t e = s_.find("*/", p + 2);
                if (e == npos || s_.find('\n', p) < e) break;
                p = e + 2;
            } else if (c == '/' && p + 1 < s_.size() && s_[p + 1] == '/') {
                p = s_.find('\n', p);
                break;
            } else {
                break;
            }
        }
        return std::min(p, close);
    }

    // Elements taken out (kept[i] false) and new ones appended, commas and
    // lines kept right.
    void container(const Node& n, const std::vector<bool>& kept,
                   const std::vector<std::string>& added, bool inlineStyle) {
        const size_t close = n.end - 1;
        // Written with a comma after the last element too: kept that way.
        const bool trailing = !n.elements.empty() && n.elements.back().comma != npos;
        int last = -1;
        for (size_t i = 0; i < kept.size(); ++i)
            if (kept[i]) last = static_cast<int>(i);
        for (size_t i = 0; i < kept.size(); ++i) {
            if (kept[i]) continue;
            const Element& el = n.elements[i];
            size_t start = el.start, end = el.comma != npos ? el.comma + 1 : el.node.end;
            if (static_cast<int>(i) > last && last >= 0 && added.empty() && !trailing &&
                i == static_cast<size_t>(last) + 1) {
                // The first of a trailing run: the kept one before it loses
                // its comma (with it when only blanks lie between).
                size_t comma = n.elements[last].comma;
                bool blanks = true;
                for (size_t p = comma + 1; p < start; ++p)
                    blanks = blanks && (s_[p] == ' ' || s_[p] == '\t');
                if (blanks) {
                    add(comma, end, ""); // what follows on the line stays
                    continue;
                }
                add(comma, comma + 1, "");
            }
            auto [a, b] = widen(start, end);
            add(a, b, "");
        }
        if (added.empty()) return;
        std::string text;
        if (last >= 0) {
            const Element& k = n.elements[last];
            if (k.comma == npos) add(k.node.end, k.node.end, ",");
            if (inlineStyle) {
                for (size_t i = 0; i < added.size(); ++i)
                    text += (i ? ", " : " ") + added[i];
                const size_t at = k.comma != npos ? k.comma + 1 : k.node.end;
                add(at, at, text);
                return;
            }
            const std::string indent = childIndent(n);
            for (size_t i = 0; i < added.size(); ++i)
                text += std::string(i && !trailing ? "," : "") + "\n" + indent + added[i] +
                        (trailing ? "," : "");
            const size_t at = pastLine(k, close);
            add(at, at, text);
            return;
        }
        if (inlineStyle) {
            for (size_t i = 0; i < added.size(); ++i)
                text += (i ? ", " : "") + added[i];
            add(n.start + 1, n.start + 1, text);
            return;
        }
        const std::string outer = lineIndent(n.start), indent = childIndent(n);
        for (size_t i = 0; i < added.size(); ++i)
            text += std::string(i ? "," : "") + "\n" + indent + added[i];
        if (!firstOnLine(close)) text += "\n" + outer;
        add(n.start + 1, n.start + 1, text);
    }

    // The indentation of the container's elements: as its first element on
    // a line of its own has it, else one unit past the container's line.
    std::string childIndent(const Node& n) const {
        for (auto& el : n.elements)
            if (firstOnLine(el.start)) return lineIndent(el.start);
        return lineIndent(n.start) + unit_;
    }

    // Written on one line (and not empty in a file laid out on many).
    bool inlineStyle(const Node& n) const {
        const bool oneLine = s_.find('\n', n.start) >= n.end;
        return oneLine && (!n.elements.empty() || !multiline_);
    }

    bool object(const Node& n, const Doc& after) {
        std::vector<bool> kept(n.elements.size());
        for (size_t i = 0; i < n.elements.size(); ++i) {
            const Element& el = n.elements[i];
            kept[i] = after.contains(el.key);
            if (kept[i] && !diff(el.node, after[el.key])) return false;
        }
        const bool inl = inlineStyle(n);
        const std::string indent = childIndent(n);
        std::vector<std::string> added;
        for (auto& [key, value] : after.items())
            if (!n.value.contains(key))
                added.push_back(Doc(key).dump() + ": " + render(value, indent, inl));
        container(n, kept, added, inl);
        return true;
    }

    bool array(const Node& n, const Doc& after) {
        const size_t B = n.elements.size(), A = after.size();
        if (B * A > 250000) return false;
        // The longest common subsequence of equal items: those stay as
        // they are; between two of them, items are paired in order and
        // edited in place; what is left over is taken out or appended.
        std::vector<std::vector<unsigned>> lcs(B + 1, std::vector<unsigned>(A + 1, 0));
        for (size_t i = B; i-- > 0;)
            for (size_t j = A; j-- > 0;)
                lcs[i][j] = n.elements[i].node.value == after[j]
                                ? lcs[i + 1][j + 1] + 1
                                : std::max(lcs[i + 1][j], lcs[i][j + 1]);
        std::vector<std::pair<size_t, size_t>> same;
        for (size_t i = 0, j = 0; i < B && j < A;) {
            if (n.elements[i].node.value == after[j]) {
                same.push_back({i, j});
                ++i, ++j;
            } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
                ++i;
            } else {
                ++j;
            }
        }
        same.push_back({B, A});
        std::vector<bool> kept(B, false);
        std::vector<std::string> added;
        const bool inl = inlineStyle(n);
        const std::string indent = childIndent(n);
        size_t bi = 0, aj = 0;
        for (auto [si, sj] : same) {
            while (bi < si && aj < sj) {
                kept[bi] = true;
                if (!diff(n.elements[bi].node, after[aj])) return false;
                ++bi, ++aj;
            }
            bi = si;                             // the rest before the match: taken out
            if (aj < sj && sj < A) return false; // an insertion before a kept item
            for (; aj < sj; ++aj)
                added.push_back(render(after[aj], indent, inl));
            if (si < B) kept[si] = true;
            ++bi, ++aj;
        }
        container(n, kept, added, inl);
        return true;
    }

    const std::string& s_;
    std::string unit_ = "  ";
    bool multiline_ = false;
    std::vector<Splice> splices_;
    int seq_ = 0;
};

nlohmann::json unordered(const Doc& d) {
    return nlohmann::json::parse(d.dump());
}

} // namespace

Doc parse(const std::string& text) {
    return Parser(text).document().value;
}

bool hasComments(const std::string& text) {
    Parser p(text);
    p.document();
    return p.sawComment;
}

std::optional<std::string> edit(const std::string& text, const Doc& after) {
    Node root = Parser(text).document();
    Editor ed(text);
    if (!ed.diff(root, after)) return std::nullopt;
    auto out = ed.apply();
    if (!out) return std::nullopt;
    // The edit must say what was meant: parsed again, it holds `after`.
    try {
        if (unordered(parse(*out)) != unordered(after)) return std::nullopt;
    } catch (const ConfigError&) {
        return std::nullopt;
    }
    return out;
}

} // namespace engram::cli::jsonc
