// extractSymbols, name resolution, position lookup and open documents.
#include "syntax/Symbols.h"
#include "syntax/SyntaxInternal.h"

#include <algorithm>
#include <cstdlib>

namespace engram::syntax {

namespace {

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using detail::hiddenSpans;
using detail::parseText;
using detail::pointAt;
using detail::TreePtr;
using detail::unparsedOf;

// Whether an edit may change what the parser is not shown (C and C++):
// unless it only types or deletes lower-case letters, digits, `_` and blanks
// within a word that holds no capital (the only words that can be macros
// hidden from the parser), the spans are found again.
bool mayChangeUnparsed(std::string_view removed, std::string_view inserted, std::string_view text,
                       uint32_t start, uint32_t end) {
    auto plain = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ' ' ||
               c == '\t';
    };
    for (std::string_view part : {removed, inserted})
        for (char c : part)
            if (!plain(c)) return true;
    auto word = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    };
    size_t b = start, en = end;
    while (b > 0 && word(text[b - 1]))
        --b;
    while (en < text.size() && word(text[en]))
        ++en;
    for (size_t i = b; i < en; ++i)
        if (text[i] >= 'A' && text[i] <= 'Z') return true;
    return false;
}

TSPoint advance(TSPoint p, std::string_view text) {
    for (char c : text) {
        if (c == '\n') {
            ++p.row;
            p.column = 0;
        } else {
            ++p.column;
        }
    }
    return p;
}

} // namespace

namespace detail {

namespace {

bool identChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

// The end of a C++ operator name starting at q[i] ("operator<<", "operator()",
// "operator new[]", "operator\"\"_km"), or i when q[i] starts no operator name.
size_t operatorEnd(std::string_view q, size_t i) {
    constexpr std::string_view kw = "operator";
    if (q.compare(i, kw.size(), kw) != 0) return i;
    if (i > 0 && identChar(q[i - 1])) return i;
    size_t j = i + kw.size();
    if (j < q.size() && identChar(q[j])) return i; // "operatorFoo" is a plain name
    while (j < q.size() && q[j] == ' ')
        ++j;
    if (q.compare(j, 2, "()") == 0 || q.compare(j, 2, "[]") == 0) return j + 2;
    if (q.compare(j, 2, "\"\"") == 0) {
        j += 2;
        while (j < q.size() && identChar(q[j]))
            ++j;
        return j;
    }
    constexpr std::string_view symbolic = "+-*/%^&|~!=<>,";
    size_t k = j;
    while (k < q.size() && symbolic.find(q[k]) != std::string_view::npos)
        ++k;
    if (k > j) return k;
    return j; // a conversion or allocation operator: the words that follow are its name
}

} // namespace

// Separators count only outside brackets and quotes, so a component may hold
// a template argument list ("Vec<a::b>"), a Rust qualified path
// ("<P as Display>"), a call naming a callback ("it(\"a.b\")") or an
// operator name ("operator->").
std::vector<std::string_view> components(std::string_view q) {
    std::vector<std::string_view> out;
    size_t start = 0;
    int depth = 0;
    auto push = [&](size_t end) {
        std::string_view c = q.substr(start, end - start);
        // Go receivers: "(*Parser)" -> "Parser".
        if (c.size() >= 2 && c.front() == '(' && c.back() == ')' &&
            c.find('(', 1) == std::string_view::npos) {
            c = c.substr(1, c.size() - 2);
            while (!c.empty() && (c.front() == '*' || c.front() == '&'))
                c.remove_prefix(1);
        }
        if (!c.empty()) out.push_back(c);
    };
    size_t i = 0;
    while (i < q.size()) {
        char ch = q[i];
        if (ch == '"') { // a quoted string, with backslash escapes
            for (++i; i < q.size() && q[i] != '"'; ++i)
                if (q[i] == '\\') ++i;
            ++i;
            continue;
        }
        if (size_t op = operatorEnd(q, i); op != i) {
            i = op;
            continue;
        }
        if (ch == '(' || ch == '[' || ch == '{') {
            ++depth;
        } else if (ch == ')' || ch == ']' || ch == '}') {
            depth = std::max(0, depth - 1);
        } else if (ch == '<') {
            // A template or generic argument list, or a Rust `<T as Trait>`.
            if (i == start || identChar(q[i - 1]) || q[i - 1] == '>' || q[i - 1] == ':') ++depth;
        } else if (ch == '>' && depth > 0 && !(i > 0 && q[i - 1] == '-')) {
            --depth;
        } else if (depth == 0) {
            size_t sepLen = 0;
            if (ch == '.')
                sepLen = 1;
            else if (q.compare(i, 2, "::") == 0 || q.compare(i, 2, "->") == 0)
                sepLen = 2;
            if (sepLen) {
                push(i);
                i += sepLen;
                start = i;
                continue;
            }
        }
        ++i;
    }
    push(q.size());
    return out;
}

void numberTwins(std::vector<Symbol>& symbols) {
    // Sorted by (qualified name, kind, position): each run is one name's
    // definitions in document order. Indices, not copies: this runs after
    // every extraction of an open document.
    std::vector<uint32_t> order(symbols.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const Symbol &x = symbols[a], &y = symbols[b];
        if (int c = x.qualified.compare(y.qualified)) return c < 0;
        if (int c = x.kind.compare(y.kind)) return c < 0;
        return a < b;
    });
    for (size_t run = 0; run < order.size();) {
        size_t end = run + 1;
        while (end < order.size() &&
               symbols[order[end]].qualified == symbols[order[run]].qualified &&
               symbols[order[end]].kind == symbols[order[run]].kind)
            ++end;
        for (size_t k = run; k < end; ++k) {
            Symbol& s = symbols[order[k]];
            s.ordinal = uint32_t(k - run + 1);
            s.twins = uint32_t(end - run);
            s.copies = 1;
            if (s.twins > 1) {
                s.copies = 0;
                for (size_t o = run; o < end; ++o)
                    s.copies += symbols[order[o]].hash == s.hash;
            }
        }
        run = end;
    }
}

} // namespace detail

