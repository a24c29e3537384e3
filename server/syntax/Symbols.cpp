// extractSymbols, name resolution, position lookup and open documents.
#include "syntax/Symbols.h"
#include "syntax/SyntaxInternal.h"

#include <algorithm>
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

std::vector<Symbol> extractSymbols(std::string_view language, std::string_view source) {
    const detail::LangSpec* spec = detail::langSpec(language);
    if (!spec || source.size() > UINT32_MAX) return {};
    thread_local ParserPtr parser(ts_parser_new());
    if (!ts_parser_set_language(parser.get(), spec->ts)) return {};
    TreePtr tree = parse(parser.get(), nullptr, source);
    return detail::extractFromTree(*spec, tree.get(), source);
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
    auto want = components(query);
    if (want.empty()) return out;
    std::vector<size_t> suffix;
    for (size_t i = 0; i < symbols.size(); ++i) {
        auto have = components(symbols[i].qualified);
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
    std::vector<Symbol> symbols;
    bool stale = true;

    void fullParse() {
        tree.reset();
        stale = true;
        if (!parser) return;
        tree = parse(parser.get(), nullptr, text);
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
    ts_tree_edit(d.tree.get(), &e);
    TreePtr next = parse(d.parser.get(), d.tree.get(), d.text);
    if (next)
        d.tree = std::move(next);
    else
        d.fullParse();
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

const std::vector<Symbol>& Document::symbols() {
    Impl& d = *impl_;
    if (d.stale) {
        d.symbols = d.spec && d.tree ? detail::extractFromTree(*d.spec, d.tree.get(), d.text)
                                     : std::vector<Symbol>{};
        d.stale = false;
    }
    return d.symbols;
}

} // namespace engram::syntax
