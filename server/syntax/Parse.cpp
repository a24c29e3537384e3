// Parsing a file, and containing its parse errors.
//
// Why containment: tree-sitter recovers from an error by the cheapest
// repair it finds, and the cheapest is often one ERROR node running to the
// end of the file, or an unclosed bracket that turns the definitions after
// it into nested items of the broken one. Either swallows every definition
// after the error (in TypeScript, valid code does it too: an interface
// whose generic call signature starts a line, `<T>(): X`, reads to the
// grammar as a comparison continuing the member before it). An anchor on a
// definition far from the error would then be orphaned by a typo, or by
// code the grammar cannot read. So where an error swallowed what followed
// it, the pieces of the broken stretch are parsed one by one: each gives
// the tree it would give in a file without the error elsewhere, and only
// the piece holding the error is still broken (its definitions say so:
// Symbol::hasError).
//
// How the pieces are found differs. C and C++ are first parsed again
// without their layout (Canonical.cpp), and their top level is cut by its
// tokens after a `;` or `}` (Macros.cpp). Every other grammar is cut at the
// lines that start a statement of the broken level (the top level, or a
// definition's members), read from the tokens of the tree as parsed, and
// its pieces are parsed after the headers of the definitions enclosing
// them (Containment). Only the stretches the errors broke are parsed
// again; the rest is taken from the tree as it is.
#include "syntax/Sha256.h"
#include "syntax/SyntaxInternal.h"
#include "util/Hash.h"

#include <algorithm>
#include <cstring>