std::vector<Symbol> extractSymbols(std::string_view language, std::string_view source,
                                   std::string_view formerName, Spans* unreadable, int rules) {
    const detail::LangSpec* spec = detail::langSpec(language);
    if (!spec || source.size() > UINT32_MAX) return {};
    thread_local ParserPtr parser(ts_parser_new());
    if (!ts_parser_set_language(parser.get(), spec->ts)) return {};
    detail::Unparsed unparsed = unparsedOf(spec, source);
    TreePtr tree = parseText(parser.get(), nullptr, source, hiddenSpans(unparsed));
    if (auto x = detail::recovered(spec, parser.get(), tree.get(), source, formerName, rules)) {
        if (unreadable) *unreadable = std::move(x->unreadable);
        return std::move(x->symbols);
    }
    if (unreadable && tree)
        *unreadable = detail::errorSpans(ts_tree_root_node(tree.get()), 0, uint32_t(source.size()));
    // A parse that gave up (Parse.cpp, its budget): nothing in the file can
    // be read, so no anchor in it is judged gone.
    if (unreadable && !tree) *unreadable = {{0, uint32_t(source.size())}};
    return detail::extractFromTree(*spec, tree.get(), source, nullptr, nullptr, &unparsed,
                                   formerName)
        .symbols;
}

bool extractsAsToday(std::string_view language, int rules) {
    if (rules == kDigestRules) return true;
    if (rules < kKeptRules || rules > kDigestRules) return false;
    const detail::LangSpec* spec = detail::langSpec(language);
    if (!spec) return true; // no grammar: no symbols under any version
    // Each version from `rules` + 1 on, and the languages it changed.
    for (int v = rules + 1; v <= kDigestRules; ++v)
        switch (v) {
        case 2:
            if (spec->lang == detail::Lang::TypeScript || spec->lang == detail::Lang::Tsx)
                return false;
            break;
        default:
            return false; // a version not described here: assume it changed everything
        }
    return true;
}

