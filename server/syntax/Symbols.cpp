// extractSymbols, name resolution, position lookup and open documents.
#include "syntax/Symbols.h"
#include "syntax/SyntaxInternal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace engram::syntax {

namespace {

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

TreePtr parse(TSParser* parser, const TSTree* old, std::string_view src) {
    return TreePtr(ts_parser_parse_string(parser, old, src.data(), uint32_t(src.size())));
}

TSPoint pointAt(std::string_view text, uint32_t offset) {
    TSPoint p{0, 0};
    size_t lineStart = 0;
    const char* base = text.data();
    const char* end = base + offset;
    for (const char* c = base; c < end;) {
        const void* nl = std::memchr(c, '\n', size_t(end - c));
        if (!nl) break;
        ++p.row;
        c = static_cast<const char*>(nl) + 1;
        lineStart = size_t(c - base);
    }
    p.column = uint32_t(offset - lineStart);
    return p;
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

// "(*Parser).parse", "Parser::parse", "Parser.parse" -> {"Parser", "parse"}.
std::vector<std::string_view> components(std::string_view q) {
    std::vector<std::string_view> out;
    size_t i = 0, start = 0;
    auto push = [&](size_t end) {
        std::string_view c = q.substr(start, end - start);
        if (c.size() >= 2 && c.front() == '(' && c.back() == ')' &&
            c.find('(', 1) == std::string_view::npos) {
            c = c.substr(1, c.size() - 2);
            while (!c.empty() && (c.front() == '*' || c.front() == '&'))
                c.remove_prefix(1);
        }
        if (!c.empty()) out.push_back(c);
    };
    while (i < q.size()) {
        size_t sepLen = 0;
        if (q[i] == '.')
            sepLen = 1;
        else if (q.compare(i, 2, "::") == 0 || q.compare(i, 2, "->") == 0)
            sepLen = 2;
        if (sepLen) {
            push(i);
            i += sepLen;
            start = i;
        } else {
            ++i;
        }
    }
    push(q.size());
    return out;
}

} // namespace detail

std::vector<Symbol> extractSymbols(std::string_view language, std::string_view source) {
    const detail::LangSpec* spec = detail::langSpec(language);
    if (!spec || source.size() > UINT32_MAX) return {};
    thread_local ParserPtr parser(ts_parser_new());
    if (!ts_parser_set_language(parser.get(), spec->ts)) return {};
    TreePtr tree = parse(parser.get(), nullptr, source);
    return detail::extractFromTree(*spec, tree.get(), source).symbols;
}

std::vector<size_t> resolveSymbol(const std::vector<Symbol>& symbols, std::string_view query) {
    while (!query.empty() && (query.front() == ' ' || query.front() == '\t'))
        query.remove_prefix(1);
    while (!query.empty() && (query.back() == ' ' || query.back() == '\t'))
        query.remove_suffix(1);
    std::vector<size_t> out;
    for (size_t i = 0; i < symbols.size(); ++i)
        if (symbols[i].qualified == query) out.push_back(i);
    if (!out.empty()) return out;
    auto want = detail::components(query);
    if (want.empty()) return out;
    std::vector<size_t> suffix;
    for (size_t i = 0; i < symbols.size(); ++i) {
        auto have = detail::components(symbols[i].qualified);
        if (have.size() < want.size()) continue;
        if (!std::equal(want.begin(), want.end(), have.end() - ptrdiff_t(want.size()))) continue;
        (have.size() == want.size() ? out : suffix).push_back(i);
    }
    return out.empty() ? suffix : out;
}

std::optional<size_t> innermostAt(const std::vector<Symbol>& symbols, uint32_t line,
                                  uint32_t column) {
    std::optional<size_t> best;
    auto before = [](uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) {
        return l1 < l2 || (l1 == l2 && c1 < c2);
    };
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

    void fullParse() {
        tree.reset();
        stale = true;
        last = {};
        if (!parser) return;
        tree = parse(parser.get(), nullptr, text);
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
    d.text.replace(startByte, oldEndByte - startByte, newText);
    d.stale = true;
    if (!d.parser) return;
    if (!d.tree) {
        d.fullParse();
        return;
    }
    d.shift(e.start_byte, e.old_end_byte, e.new_end_byte);
    ts_tree_edit(d.tree.get(), &e);
    TreePtr next = parse(d.parser.get(), d.tree.get(), d.text);
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
    return detail::extractFromTree(*d.spec, d.tree.get(), d.text).symbols;
}

const std::vector<Symbol>& Document::symbols() {
    Impl& d = *impl_;
    if (d.stale) {
        if (d.spec && d.tree)
            d.last = detail::extractFromTree(*d.spec, d.tree.get(), d.text, &d.last);
        else
            d.last = {};
        d.stale = false;
    }
    return d.last.symbols;
}

} // namespace engram::syntax