namespace engram::syntax::detail {

bool cFamily(const LangSpec* spec) {
    return spec && (spec->lang == Lang::C || spec->lang == Lang::Cpp);
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

Unparsed unparsedOf(const LangSpec* spec, std::string_view src) {
    if (!cFamily(spec)) return {};
    auto tokens = lexC(src);
    return {declarationMacros(src, tokens), directiveComments(src, tokens)};
}

Spans hiddenSpans(const Unparsed& u) {
    Spans out = u.macros;
    out.insert(out.end(), u.comments.begin(), u.comments.end());
    std::sort(out.begin(), out.end());
    return out;
}

// A parse's budget. tree-sitter's error recovery can go far past linear on
// hostile input: a 1,020-byte Java file the fuzzer wrote (tests/fuzz) was
// still parsing after ten minutes. tree-sitter asks about every 100 of its
// operations whether to go on; a parse may ask kBaseChecks times plus once
// per byte (a hundred operations a byte, several times what real code of
// any of the grammars takes: the corpus tests parse real repositories in
// every language within it), then gives up: no tree, and the callers treat
// the file as one they cannot read. Counted, not timed, so a file parses
// or not the same way on any machine and under any load. The base is kept
// small: under the sanitizers, the fuzzer's mutations of that Java file
// each spent the whole budget, and 20,000 checks made its suite run time
// out.
constexpr uint64_t kBaseChecks = 2000;

struct ParseBudget {
    std::string_view src;
    uint64_t checksLeft;
};

const char* readSource(void* payload, uint32_t byte, TSPoint, uint32_t* read) {
    auto* b = static_cast<ParseBudget*>(payload);
    if (byte >= b->src.size()) {
        *read = 0;
        return "";
    }
    *read = uint32_t(b->src.size() - byte);
    return b->src.data() + byte;
}

bool overBudget(TSParseState* state) {
    auto* b = static_cast<ParseBudget*>(state->payload);
    if (b->checksLeft == 0) return true;
    --b->checksLeft;
    return false;
}

TreePtr parseWithBudget(TSParser* parser, const TSTree* old, std::string_view src) {
    ParseBudget budget{src, kBaseChecks + src.size()};
    TSInput input{&budget, readSource, TSInputEncodingUTF8, nullptr};
    TSParseOptions options{&budget, overBudget};
    TreePtr tree(ts_parser_parse_with_options(parser, old, input, options));
    // Given up: the next parse starts afresh rather than resuming this one.
    if (!tree) ts_parser_reset(parser);
    return tree;
}

TreePtr parseText(TSParser* parser, const TSTree* old, std::string_view src, const Spans& hidden) {
    std::vector<TSRange> ranges;
    if (!hidden.empty()) {
        uint32_t from = 0;
        for (auto [b, e] : hidden) {
            if (b > from) ranges.push_back({pointAt(src, from), pointAt(src, b), from, b});
            from = e;
        }
        if (from < src.size())
            ranges.push_back({pointAt(src, from), pointAt(src, uint32_t(src.size())), from,
                              uint32_t(src.size())});
    }
    if (!ts_parser_set_included_ranges(parser, ranges.empty() ? nullptr : ranges.data(),
                                       uint32_t(ranges.size())))
        ts_parser_set_included_ranges(parser, nullptr, 0);
    return parseWithBudget(parser, old, src);
}

TreePtr parseRange(TSParser* parser, std::string_view src, uint32_t begin, uint32_t end,
                   const Spans& hidden) {
    std::vector<TSRange> ranges;
    uint32_t from = begin;
    for (auto [b, e] : hidden) {
        if (e <= begin || b >= end) continue;
        if (b > from) ranges.push_back({pointAt(src, from), pointAt(src, b), from, b});
        from = std::max(from, e);
    }
    if (end > from) ranges.push_back({pointAt(src, from), pointAt(src, end), from, end});
    if (ranges.empty()) return nullptr;
    ts_parser_set_included_ranges(parser, ranges.data(), uint32_t(ranges.size()));
    return parseWithBudget(parser, nullptr, src);
}

Spans errorSpans(TSNode root, uint32_t begin, uint32_t end) {
    Spans out;
    if (!ts_node_has_error(root)) return out;
    Cursor cur(root);
    for (;;) {
        TSNode n = cur.node();
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        bool down = false;
        if (e > begin && s < end && ts_node_has_error(n)) {
            if (ts_node_is_error(n)) {
                out.push_back({std::max(s, begin), std::min(e, end)});
            } else {
                down = true;
            }
        }
        if (!cur.next(down)) break;
    }
    return out;
}

namespace {

bool brokenTopLevel(const TSTree* tree) {
    TSNode root = ts_tree_root_node(tree);
    if (!ts_node_has_error(root)) return false;
    for (uint32_t i = 0, n = ts_node_child_count(root); i < n; ++i)
        if (ts_node_is_error(ts_node_child(root, i))) return true;
    return false;
}

// The symbols of pieces parsed one by one, in document order, as one
// extraction that an open document never takes over from (its records
// are not of the tree an edit updates).
Extraction assemble(std::vector<Symbol> symbols, Spans unreadable) {
    // Each piece's symbols are in document order and pieces do not overlap;
    // a stable sort by start keeps every encloser before what it holds.
    std::stable_sort(symbols.begin(), symbols.end(),
                     [](const Symbol& a, const Symbol& b) { return a.startByte < b.startByte; });
    numberTwins(symbols);
    Extraction x;
    x.records.resize(symbols.size());
    for (auto& r : x.records)
        r.clean = false;
    x.symbols = std::move(symbols);
    std::sort(unreadable.begin(), unreadable.end());
    x.unreadable = std::move(unreadable);
    return x;
}

// ---- C and C++ ------------------------------------------------------------------------

// Moves symbols extracted from canonical text to the original's positions.
void remap(std::vector<Symbol>& symbols, const std::vector<SymbolRecord>& records,
           const std::vector<uint32_t>& origin, std::string_view src) {
    std::vector<uint32_t> lineStarts{0};
    for (size_t i = 0; i < src.size(); ++i)
        if (src[i] == '\n') lineStarts.push_back(uint32_t(i + 1));
    auto point = [&](uint32_t byte, uint32_t& line, uint32_t& column) {
        auto it = std::upper_bound(lineStarts.begin(), lineStarts.end(), byte);
        line = uint32_t(it - lineStarts.begin() - 1);
        column = byte - lineStarts[line];
    };
    // Bytes the canonical text added (a closing brace after an unclosed
    // body) map past the original's end: clamp, a range never leaves the text.
    auto at = [&](uint32_t b) {
        return std::min<uint32_t>(origin[std::min<size_t>(b, origin.size() - 1)],
                                  uint32_t(src.size()));
    };
    for (size_t i = 0; i < symbols.size(); ++i) {
        Symbol& s = symbols[i];
        uint32_t begin = at(s.startByte);
        uint32_t end = s.endByte > s.startByte
                           ? std::max(begin, std::min<uint32_t>(at(s.endByte - 1) + 1, src.size()))
                           : begin;
        uint32_t name = at(records[i].nameByte);
        s.startByte = begin;
        s.endByte = end;
        point(begin, s.startLine, s.startColumn);
        point(end, s.endLine, s.endColumn);
        uint32_t column;
        point(name, s.nameLine, column);
    }
}

// C and C++ whose parse has errors. Where the parser's recovery falls
// depends on the layout (it counts the lines and bytes it skips), so the
// text is parsed again without its layout (canonicalC). An error that still
// breaks the top level can swallow every definition after it: the
// top-level pieces (topLevelPieces) are then parsed one by one, each
// without its layout, or as written where that parse is broken too.
Extraction recoveredC(const LangSpec* spec, TSParser* parser, std::string_view src,
                      std::string_view formerName) {
    Canonical canon = canonicalC(src, lexC(src));
    Unparsed unparsed = unparsedOf(spec, canon.text);
    Spans hidden = hiddenSpans(unparsed);
    std::vector<Symbol> symbols;
    Spans unreadable;
    auto take = [&](Extraction x, bool canonical, const TSTree* t) {
        if (canonical) remap(x.symbols, x.records, canon.origin, src);
        for (auto& sym : x.symbols)
            symbols.push_back(std::move(sym));
        auto at = [&](uint32_t b) {
            return canonical ? std::min<uint32_t>(
                                   canon.origin[std::min<size_t>(b, canon.origin.size() - 1)],
                                   uint32_t(src.size()))
                             : b;
        };
        for (auto [b, e] : errorSpans(ts_tree_root_node(t), 0, UINT32_MAX))
            if (at(e) > at(b)) unreadable.push_back({at(b), at(e)});
    };
    TreePtr whole = parseText(parser, nullptr, canon.text, hidden);
    auto pieces = whole && brokenTopLevel(whole.get())
                      ? topLevelPieces(canon.text, lexC(canon.text))
                      : Spans{};
    if (pieces.size() < 2) {
        if (whole)
            take(extractFromTree(*spec, whole.get(), canon.text, nullptr, nullptr, &unparsed,
                                 formerName),
                 true, whole.get());
    } else {
        Unparsed asWritten = unparsedOf(spec, src);
        Spans asWrittenHidden = hiddenSpans(asWritten);
        for (auto [b, e] : pieces) {
            TreePtr t = parseRange(parser, canon.text, b, e, hidden);
            if (t && !brokenTopLevel(t.get())) {
                take(extractFromTree(*spec, t.get(), canon.text, nullptr, nullptr, &unparsed,
                                     formerName),
                     true, t.get());
                continue;
            }
            uint32_t ob = canon.origin[b],
                     oe = canon.origin[std::min<size_t>(e, canon.text.size())];
            TreePtr o = parseRange(parser, src, ob, oe, asWrittenHidden);
            if (o)
                take(extractFromTree(*spec, o.get(), src, nullptr, nullptr, &asWritten, formerName),
                     false, o.get());
        }
    }
    return assemble(std::move(symbols), std::move(unreadable));
}

// ---- Every other grammar ----------------------------------------------------------------

bool wordStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

std::string_view leadingWord(std::string_view t) {
    size_t i = 0;
    while (i < t.size() && (wordStart(t[i]) || (t[i] >= '0' && t[i] <= '9')))
        ++i;
    return t.substr(0, i);
}

// Words that go on a statement begun on an earlier line (`else:` after an
// `if` block, a Rust `where` clause): never the start of a piece.
bool continues(std::string_view w) {
    static constexpr std::string_view words[] = {"else",    "elif",      "except", "finally",
                                                 "catch",   "where",     "case",   "default",
                                                 "extends", "implements"};
    return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

// Words that open a declaration, in some grammar: at the members' column
// they start a piece even inside brackets an error left open.
bool opensDeclaration(std::string_view w) {
    static constexpr std::string_view words[] = {
        "def",       "class",     "function", "func",   "fn",        "export", "pub",
        "impl",      "struct",    "enum",     "trait",  "interface", "mod",    "import",
        "from",      "package",   "use",      "type",   "async",     "public", "private",
        "protected", "abstract",  "final",    "static", "const",     "let",    "var",
        "declare",   "namespace", "module",   "record", "unsafe",    "extern", "macro_rules"};
    return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

// The children of `n` (its named ones only, with `named`), read with a
// cursor: asking a node for its i-th child walks its siblings each time.
std::vector<TSNode> children(TSNode n, bool named) {
    std::vector<TSNode> out;
    Cursor cur(n);
    if (ts_tree_cursor_goto_first_child(cur.get())) {
        do {
            TSNode c = cur.node();
            if (!named || ts_node_is_named(c)) out.push_back(c);
        } while (ts_tree_cursor_goto_next_sibling(cur.get()));
    }
    return out;
}

// Whether `n` is the first token on its line.
bool firstOnLine(std::string_view src, TSNode n) {
    for (uint32_t i = ts_node_start_byte(n); i > 0; --i) {
        char c = src[i - 1];
        if (c == '\n') return true;
        if (c != ' ' && c != '\t' && c != '\r' && c != '\f') return false;
    }
    return true;
}

// Contains the errors of one tree in another grammar than C's: the
// definitions a broken stretch swallowed come back from its pieces, each
// parsed alone inside the headers of the definitions that enclose it.
//
// A level is the list of a file's top-level statements, or of the members
// (statements) of a definition's body, all starting lines at one column. A
// stretch of a level holding an error is cut where its lines start
// statements (the tokens of the tree as parsed: a word at the members'
// column that is the first on its line, outside brackets, or a word that
// opens a declaration, whatever brackets an error left open; attributes
// and decorators go with what follows them). When every cut falls between
// the level's nodes, the error stayed inside its statement, which is left
// as parsed, and the levels inside it are looked at in turn. When a cut
// falls inside a node, that node swallowed what followed its error, and
// each piece is parsed alone, at its own offsets, after the headers of its
// enclosers (`class K:`, `impl P {`) and before their closing brackets, so
// it is named and digested as in a file without the error.
class Containment {
public:
    Containment(const LangSpec& spec, TSParser* parser, std::string_view src,
                std::string_view formerName)
        : spec_(spec)
        , parser_(parser)
        , size_(uint32_t(src.size()))
        , formerName_(formerName)
        , src_(src) {}

    // The tree's symbols with its errors contained; false when no stretch
    // needed to be parsed again (the tree holds every definition as it is).
    bool run(const TSTree* tree) { return take(tree, {}, 0, size_, true); }
    std::vector<Symbol> symbols;
    Spans unreadable; // what no parse could read (Extraction::unreadable)

private:
    // Bounds the recursion (levels in levels, pieces in pieces) on hostile
    // input; past it a level is left as parsed.
    static constexpr int kMaxDepth = 32;

    // An encloser of a piece: its header (from its first token to its first
    // member) and the bracket that closes its body ('\0': none, as in
    // Python), outermost first.
    struct Frame {
        uint32_t begin, end;
        char closer;
    };
    using Context = std::vector<Frame>;

    const LangSpec& spec_;
    TSParser* parser_;
    uint32_t size_;
    std::string_view formerName_;
    std::string_view src_;
    // The file's text, padded, once a piece is parsed: the enclosers'
    // closing brackets are written past a piece's end, over text the parse
    // is not shown (restored after), so offsets stay the file's own; the
    // padding leaves room at the end.
    std::string buf_;
    mutable std::vector<uint32_t> lineStarts_; // of the file's text (point)
    int depth_ = 0;

    struct Depth {
        int& d;
        explicit Depth(int& d)
            : d(d) {
            ++d;
        }
        ~Depth() { --d; }
    };

    std::string_view text() const { return buf_.empty() ? src_ : std::string_view(buf_); }

    // The row and byte column of a byte of the text, by the line starts.
    TSPoint point(uint32_t at) const {
        if (lineStarts_.empty()) {
            lineStarts_.push_back(0);
            for (uint32_t i = 0; i < src_.size(); ++i)
                if (src_[i] == '\n') lineStarts_.push_back(i + 1);
        }
        auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), at);
        uint32_t row = uint32_t(it - lineStarts_.begin() - 1);
        return {row, at - lineStarts_[row]};
    }

    // Adds the symbols of `tree` that start in [keepBegin, keepEnd) (what
    // its parse was about: the file, or a piece after its enclosers'
    // headers), those in the stretches parsed again coming from their
    // pieces instead.
    bool take(const TSTree* tree, const Context& context, uint32_t keepBegin, uint32_t keepEnd,
              bool original) {
        // A piece's parse sees the brackets written after it: a piece cut
        // from it may reach over them, past the end of the text, where no
        // range may end (found by fuzzing, symbols-go/regression-piece-past-end).
        keepEnd = std::min(keepEnd, size_);
        Spans replaced;
        TSNode root = ts_tree_root_node(tree);
        if (!ts_node_is_error(root)) {
            level(root, context, replaced);
        } else if (context.empty()) {
            // Nothing at the top level parsed: all the parse was shown is
            // one stretch.
            Depth d(depth_);
            stretch(root, {keepBegin, keepEnd}, 0, context, replaced, {});
        }
        if (original && replaced.empty()) return false;
        auto isReplaced = [&](uint32_t at) {
            for (auto [b, e] : replaced)
                if (at >= b && at < e) return true;
            return false;
        };
        bool whole =
            replaced.size() == 1 && replaced[0].first <= keepBegin && replaced[0].second >= keepEnd;
        if (!whole) {
            for (auto& s :
                 extractFromTree(spec_, tree, text(), nullptr, nullptr, nullptr, formerName_)
                     .symbols) {
                if (s.startByte < keepBegin || s.startByte >= keepEnd || isReplaced(s.startByte))
                    continue;
                if (s.endByte > keepEnd) leftOpen(s, keepEnd);
                symbols.push_back(std::move(s));
            }
            for (auto span : errorSpans(root, keepBegin, keepEnd))
                if (!isReplaced(span.first)) unreadable.push_back(span);
        }
        return true;
    }

    // A definition that runs past the end of its piece: it left a bracket
    // open, and one written after the piece (for an encloser) closed it.
    // It holds an error: its range ends with the piece, and its digests,
    // which took in the written bracket, are sealed apart so that they
    // match no closed definition's (its head, which has no body, stays).
    void leftOpen(Symbol& s, uint32_t end) const {
        s.hasError = true;
        s.endByte = end;
        TSPoint p = point(end);
        s.endLine = p.row;
        s.endColumn = p.column;
        auto seal = [](std::string& hex) {
            Sha256 h;
            h.add(hex.data(), hex.size());
            static constexpr std::string_view tag = "\x01left open";
            h.add(tag.data(), tag.size());
            auto d = h.finish();
            hex = toHex(d.data(), hex.size() / 2);
        };
        seal(s.hash);
        seal(s.shapeHash);
        seal(s.tokenHash);
    }

    // The stretches of one level that hold errors: each node holding one,
    // with its neighbours holding errors too, those that go on its
    // statement or that its statement went on from, and the attributes or
    // decorators before it.
    void level(TSNode node, const Context& context, Spans& replaced) {
        if (depth_ >= kMaxDepth) return;
        Depth d(depth_);
        bool root = ts_node_is_null(ts_node_parent(node));
        std::vector<TSNode> kids = children(node, true);
        uint32_t column = 0;
        if (!root) {
            for (TSNode k : kids)
                if (!(spec_.flagsOf(k) & kComment) && firstOnLine(text(), k)) {
                    column = ts_node_start_point(k).column;
                    break;
                }
        }
        // A closing bracket the parser had to invent at this level: a member
        // left a bracket open and took the members after it in, error-free
        // (`fn a() { if x {` reads the next methods as nested items). Every
        // member is then looked at, not only those holding an error.
        bool invented = false;
        if (ts_node_has_error(node))
            for (TSNode c : children(node, false))
                invented = invented || ts_node_is_missing(c);
        auto suspect = [&](size_t i) { return invented || ts_node_has_error(kids[i]); };
        auto startsStatement = [&](size_t i) {
            return ts_node_start_point(kids[i]).column == column && firstOnLine(text(), kids[i]);
        };
        for (size_t i = 0; i < kids.size(); ++i) {
            if (!suspect(i) || (spec_.flagsOf(kids[i]) & kComment)) continue;
            size_t lo = i, hi = i;
            while (lo > 0 && (!startsStatement(lo) || ts_node_has_error(kids[lo - 1]) ||
                              (spec_.flagsOf(kids[lo - 1]) & kPrelude)))
                --lo;
            while (hi + 1 < kids.size() &&
                   (!startsStatement(hi + 1) || ts_node_has_error(kids[hi + 1])))
                ++hi;
            std::vector<TSNode> within(kids.begin() + ptrdiff_t(lo),
                                       kids.begin() + ptrdiff_t(hi) + 1);
            stretch(node, {ts_node_start_byte(kids[lo]), ts_node_end_byte(kids[hi])}, column,
                    context, replaced, within);
            i = hi;
        }
    }

    // One stretch of a level holding errors (`kids`: its nodes; none when
    // the root itself is the error): parsed again piece by piece when a
    // node swallowed the start of another statement, else looked into.
    void stretch(TSNode node, std::pair<uint32_t, uint32_t> range, uint32_t column,
                 const Context& context, Spans& replaced, const std::vector<TSNode>& kids) {
        // In a piece's own parse, a stretch reaching into its enclosers'
        // headers is theirs (the closing bracket written after the piece,
        // where the encloser had its error): looked into.
        bool enclosers = !context.empty() && range.first < context.back().end;
        Spans pieces = enclosers ? Spans{} : cut(node, range.first, range.second, column);
        bool swallowed = kids.empty() && pieces.size() > 1;
        for (size_t p = 1; p < pieces.size() && !swallowed; ++p)
            for (TSNode k : kids)
                if (ts_node_start_byte(k) < pieces[p].first &&
                    pieces[p].first < ts_node_end_byte(k))
                    swallowed = true;
        if (!swallowed) {
            if (kids.empty() && !enclosers) members(node, range, context, replaced);
            for (TSNode k : kids) {
                if (ts_node_is_error(k))
                    members(k, {ts_node_start_byte(k), ts_node_end_byte(k)}, context, replaced);
                else if (ts_node_has_error(k))
                    descend(k, ts_node_start_byte(k), context, replaced);
            }
            return;
        }
        replaced.push_back(range);
        for (auto [b, e] : pieces)
            piece(context, b, e);
    }

    // Parses [begin, end) after its enclosers' headers, their closing
    // brackets written right after it, and takes its symbols.
    void piece(const Context& context, uint32_t begin, uint32_t end) {
        std::string closers;
        for (auto f = context.rbegin(); f != context.rend(); ++f)
            if (f->closer) closers += f->closer;
        if (!context.empty() && context.back().end > begin) return;
        std::vector<TSRange> ranges;
        for (const Frame& f : context)
            if (f.end > f.begin) ranges.push_back({point(f.begin), point(f.end), f.begin, f.end});
        // The written brackets end the piece's line (whatever text they
        // stand over).
        TSPoint last = point(end);
        last.column += uint32_t(closers.size());
        if (end + closers.size() > begin)
            ranges.push_back({point(begin), last, begin, end + uint32_t(closers.size())});
        if (ranges.empty()) return;
        if (buf_.empty()) {
            buf_.reserve(src_.size() + kMaxDepth + 1);
            buf_.assign(src_);
            buf_.append(kMaxDepth + 1, ' ');
        }
        std::string saved = buf_.substr(end, closers.size());
        buf_.replace(end, closers.size(), closers);
        TreePtr t;
        if (ts_parser_set_included_ranges(parser_, ranges.data(), uint32_t(ranges.size())))
            t = parseWithBudget(parser_, nullptr, buf_);
        if (t) take(t.get(), context, begin, end, false);
        buf_.replace(end, saved.size(), saved);
    }

    // Finds the levels inside a statement holding an error: the body of a
    // definition along the way to the error, entered with the header
    // before it (from `from`, where the statement starts) as its context.
    void descend(TSNode n, uint32_t from, const Context& context, Spans& replaced) {
        if (depth_ >= kMaxDepth) return;
        Depth d(depth_);
        TSNode body = spec_.f.body ? ts_node_child_by_field_id(n, spec_.f.body) : TSNode{};
        if (!ts_node_is_null(body)) {
            if (!ts_node_has_error(body) || ts_node_named_child_count(body) == 0) return;
            // One of the enclosers a piece was parsed after: its header is
            // in the context already.
            if (!context.empty() && from < context.back().end) {
                level(body, context, replaced);
                return;
            }
            uint32_t first = ts_node_start_byte(ts_node_named_child(body, 0));
            if (first <= from) return;
            // The bracket that opens the body is closed after each piece.
            char closer = '\0';
            TSNode open = ts_node_child(body, 0);
            if (!ts_node_is_null(open) && !ts_node_is_named(open) &&
                ts_node_end_byte(open) == ts_node_start_byte(open) + 1) {
                char c = text()[ts_node_start_byte(open)];
                closer = c == '{' ? '}' : c == '(' ? ')' : c == '[' ? ']' : '\0';
            }
            Context inner = context;
            inner.push_back({from, first, closer});
            level(body, inner, replaced);
            return;
        }
        for (TSNode c : children(n, false))
            if (ts_node_has_error(c) && !ts_node_is_error(c)) descend(c, from, context, replaced);
    }

    // The tokens of `node` in [begin, end), in order, as the grammar read
    // them: a string is one token, comments are none. `visit(token, start,
    // end, lineStart)` returns false to stop.
    template <typename Visit>
    void tokens(TSNode node, uint32_t begin, uint32_t end, Visit visit) {
        uint32_t lastRow = 0;
        bool any = false; // a token or comment seen: lastRow is its last line
        Cursor cur(node);
        for (;;) {
            TSNode n = cur.node();
            uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
            if (s >= end && s > begin) break;
            bool down = false, stop = false;
            if (e > begin && e > s) {
                uint16_t fl = spec_.flagsOf(n);
                if ((fl & kComment) || ts_node_child_count(n) == 0 || (fl & kStringish)) {
                    if (s >= begin && !ts_node_is_missing(n)) {
                        bool lineStart = !any || ts_node_start_point(n).row > lastRow;
                        any = true;
                        lastRow = ts_node_end_point(n).row;
                        if (!(fl & kComment)) stop = !visit(n, s, std::min(e, end), lineStart);
                    }
                } else {
                    down = true;
                }
            }
            if (stop || !cur.next(down)) break;
        }
    }

    // The brackets open at a point. A closing bracket closes the innermost
    // open one of its kind and every one opened after it (left open by an
    // error: `f(a, b }`); one with no opener is ignored.
    struct Brackets {
        std::string open;
        void see(std::string_view t) {
            if (t.size() != 1) return;
            char c = t[0];
            if (c == '(' || c == '[' || c == '{') {
                open += c;
            } else if (c == ')' || c == ']' || c == '}') {
                char o = c == ')' ? '(' : c == ']' ? '[' : '{';
                size_t at = open.rfind(o);
                if (at != std::string::npos) open.resize(at);
            }
        }
    };

    // Where [begin, end) is cut into statements (see the class comment).
    // Read from the tree's tokens, so strings and comments (a `}` or a
    // line start in a template literal) are told apart from code as the
    // grammar tells them.
    Spans cut(TSNode node, uint32_t begin, uint32_t end, uint32_t column) {
        Spans out;
        uint32_t pieceStart = begin;
        Brackets brackets;
        bool first = true, prelude = false;
        tokens(node, begin, end, [&](TSNode n, uint32_t s, uint32_t e, bool lineStart) {
            std::string_view t = text().substr(s, e - s);
            char c = t[0];
            bool attribute = c == '@' || c == '#';
            if (first) {
                first = false;
                prelude = attribute;
            } else if (lineStart && ts_node_start_point(n).column == column &&
                       (wordStart(c) || attribute)) {
                std::string_view w = leadingWord(t);
                if (!continues(w) && (brackets.open.empty() || attribute || opensDeclaration(w))) {
                    if (!prelude) {
                        out.push_back({pieceStart, s});
                        pieceStart = s;
                    }
                    brackets.open.clear();
                    prelude = attribute;
                }
            }
            brackets.see(t);
            return true;
        });
        out.push_back({pieceStart, end});
        return out;
    }

    // A statement the parser could not read at all (an ERROR node, or a
    // root that is one): its members found from its tokens. The header
    // runs to the first `{`, or `:` ending a line, outside brackets; the
    // members start at the column of the first line after it, and end at
    // the first line that starts left of them (the closing brace, or
    // Python's dedent). The members' stretch is cut and parsed as a level
    // would be; the statement itself stays as parsed.
    void members(TSNode node, std::pair<uint32_t, uint32_t> range, const Context& context,
                 Spans& replaced) {
        if (depth_ >= kMaxDepth || (!context.empty() && range.first < context.back().end)) return;
        Depth d(depth_);
        Brackets brackets;
        uint32_t headerEnd = 0, first = 0, last = range.second, headerRow = 0;
        uint32_t column = 0;
        char closer = '\0';
        bool found = false;
        tokens(node, range.first, range.second,
               [&](TSNode n, uint32_t s, uint32_t e, bool lineStart) {
                   TSPoint at = ts_node_start_point(n);
                   if (!headerEnd) {
                       std::string_view t = text().substr(s, e - s);
                       size_t next = text().find_first_not_of(" \t\r", e);
                       bool endsLine = next == std::string_view::npos || text()[next] == '\n';
                       bool opens = brackets.open.empty() && (t == "{" || (t == ":" && endsLine));
                       brackets.see(t);
                       if (opens) {
                           headerEnd = e;
                           headerRow = ts_node_end_point(n).row;
                           closer = t == "{" ? '}' : '\0';
                       }
                       return true;
                   }
                   if (!found) {
                       if (!lineStart || at.row == headerRow) return false;
                       first = s;
                       column = at.column;
                       found = true;
                       return true;
                   }
                   if (lineStart && at.column < column) {
                       last = s;
                       return false;
                   }
                   return true;
               });
        if (!found || column == 0) return;
        Spans pieces = cut(node, first, last, column);
        replaced.push_back({first, last});
        Context inner = context;
        inner.push_back({range.first, first, closer});
        for (auto [b, e] : pieces)
            piece(inner, b, e);
    }
};

// ---- TypeScript's generic call signatures --------------------------------------------
//
// A generic call signature that starts a line after a member with no `;`
// (`(): A<B>`, then `<T>(x: T): C` in an interface or an object type) is a
// member of its own to TypeScript, which ends a member at a line break. The
// grammar reads the `<` as going on with the member before it: it closes
// the body with a `}` it invents there, or breaks the member, and the rest
// of the body (often with the definitions after it) is an error. The
// definition then ends at its first such signature, and a change past it
// would go unseen. So the separator the grammar wanted is written over the
// blank before such a `<` (offsets, lines and columns stay the file's; the
// digests ignore semicolons, so the definition is digested as it would be
// with its `;`s written), and the text is parsed again. A separator stays
// only when it leaves less of the file in errors; each is one parse, and
// kMaxSeparators bound them (what is left is contained as any error is).

// How much of a tree is in errors: the bytes of its ERROR nodes, and one
// for each token the parser invented.
uint64_t errorWeight(TSNode root) {
    uint64_t w = 0;
    if (!ts_node_has_error(root)) return w;
    Cursor cur(root);
    for (;;) {
        TSNode n = cur.node();
        bool down = false;
        if (ts_node_is_missing(n)) {
            ++w;
        } else if (ts_node_is_error(n)) {
            w += ts_node_end_byte(n) - ts_node_start_byte(n);
        } else {
            down = ts_node_has_error(n);
        }
        if (!cur.next(down)) break;
    }
    return w;
}

// Where a separator may be missing: each `<` that starts a line after at
// least one blank (what a generic call signature on its own line looks
// like) inside an error in a body of members (an interface's, an object
// type's), or as the first token after a bracket the parser invented to
// close one; in order. Errors elsewhere are not looked into, so most
// broken files (and random bytes) have no candidate at all.
std::vector<uint32_t> signatureStarts(TSNode root, std::string_view text) {
    std::vector<uint32_t> out;
    const uint32_t size = uint32_t(text.size());
    auto startsSignature = [&](uint32_t q) {
        if (q == 0 || q >= size || text[q] != '<') return false;
        uint32_t k = q;
        while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t'))
            --k;
        return k < q && (k == 0 || text[k - 1] == '\n');
    };
    // The next token's start from `at`: blanks and comments skipped.
    auto nextToken = [&](uint32_t at) {
        while (at < size) {
            char c = text[at];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                ++at;
            } else if (text.substr(at, 2) == "//") {
                size_t nl = text.find('\n', at);
                at = nl == std::string_view::npos ? size : uint32_t(nl);
            } else if (text.substr(at, 2) == "/*") {
                size_t close = text.find("*/", at + 2);
                at = close == std::string_view::npos ? size : uint32_t(close + 2);
            } else {
                break;
            }
        }
        return at;
    };
    auto isBody = [](TSNode n) {
        const char* t = ts_node_type(n);
        return !std::strcmp(t, "interface_body") || !std::strcmp(t, "object_type");
    };
    // Only the paths holding an error are walked (explicitly: a hostile
    // file nests deeper than a stack should).
    std::vector<std::pair<TSNode, bool>> stack{{root, false}};
    while (!stack.empty()) {
        auto [n, inBody] = stack.back();
        stack.pop_back();
        if (ts_node_is_missing(n)) {
            if (uint32_t q = nextToken(ts_node_start_byte(n)); inBody && startsSignature(q))
                out.push_back(q);
            continue;
        }
        if (ts_node_is_error(n) && inBody) {
            for (uint32_t q = ts_node_start_byte(n), e = ts_node_end_byte(n); q < e; ++q)
                if (startsSignature(q)) out.push_back(q);
            continue;
        }
        if (!ts_node_has_error(n)) continue;
        bool body = inBody || isBody(n);
        for (uint32_t i = ts_node_child_count(n); i-- > 0;)
            stack.push_back({ts_node_child(n, i), body});
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

constexpr int kMaxSeparators = 64, kMaxRefused = 4;

// The text with separators written and its parse; nullopt when none helped.
struct Separated {
    std::string text;
    TreePtr tree;
};
std::optional<Separated> separateSignatures(const LangSpec* spec, TSParser* parser,
                                            const TSTree* tree, std::string_view src) {
    if (spec->lang != Lang::TypeScript && spec->lang != Lang::Tsx) return std::nullopt;
    std::optional<Separated> out;
    const TSTree* now = tree;
    uint64_t weight = errorWeight(ts_tree_root_node(now));
    std::vector<uint32_t> tried;
    std::string text(src);
    ts_parser_set_included_ranges(parser, nullptr, 0);
    // Real code gains from each separator written; text whose `<`s gain
    // nothing (random bytes, JSX) is not tried much longer.
    int refused = 0;
    for (int parses = 0; parses < kMaxSeparators && weight > 0 && refused < kMaxRefused;) {
        uint32_t at = UINT32_MAX;
        for (uint32_t q : signatureStarts(ts_tree_root_node(now), text))
            if (std::find(tried.begin(), tried.end(), q) == tried.end()) {
                at = q;
                break;
            }
        if (at == UINT32_MAX) break;
        tried.push_back(at);
        ++parses;
        // Reparsed from the tree with the one byte edited: the parser
        // takes what comes before it as it was.
        TreePtr edited(ts_tree_copy(now));
        TSPoint p = pointAt(text, at - 1);
        TSPoint p1{p.row, p.column + 1};
        TSInputEdit edit{at - 1, at, at, p, p1, p1};
        ts_tree_edit(edited.get(), &edit);
        char blank = text[at - 1];
        text[at - 1] = ';';
        TreePtr again = parseWithBudget(parser, edited.get(), text);
        uint64_t w = again ? errorWeight(ts_tree_root_node(again.get())) : UINT64_MAX;
        if (w >= weight) {
            text[at - 1] = blank;
            ++refused;
            continue;
        }
        refused = 0;
        weight = w;
        if (!out) out.emplace();
        out->tree = std::move(again);
        now = out->tree.get();
    }
    if (out) {
        // The separators that stayed, written in the text its tree was parsed from.
        out->text = std::move(text);
    }
    return out;
}

} // namespace

std::optional<Extraction> recovered(const LangSpec* spec, TSParser* parser, const TSTree* tree,
                                    std::string_view src, std::string_view formerName, int rules) {
    if (!spec || !tree || !ts_node_has_error(ts_tree_root_node(tree))) return std::nullopt;
    std::optional<Extraction> out;
    if (cFamily(spec)) {
        out = recoveredC(spec, parser, src, formerName);
    } else if (auto sep = rules >= 2 ? separateSignatures(spec, parser, tree, src) : std::nullopt) {
        // Offsets are the file's: the symbols of the separated text are the
        // file's, the errors left contained in it.
        const TSTree* t = sep->tree.get();
        Containment c(*spec, parser, sep->text, formerName);
        if (c.run(t)) {
            out = assemble(std::move(c.symbols), std::move(c.unreadable));
        } else {
            Extraction x =
                extractFromTree(*spec, t, sep->text, nullptr, nullptr, nullptr, formerName);
            out = assemble(std::move(x.symbols),
                           errorSpans(ts_tree_root_node(t), 0, uint32_t(src.size())));
        }
    } else {
        Containment c(*spec, parser, src, formerName);
        if (c.run(tree)) out = assemble(std::move(c.symbols), std::move(c.unreadable));
    }
    ts_parser_set_included_ranges(parser, nullptr, 0);
    return out;
}

} // namespace engram::syntax::detail