std::string writtenName(const Symbol& s) {
    return s.qualified + s.signature;
}

std::string_view ownName(std::string_view qualified) {
    auto parts = detail::components(qualified);
    return parts.empty() ? qualified : parts.back();
}

namespace {

// A name without the blanks around it: the query is trimmed, and a
// JavaScript key may keep blanks inside its quotes (`'turn ': () => 1`).
std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string withoutSpace(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
    return out;
}

// A query's trailing parameter list and qualifiers ("toJson(Object,
// Class<?>)" -> "(Object,Class<?>)", "at(size_t) const"), split off the
// query. A callback's name ('it("parses")') is not a parameter list: it
// holds a string.
std::string splitSignature(std::string_view& query) {
    auto parts = detail::components(query);
    if (parts.empty()) return {};
    std::string_view last = parts.back();
    if (last.find('"') != std::string_view::npos) return {};
    // "operator()" is a name; its parameter list comes after it.
    size_t from = last.starts_with("operator()") ? 10 : 0;
    size_t open = last.find('(', from);
    if (open == std::string_view::npos || open == 0) return {};
    size_t at = size_t(last.data() - query.data()) + open;
    std::string sig = withoutSpace(query.substr(at)); // "(std::size_t) const" too
    query = query.substr(0, at);
    return sig;
}

// A type or trait named by its path, without generic arguments or path:
// "fmt::Display<T>" -> "Display".
std::string_view bareName(std::string_view t) {
    if (auto lt = t.find('<'); lt != std::string_view::npos && lt > 0) t = t.substr(0, lt);
    if (auto sep = t.rfind("::"); sep != std::string_view::npos) t = t.substr(sep + 2);
    return t;
}

// One component of a user's query against one of a symbol's: equal, or a
// Rust `<P as fmt::Display>` named by its type or its trait (with or
// without their paths and generic arguments).
bool componentMatches(std::string_view want, std::string_view have) {
    if (want == have || want == trimmed(have)) return true;
    if (have.size() < 2 || have.front() != '<' || have.back() != '>') return false;
    std::string_view inner = have.substr(1, have.size() - 2);
    size_t as = inner.find(" as ");
    if (as == std::string_view::npos) return false;
    for (std::string_view part : {inner.substr(0, as), inner.substr(as + 4)})
        if (want == part || want == bareName(part)) return true;
    return false;
}

} // namespace

std::vector<size_t> resolveSymbol(const std::vector<Symbol>& symbols, std::string_view query) {
    std::vector<size_t> out;
    auto exact = [&](std::string_view q) {
        for (size_t i = 0; i < symbols.size(); ++i)
            if (symbols[i].qualified == q || writtenName(symbols[i]) == q) out.push_back(i);
        return !out.empty();
    };
    // Every definition answers to its written name as it is, blanks and all
    // (`o.turn ` from `{ 'turn ': ... }`, beside an `o.turn`); a query
    // with blanks around it otherwise means the name inside them.
    if (exact(query)) return out;
    query = trimmed(query);
    if (exact(query)) return out;
    std::string_view name = query;
    std::string signature = splitSignature(name);
    auto want = detail::components(name);
    if (want.empty()) return out;
    std::vector<size_t> suffix;
    for (size_t i = 0; i < symbols.size(); ++i) {
        if (!signature.empty() && withoutSpace(symbols[i].signature) != signature) continue;
        auto have = detail::components(symbols[i].qualified);
        if (have.size() < want.size()) continue;
        if (!std::equal(want.begin(), want.end(), have.end() - ptrdiff_t(want.size()),
                        componentMatches))
            continue;
        (have.size() == want.size() ? out : suffix).push_back(i);
    }
    return out.empty() ? suffix : out;
}

namespace {

bool before(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) {
    return l1 < l2 || (l1 == l2 && c1 < c2);
}

} // namespace

std::optional<size_t> innermostAt(const std::vector<Symbol>& symbols, uint32_t line,
                                  uint32_t column) {
    std::optional<size_t> best;
    for (size_t i = 0; i < symbols.size(); ++i) {
        const Symbol& s = symbols[i];
        if (before(line, column, s.startLine, s.startColumn)) continue;
        if (!before(line, column, s.endLine, s.endColumn)) continue;
        if (!best || s.startByte > symbols[*best].startByte ||
            (s.startByte == symbols[*best].startByte && s.endByte <= symbols[*best].endByte))
            best = i;
    }
    return best;
}

std::optional<size_t> definitionAtLine(const std::vector<Symbol>& symbols, uint32_t line) {
    std::optional<size_t> best, named;
    auto inner = [&](std::optional<size_t>& cur, size_t i) {
        const Symbol& s = symbols[i];
        if (!cur || s.startByte > symbols[*cur].startByte ||
            (s.startByte == symbols[*cur].startByte && s.endByte <= symbols[*cur].endByte))
            cur = i;
    };
    for (size_t i = 0; i < symbols.size(); ++i) {
        const Symbol& s = symbols[i];
        // A node that ends with its line's newline ends at column 0 below.
        uint32_t last = s.endColumn == 0 && s.endLine > s.startLine ? s.endLine - 1 : s.endLine;
        if (line < s.startLine || line > last) continue;
        inner(best, i);
        if (s.nameLine == line) inner(named, i);
    }
    return named ? named : best;
}

struct Document::Impl {
    std::string language;
    std::string text;
    const detail::LangSpec* spec = nullptr;
    ParserPtr parser;
    TreePtr tree;
    // The last extraction. Between extractions, edits keep its byte offsets
    // in step with the text and clear `clean` on every symbol they touch, so
    // the next extraction walks only what changed (see extractFromTree).
    detail::Extraction last;
    bool stale = true;
    detail::Unparsed unparsed; // what the parser was not shown

    void fullParse() {
        tree.reset();
        stale = true;
        last = {};
        if (!parser) return;
        unparsed = unparsedOf(spec, text);
        tree = parseText(parser.get(), nullptr, text, hiddenSpans(unparsed));
    }

    // An edit of [start, oldEnd) into [start, newEnd): symbols wholly before
    // it stay, those wholly after it move, the rest (touching included) are
    // no longer clean.
    void shift(uint32_t start, uint32_t oldEnd, uint32_t newEnd) {
        for (size_t i = 0; i < last.symbols.size(); ++i) {
            Symbol& s = last.symbols[i];
            detail::SymbolRecord& r = last.records[i];
            if (!r.clean || s.endByte < start) continue;
            if (s.startByte > oldEnd) {
                s.startByte = s.startByte - oldEnd + newEnd;
                s.endByte = s.endByte - oldEnd + newEnd;
            } else {
                r.clean = false;
            }
        }
    }

    // Ranges the re-parse structured differently (in the new tree's
    // offsets). Defensive: a definition outside every edit keeps its text,
    // and one that now parses differently (swallowed by an opened string)
    // normally changes extent or vanishes, which the take-over check sees;
    // but the parser's word on what changed costs little and covers a
    // same-extent re-parse too.
    void dirty(const TSTree* before, const TSTree* after) {
        uint32_t count = 0;
        TSRange* ranges = ts_tree_get_changed_ranges(before, after, &count);
        for (uint32_t k = 0; k < count; ++k) {
            for (size_t i = 0; i < last.symbols.size(); ++i) {
                const Symbol& s = last.symbols[i];
                if (s.startByte <= ranges[k].end_byte && s.endByte >= ranges[k].start_byte)
                    last.records[i].clean = false;
            }
        }
        std::free(ranges);
    }
};

Document::Document(std::string language, std::string text)
    : impl_(std::make_unique<Impl>()) {
    impl_->language = std::move(language);
    impl_->text = std::move(text);
    impl_->spec = detail::langSpec(impl_->language);
    if (impl_->spec) {
        impl_->parser.reset(ts_parser_new());
        if (!ts_parser_set_language(impl_->parser.get(), impl_->spec->ts)) impl_->parser.reset();
    }
    impl_->fullParse();
}

Document::~Document() = default;
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;

void Document::edit(uint32_t startByte, uint32_t oldEndByte, std::string_view newText) {
    Impl& d = *impl_;
    uint32_t size = uint32_t(d.text.size());
    startByte = std::min(startByte, size);
    oldEndByte = std::clamp(oldEndByte, startByte, size);
    TSInputEdit e{};
    e.start_byte = startByte;
    e.old_end_byte = oldEndByte;
    e.new_end_byte = startByte + uint32_t(newText.size());
    e.start_point = pointAt(d.text, startByte);
    e.old_end_point = pointAt(d.text, oldEndByte);
    e.new_end_point = advance(e.start_point, newText);
    std::string removed = d.text.substr(startByte, oldEndByte - startByte);
    d.text.replace(startByte, oldEndByte - startByte, newText);
    d.stale = true;
    if (!d.parser) return;
    if (!d.tree) {
        d.fullParse();
        return;
    }
    // What the parser is not shown moves with the edit; an edit that hides or
    // shows text (a macro that now opens a declaration or no longer does)
    // changes what the old tree was parsed from: parse afresh.
    if (detail::cFamily(d.spec)) {
        auto move = [&](Spans& spans) {
            for (auto& [b, en] : spans)
                if (b >= e.old_end_byte) {
                    b = b - e.old_end_byte + e.new_end_byte;
                    en = en - e.old_end_byte + e.new_end_byte;
                }
        };
        if (mayChangeUnparsed(removed, newText, d.text, e.start_byte, e.new_end_byte)) {
            detail::Unparsed unparsed = unparsedOf(d.spec, d.text);
            Spans before = hiddenSpans(d.unparsed);
            move(before);
            if (before != hiddenSpans(unparsed)) {
                d.fullParse();
                return;
            }
            d.unparsed = std::move(unparsed);
        } else {
            move(d.unparsed.macros);
            move(d.unparsed.comments);
        }
    }
    d.shift(e.start_byte, e.old_end_byte, e.new_end_byte);
    ts_tree_edit(d.tree.get(), &e);
    TreePtr next = parseText(d.parser.get(), d.tree.get(), d.text, hiddenSpans(d.unparsed));
    if (!next) {
        d.fullParse();
        return;
    }
    d.dirty(d.tree.get(), next.get());
    d.tree = std::move(next);
}

void Document::reset(std::string text) {
    impl_->text = std::move(text);
    impl_->fullParse();
}

const std::string& Document::language() const {
    return impl_->language;
}
const std::string& Document::text() const {
    return impl_->text;
}

size_t Document::reusedSymbols() const {
    size_t n = 0;
    for (auto& r : impl_->last.records)
        n += r.known;
    return n;
}

std::vector<Symbol> Document::walkAfresh() const {
    const Impl& d = *impl_;
    if (!d.spec || !d.tree) return {};
    if (auto x = detail::recovered(d.spec, d.parser.get(), d.tree.get(), d.text)) return x->symbols;
    return detail::extractFromTree(*d.spec, d.tree.get(), d.text, nullptr, nullptr, &d.unparsed)
        .symbols;
}

const Spans& Document::unreadable() {
    symbols();
    return impl_->last.unreadable;
}

const std::vector<Symbol>& Document::symbols() {
    Impl& d = *impl_;
    if (d.stale) {
        if (d.spec && d.tree) {
            if (auto x = detail::recovered(d.spec, d.parser.get(), d.tree.get(), d.text)) {
                d.last = std::move(*x); // not from this tree: never taken over (remap)
            } else {
                d.last = detail::extractFromTree(*d.spec, d.tree.get(), d.text, &d.last, nullptr,
                                                 &d.unparsed);
                d.last.unreadable =
                    detail::errorSpans(ts_tree_root_node(d.tree.get()), 0, uint32_t(d.text.size()));
            }
        } else {
            d.last = {};
        }
        d.stale = false;
    }
    return d.last.symbols;
}

} // namespace engram::syntax
