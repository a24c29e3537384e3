// The extraction walk: one pass over the syntax tree that finds definitions
// and writes the normalised item stream their hashes are taken over
// (Digest.cpp hashes it).
//
// Why a hand-written walk rather than the grammars' queries/tags.scm: tags
// queries say "this is a function named f" but not where it sits, and anchors
// need qualified names (enclosing classes, namespaces, impl targets, Go
// receivers, C++ declarators such as `ns::Parser::parse`), which means
// walking the ancestors anyway. The hash needs a full walk of every
// definition's subtree too, so one cursor walk does both; running the tags
// queries as well would cost a second pass (and their .scm files at run time)
// for information the walk already has.
//
// The stream. Each item starts with a tag byte and is self-delimiting (a
// fixed-size type token, or a varint length before text), so no two different
// sequences of items can produce the same bytes:
//   open <type> ... close      a node with children
//   field <field>              the field the next named node fills
//   anon <text>                an anonymous token (keyword, operator)
//   leaf <type> <text>         a named token (identifier, number...)
//   text <text>                a literal's contents, quotes dropped
//   prefix <text>              a literal's prefix (f"", b"", L"", R"...)
//   gap <text>                 text no visible token covers (hidden tokens)
// Left out: comments and other extras (line continuations), white space,
// ";" and "," (but for the few commas that carry meaning), the parentheses of
// parenthesized expressions and types (the tree shape keeps precedence),
// quote characters and escaped quotes, the case of numeric literals; plus
// what each language's hook normalises (see lang/*.cpp).
//
// Items are written only while some symbol is open; a symbol is the range of
// items its definition node wrote, so nested symbols' ranges nest.
#include "syntax/SyntaxInternal.h"

#include <algorithm>
#include <unordered_map>

namespace engram::syntax::detail {

namespace {

enum Tag : char {
    kOpen = 1,
    kClose = 2,
    kField = 3,
    kAnon = 4,
    kLeaf = 5,
    kText = 6,
    kPrefix = 7,
    kGap = 8,
};

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool allSpace(std::string_view s) {
    for (char c : s)
        if (!isSpace(c)) return false;
    return true;
}

// White space, counting a backslash before a line break (a line
// continuation between two tokens) as white space too.
bool blank(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
        if (isSpace(s[i])) continue;
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) continue;
        return false;
    }
    return true;
}

bool punctuation(std::string_view t) {
    for (char c : t)
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || (unsigned char)c >= 0x80)
            return false;
    return true;
}

bool isBracket(std::string_view t) {
    return t == "(" || t == ")" || t == "[" || t == "]" || t == "{" || t == "}";
}

bool isQuote(char c) {
    return c == '"' || c == '\'';
}

bool isWord(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "f'''" -> prefix "f"; false unless the token is a prefix followed by quotes.
bool openingQuote(std::string_view t, std::string_view& prefix) {
    size_t i = 0;
    while (i < t.size() && isWord(t[i]))
        ++i;
    if (i == t.size()) return false;
    for (size_t j = i; j < t.size(); ++j)
        if (!isQuote(t[j])) return false;
    prefix = t.substr(0, i);
    return true;
}

// "\"" or "'''" or "\"#": a closing token; rest is what follows the quotes.
bool closingQuote(std::string_view t, std::string_view& rest) {
    size_t i = 0;
    while (i < t.size() && isQuote(t[i]))
        ++i;
    if (i == 0) return false;
    rest = t.substr(i);
    return true;
}

struct Level {
    TSNode node;
    uint32_t end = 0;
    uint32_t lastEnd = 0;    // where the previous child ended (gap detection)
    uint32_t childIndex = 0; // visible children entered so far
    TSSymbol sym = 0;
    TSSymbol prevSym = 0;
    bool hasPrev = false;
    bool extra = false;       // an extra (comment): does not count as a sibling
    bool descended = false;   // its children are walked
    bool closeNeeded = false; // an open item was written
    bool inString = false;    // leaves join the literal's text run
    bool stringRoot = false;  // this node opened the literal
    bool unwrapped = false;   // its anonymous children are left out
    bool keepCommas = false;
    bool dropParens = false; // a Group: its own brackets are left out
    bool scopePushed = false;
    int32_t frame = -1;      // the symbol this node opened
    int32_t nameSymbol = -1; // the symbol this node names
    int32_t bodySymbol = -1; // the symbol whose body this node is
    size_t nameBegin = 0, bodyBegin = 0;
};

// Namespace names met so far, folded in order (FNV-1a over "name\0").
uint64_t foldNamespace(uint64_t h, std::string_view name) {
    if (h == 0) h = 0xcbf29ce484222325ull;
    for (char c : name)
        h = (h ^ uint8_t(c)) * 0x100000001b3ull;
    return (h ^ 0xffu) * 0x100000001b3ull;
}

class Walker {
public:
    Walker(const LangSpec& spec, std::string_view src, const Extraction* reuse,
           const Unparsed* unparsed, std::string_view formerName)
        : spec_(spec)
        , src_(src)
        , reuse_(reuse)
        , unparsed_(unparsed)
        , formerName_(formerName) {
        levels_.reserve(128);
        if (reuse_) {
            reuseAt_.reserve(reuse_->symbols.size());
            for (size_t i = 0; i < reuse_->symbols.size(); ++i) {
                if (!reuse_->records[i].clean) continue;
                const Symbol& s = reuse_->symbols[i];
                // Two symbols on one node extent cannot both be taken over:
                // drop the key rather than guess.
                auto [it, fresh] = reuseAt_.emplace(extentKey(s.startByte, s.endByte), i);
                if (!fresh) it->second = kNoSpan;
            }
        }
    }

    void walk(TSNode root) {
        // A tree may be of a piece of the text only (Parse.cpp).
        out_.reserve(size_t(ts_node_end_byte(root) - ts_node_start_byte(root)) * 2);
        Cursor cur(root);
        cursor_ = cur.get();
        bool descend = enter(root);
        for (;;) {
            if (descend && ts_tree_cursor_goto_first_child(cur.get())) {
                descend = enter(cur.node());
                continue;
            }
            bool done = false;
            for (;;) {
                leave();
                if (ts_tree_cursor_goto_next_sibling(cur.get())) {
                    descend = enter(cur.node());
                    break;
                }
                if (!ts_tree_cursor_goto_parent(cur.get())) {
                    done = true;
                    break;
                }
            }
            if (done) break;
        }
        cursor_ = nullptr;
    }

    Extraction finish(std::string* stream) {
        if (unparsed_ && !unparsed_->comments.empty()) {
            comments_.insert(comments_.end(), unparsed_->comments.begin(),
                             unparsed_->comments.end());
            std::sort(comments_.begin(), comments_.end());
        }
        Extraction x{std::move(symbols_),     std::move(records_),  std::move(out_),
                     std::move(occurrences_), std::move(comments_), {}};
        digestSymbols(x, src_);
        numberTwins(x.symbols);
        if (stream) *stream = x.stream;
        return x;
    }

private:
    const LangSpec& spec_;
    std::string_view src_;
    TSTreeCursor* cursor_ = nullptr; // positioned on the node being entered
    std::string out_;
    std::string run_; // the current literal's text
    // The prefix the current run was written under (adjacent literals with
    // one prefix make one run); `kNoPrefix` when none was written yet.
    std::string runPrefix_;
    static constexpr std::string_view kNoPrefix = "\x01";
    std::string scratch_;
    bool docstring_ = false;
    std::vector<Level> levels_;
    std::vector<Symbol> symbols_;
    std::vector<SymbolRecord> records_; // parallel to symbols_
    std::vector<Occurrence> occurrences_;
    std::vector<std::pair<uint32_t, uint32_t>> comments_;
    std::vector<size_t> open_; // open symbol frames
    // Per open frame: its name, then its qualifier's components (Occurrence).
    std::vector<std::vector<std::string>> openNames_;
    std::vector<Scope> scopes_;
    std::vector<std::string> namespaces_;
    uint64_t namespaceKey_ = 0; // namespaces_ folded (SymbolRecord::namespaces)
    // A definition opened at its prelude, not yet entered.
    struct Preopened {
        const void* node = nullptr;
        int32_t frame = -1;
    } preopened_;
    // What a wrapper definition stands for: its wrapped definition, and
    // every node between (an exported `const f = () => {}`: the declaration
    // and the declarator). Those are the nodes inside the wrapper whose text
    // holds the wrapped one's; none is classified again.
    struct Wrap {
        const void* inner;
        uint32_t start, end; // the wrapped definition's bytes
        const void* outer;   // the wrapper; the entry goes when it is left
    };
    std::vector<Wrap> wraps_;
    bool wrapped(TSNode n, uint32_t s, uint32_t e) {
        for (auto it = wraps_.begin(); it != wraps_.end(); ++it) {
            if (it->inner == n.id) {
                wraps_.erase(it);
                return true;
            }
            if (s <= it->start && e >= it->end) return true;
        }
        return false;
    }
    // Nodes not yet entered that are a symbol's name or body.
    struct Pending {
        const void* node;
        size_t symbol;
        bool body;
    };
    std::vector<Pending> pending_;
    const Extraction* reuse_;
    std::unordered_map<uint64_t, size_t> reuseAt_; // clean extent -> reuse_ index
    const Unparsed* unparsed_;                     // C and C++: what the parser was not shown
    std::string_view formerName_; // masked as every symbol's own name (extractFromTree)
    // The hidden macros before the definition being entered: [begin, end).
    std::pair<uint32_t, uint32_t> prelude_{0, 0};

    // Where the chain of hidden macros right before byte `at` begins (only
    // blanks and comments between), or `at`.
    uint32_t macroPrelude(uint32_t at) const {
        const auto& m = unparsed_->macros;
        auto it = std::lower_bound(m.begin(), m.end(), std::pair<uint32_t, uint32_t>{at, 0});
        uint32_t begin = at;
        std::string scratch;
        while (it != m.begin()) {
            auto prev = std::prev(it);
            scratch.clear();
            compactCode(text(prev->second, begin), scratch);
            if (!scratch.empty()) break;
            begin = prev->first;
            it = prev;
        }
        return begin;
    }

    static uint64_t extentKey(uint32_t start, uint32_t end) { return uint64_t(start) << 32 | end; }

    bool emitting() const { return !open_.empty(); }

    // Items are appended through a small header buffer: one append for the
    // header, one for the text.
    static size_t putVarint(char* p, size_t n) {
        size_t i = 0;
        while (n >= 0x80) {
            p[i++] = char((n & 0x7f) | 0x80);
            n >>= 7;
        }
        p[i++] = char(n);
        return i;
    }
    void item(Tag tag, std::string_view bytes) {
        char head[16];
        head[0] = char(tag);
        size_t h = 1 + putVarint(head + 1, bytes.size());
        out_.append(head, h);
        out_.append(bytes);
    }
    // A node type or field token (self-delimiting, see LangSpec::typeToken).
    void token(Tag tag, std::string_view tok) {
        if (tok.size() == 2) {
            const char head[3] = {char(tag), tok[0], tok[1]};
            out_.append(head, 3);
        } else {
            out_ += char(tag);
            out_.append(tok);
        }
    }
    void emitField(TSFieldId fid) {
        if (fid && emitting()) token(kField, spec_.fieldToken[fid]);
    }
    void emitLeaf(std::string_view tok, std::string_view text) {
        token(kLeaf, tok);
        const size_t begin = out_.size();
        char head[10];
        out_.append(head, putVarint(head, text.size()));
        out_.append(text);
        for (size_t k = 0; k < open_.size(); ++k) {
            const auto& names = openNames_[k];
            size_t w = 0;
            while (w < names.size() && names[w] != text)
                ++w;
            if (w < names.size())
                occurrences_.push_back({begin, out_.size(), open_[k], uint8_t(w)});
            else if (!formerName_.empty() && text == formerName_)
                occurrences_.push_back({begin, out_.size(), open_[k], 0});
        }
    }

    std::string_view text(uint32_t s, uint32_t e) const {
        if (e > src_.size() || s > e) return {};
        return src_.substr(s, e - s);
    }

    std::string_view collapse(std::string_view t) { return collapseSpace(t, scratch_); }
    std::string_view number(std::string_view t) { return canonicalNumber(spec_.lang, t, scratch_); }

    void appendEscape(std::string_view t) {
        if (t == "\\'" || t == "\\\"")
            run_ += t[1];
        else
            run_.append(t);
    }

    void flushRun() {
        if (run_.empty()) return;
        if (emitting()) {
            // A line break inside a literal is one whatever the file's line
            // endings (git's autocrlf, rustfmt's newline_style).
            if (run_.find('\r') != std::string::npos) {
                size_t w = 0;
                for (size_t r = 0; r < run_.size(); ++r)
                    if (!(run_[r] == '\r' && r + 1 < run_.size() && run_[r + 1] == '\n'))
                        run_[w++] = run_[r];
                run_.resize(w);
            }
            if (docstring_) {
                scratch_.clear();
                docstringText(run_, scratch_);
                item(kText, scratch_);
            } else {
                item(kText, run_);
            }
        }
        run_.clear();
    }

    void prefix(std::string_view p) {
        if (p.empty() || !emitting()) return;
        if (spec_.lang == Lang::Python) {
            scratch_.clear();
            pythonPrefix(p, scratch_);
            if (!scratch_.empty()) item(kPrefix, scratch_);
            return;
        }
        item(kPrefix, p);
    }

    // A literal piece opens: adjacent pieces under the same prefix continue
    // one run, so where a formatter splits a long string, and on which side
    // of the split a blank sits, leaves no trace.
    void openPiece(std::string_view p) {
        std::string norm;
        if (spec_.lang == Lang::Python) {
            pythonPrefix(p, norm);
        } else {
            norm = p;
        }
        if (norm == runPrefix_) return;
        flushRun();
        prefix(norm);
        runPrefix_ = norm;
    }

    // Text between the previous child of `p` and `upto` that no visible token
    // covers: white space, or a hidden token (a literal's raw contents).
    void gap(Level& p, uint32_t upto) {
        if (upto <= p.lastEnd || !emitting()) return;
        std::string_view g = text(p.lastEnd, upto);
        if (p.inString && (spec_.flags[p.sym] & kConcat) && blank(g)) return;
        if (p.inString) {
            run_.append(g);
            return;
        }
        if (blank(g)) return;
        if (spec_.lang == Lang::C || spec_.lang == Lang::Cpp) {
            // A comment the parser was not shown (in a #define) is no code.
            scratch_.clear();
            compactCode(g, scratch_);
            if (!scratch_.empty()) item(kGap, scratch_);
            return;
        }
        item(kGap, collapse(g));
    }

    bool keepComma(const Level& p) const {
        if (p.keepCommas) return true;
        // An elision: "[1,,2]", "[,1]".
        if (!p.hasPrev) return false;
        std::string_view prev = spec_.typeName[p.prevSym];
        return prev == "," || prev == "[";
    }

    // Opens the level of node n and writes what it contributes before its
    // children; true when the walk should descend into them.
    bool enter(TSNode n) {
        Level* parent = levels_.empty() ? nullptr : &levels_.back();
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        uint32_t from = s;
        // The node's table index: every flag and type lookup below uses it
        // (asking the node again costs a call into tree-sitter each time).
        const TSSymbol sym = spec_.index(n);
        if (unparsed_ && !unparsed_->macros.empty() && parent && (spec_.flags[sym] & kDefinition)) {
            // Hidden macros opening this definition are part of it.
            if (uint32_t p = macroPrelude(s); p < s) {
                Def probe;
                if (classifyAt(n, parent->node, probe) && !probe.scopeOnly) from = p;
            }
        }
        if (parent) gap(*parent, from);
        if (from < s) {
            parent->lastEnd = s;
            prelude_ = {from, s};
        }
        levels_.emplace_back();
        parent = levels_.size() > 1 ? &levels_[levels_.size() - 2] : nullptr;
        Level& L = levels_.back();
        L.node = n;
        L.end = e;
        L.lastEnd = s;
        L.sym = sym;
        uint16_t fl = spec_.flags[L.sym];
        if (fl & kComment) {
            L.extra = true;
            if (!open_.empty()) comments_.push_back({s, e});
            return false;
        }
        claimPending(n, L);
        uint32_t children = ts_node_child_count(n);
        if (fl & kPrelude) preopen(n, parent);

        if (parent && parent->inString) {
            if (children == 0) {
                stringPiece(*parent, fl, s, e);
                return false;
            }
            if (fl & kStringish) { // the literal's inner structure: transparent
                L.inString = true;
                L.descended = true;
                return true;
            }
            flushRun(); // an interpolation: hashed as code
        }
        if (!(fl & kNamed)) {
            anonymous(parent, fl, s, e);
            return false;
        }

        // The field a named node fills (an anonymous token's field never tells
        // two trees apart); only needed while writing, and not free to ask.
        TSFieldId fid = emitting() || (fl & kHook) ? ts_tree_cursor_current_field_id(cursor_) : 0;
        HookResult hr;
        if ((fl & kHook) && spec_.hook)
            hr = spec_.hook(HookContext{spec_, src_, parent ? parent->node : TSNode{}, fid,
                                        parent && parent->hasPrev ? spec_.typeName[parent->prevSym]
                                                                  : std::string_view()},
                            n);
        if (auto descend = applyHook(hr, L, fid)) return *descend;

        const bool isWrapped = !wraps_.empty() && wrapped(n, s, e);
        if ((fl & kDefinition) && !isWrapped) {
            emitField(fid);
            fid = 0;
            if (define(n, L, parent)) return false; // taken over: nothing to walk
        }
        emitField(fid);

        if ((fl & kUnwrap) || hr.action == HookResult::Unwrap) {
            L.unwrapped = true;
            L.descended = true;
            return true;
        }
        if (fl & kStringish) return literal(n, L, fl, children, hr.action == HookResult::Docstring);
        if (children == 0) {
            codeLeaf(L, fl, s, e);
            return false;
        }
        if (emitting()) {
            token(kOpen, spec_.typeToken[L.sym]);
            L.closeNeeded = true;
        }
        L.descended = true;
        return true;
    }

    // A definition seen earlier asked to know where its name or body starts
    // in the stream: this node is that name or body.
    void claimPending(TSNode n, Level& L) {
        for (size_t i = 0; i < pending_.size();) {
            if (pending_[i].node != n.id) {
                ++i;
                continue;
            }
            if (pending_[i].body) {
                L.bodySymbol = int32_t(pending_[i].symbol);
                L.bodyBegin = out_.size();
            } else {
                L.nameSymbol = int32_t(pending_[i].symbol);
                L.nameBegin = out_.size();
            }
            pending_.erase(pending_.begin() + ptrdiff_t(i));
        }
    }

    // A token inside a string literal: its quotes, an escape, or text of the
    // current run.
    void stringPiece(const Level& parent, uint16_t fl, uint32_t s, uint32_t e) {
        if (!emitting()) return;
        std::string_view t = text(s, e);
        std::string_view pre;
        bool plain = !(fl & (kEscape | kContent));
        if (plain && parent.childIndex == 0 && s == ts_node_start_byte(parent.node) &&
            openingQuote(t, pre)) {
            openPiece(pre);
        } else if (plain && parent.childIndex > 0 && e == parent.end && closingQuote(t, pre)) {
            if (!pre.empty()) { // a raw string's closing "# ends its run
                flushRun();
                prefix(pre);
                runPrefix_ = kNoPrefix;
            }
        } else if (fl & kEscape) {
            appendEscape(t);
        } else {
            run_.append(t);
        }
    }

    // An anonymous token (keyword, operator), unless it is one the stream
    // leaves out.
    void anonymous(const Level* parent, uint16_t fl, uint32_t s, uint32_t e) {
        if ((parent && parent->unwrapped) || (fl & kSemicolon) ||
            (parent && parent->dropParens && isBracket(text(s, e))) ||
            ((fl & kComma) && !(parent && keepComma(*parent)))) {
            return;
        }
        std::string_view t = text(s, e);
        if (allSpace(t) || !emitting()) return;
        if (std::any_of(t.begin(), t.end(), isSpace)) {
            // `#  ifdef` is `#ifdef`: a token's inner blanks are layout.
            scratch_.clear();
            compactCode(t, scratch_);
            t = scratch_;
        }
        if (parent && (spec_.flags[parent->sym] & kTokens) && punctuation(t)) {
            for (size_t i = 0; i < t.size(); ++i)
                item(kAnon, t.substr(i, 1));
            return;
        }
        item(kAnon, t);
    }

    // What a language hook decided for a named node: whether to descend
    // when the hook settled it, nothing when the walk goes on as usual.
    std::optional<bool> applyHook(const HookResult& hr, Level& L, TSFieldId fid) {
        switch (hr.action) {
        case HookResult::Skip:
            return false;
        case HookResult::Leaf:
            if (emitting()) {
                if (!hr.field.empty())
                    token(kField, spec_.tokenForField(hr.field));
                else
                    emitField(fid);
                emitLeaf(spec_.tokenForType(hr.type), hr.text);
            }
            return false;
        case HookResult::KeepCommas:
            L.keepCommas = true;
            break;
        case HookResult::Transparent:
            emitField(fid);
            L.dropParens = true;
            L.descended = true;
            return true;
        case HookResult::Group:
            emitField(fid);
            if (emitting()) {
                token(kOpen, hr.type.empty() ? std::string_view(spec_.typeToken[L.sym])
                                             : spec_.tokenForType(hr.type));
                L.closeNeeded = true;
            }
            L.dropParens = true;
            L.descended = true;
            return true;
        default:
            break;
        }
        return std::nullopt;
    }

    // A string-like literal: opened with its pieces' type; a single-token
    // one is written whole, any other is descended into as a run of text.
    bool literal(TSNode n, Level& L, uint16_t fl, uint32_t children, bool docstring) {
        if (emitting()) {
            // Adjacent literals are one literal of their pieces' type:
            // "a " "b" (a long string a formatter split) is "a b".
            TSNode piece = (fl & kConcat) ? ts_node_named_child(n, 0) : TSNode{};
            token(kOpen, !ts_node_is_null(piece) && (spec_.flagsOf(piece) & kStringish)
                             ? std::string_view(spec_.typeToken[spec_.index(piece)])
                             : std::string_view(spec_.typeToken[L.sym]));
        }
        if (children == 0) {
            // A literal that is a single token: 'a', `<stdio.h>`.
            std::string_view t = text(ts_node_start_byte(n), L.end);
            size_t i = 0;
            while (i < t.size() && isWord(t[i]))
                ++i;
            if (i < t.size() && isQuote(t[i]) && t.size() >= i + 2 && t.back() == t[i]) {
                prefix(t.substr(0, i));
                t = t.substr(i + 1, t.size() - i - 2);
            }
            if (emitting() && !t.empty()) item(kText, t);
            if (emitting()) out_ += char(kClose);
            return false;
        }
        L.inString = L.stringRoot = L.descended = true;
        docstring_ = docstring;
        runPrefix_.clear();
        return true;
    }

    // A named token: an identifier, a number, a piece of raw code.
    void codeLeaf(const Level& L, uint16_t fl, uint32_t s, uint32_t e) {
        if (!emitting()) return;
        std::string_view t = text(s, e);
        if (fl & kRawCode) {
            std::string code;
            compactCode(t, code);
            emitLeaf(spec_.typeToken[L.sym], code);
        } else {
            emitLeaf(spec_.typeToken[L.sym], (fl & kNumber) ? number(t) : collapse(t));
        }
    }

    void leave() {
        Level& L = levels_.back();
        if (L.descended) gap(L, L.end);
        if (L.stringRoot) {
            flushRun();
            docstring_ = false;
            if (emitting()) out_ += char(kClose);
        } else if (L.closeNeeded && emitting()) {
            out_ += char(kClose);
        }
        if (L.nameSymbol >= 0) {
            SymbolRecord& r = records_[size_t(L.nameSymbol)];
            if (r.nameBegin == kNoSpan) {
                r.nameBegin = L.nameBegin;
                r.nameEnd = out_.size();
            }
        }
        if (L.bodySymbol >= 0) {
            SymbolRecord& r = records_[size_t(L.bodySymbol)];
            if (r.bodyBegin == kNoSpan) {
                r.bodyBegin = L.bodyBegin;
                r.bodyEnd = out_.size();
            }
        }
        if (L.frame >= 0) {
            SymbolRecord& r = records_[size_t(L.frame)];
            r.streamEnd = out_.size();
            r.subtreeEnd = symbols_.size();
            open_.pop_back();
            openNames_.pop_back();
        }
        if (L.scopePushed) scopes_.pop_back();
        if (!wraps_.empty())
            std::erase_if(wraps_, [&](const Wrap& w) { return w.outer == L.node.id; });
        uint32_t end = L.end;
        TSSymbol sym = L.sym;
        bool extra = L.extra;
        levels_.pop_back();
        if (!levels_.empty()) {
            Level& p = levels_.back();
            p.lastEnd = end;
            ++p.childIndex;
            if (!extra) {
                p.prevSym = sym;
                p.hasPrev = true;
            }
        }
    }

    // Classifies a definition node and opens its symbol and scope. True when
    // the symbol was taken over from the earlier extraction instead, so its
    // subtree is not walked.
    bool define(TSNode n, Level& L, const Level* parent) {
        if (preopened_.node == n.id) {
            // Opened at its leading attribute or decorator (preopen()).
            L.frame = preopened_.frame;
            L.scopePushed = true;
            preopened_ = {};
            return false;
        }
        Def d;
        if (!classifyAt(n, parent ? parent->node : TSNode{}, d)) return false;
        std::string qualified = qualify(d);
        if (!d.scopeOnly && takeOver(n, d, qualified)) return true;
        L.frame = open(n, n, d, std::move(qualified));
        L.scopePushed = true;
        return false;
    }

    bool classifyAt(TSNode n, TSNode parent, Def& d) {
        const Scope* scope = scopes_.empty() ? nullptr : &scopes_.back();
        DefContext ctx{spec_, src_, scope, parent, namespaces_};
        if (!spec_.classify(ctx, n, d) || !d.kind) return false;
        if (ts_node_is_null(d.body))
            d.body = field(spec_, ts_node_is_null(d.inner) ? n : d.inner, spec_.f.body);
        return true;
    }

    std::string qualify(const Def& d) const {
        const Scope* scope = scopes_.empty() ? nullptr : &scopes_.back();
        if (spec_.flat || d.global) return d.name;
        std::string qualified = scope ? scope->qualified : std::string();
        for (auto* part : {&d.qualifier, &d.name}) {
            if (part->empty()) continue;
            if (!qualified.empty()) qualified += spec_.sep;
            qualified += *part;
        }
        return qualified;
    }

    // Opens the symbol (unless `d` is a scope only) and the scope of the
    // definition node `n`, its text starting at `start`: its frame, or -1.
    int32_t open(TSNode n, TSNode start, Def& d, std::string qualified) {
        const Scope* scope = scopes_.empty() ? nullptr : &scopes_.back();
        if (!ts_node_is_null(d.inner))
            wraps_.push_back(
                {d.inner.id, ts_node_start_byte(d.inner), ts_node_end_byte(d.inner), n.id});
        if (std::string_view(d.kind) == "namespace") pushNamespace(d.name);
        int32_t frame = -1;
        if (!d.scopeOnly) {
            Symbol sym;
            sym.name = d.name;
            sym.qualified = qualified;
            if (!ts_node_is_null(d.signatureOf) && spec_.sign)
                sym.signature = spec_.sign(DefContext{spec_, src_, scope, TSNode{}, namespaces_},
                                           d.signatureOf);
            sym.kind = d.kind;
            sym.hasError = ts_node_has_error(n);
            sym.startByte = ts_node_start_byte(start);
            sym.endByte = ts_node_end_byte(n);
            TSPoint a = ts_node_start_point(start), b = ts_node_end_point(n);
            std::string_view prelude;
            if (prelude_.second == sym.startByte && prelude_.first < prelude_.second) {
                prelude = text(prelude_.first, prelude_.second);
                for (char c : prelude)
                    a.row -= c == '\n';
                size_t nl = prelude_.first == 0 ? std::string_view::npos
                                                : src_.rfind('\n', prelude_.first - 1);
                a.column = prelude_.first - uint32_t(nl == std::string_view::npos ? 0 : nl + 1);
                sym.startByte = prelude_.first;
            }
            prelude_ = {0, 0};
            sym.startLine = a.row;
            sym.startColumn = a.column;
            sym.endLine = b.row;
            sym.endColumn = b.column;
            sym.nameLine =
                ts_node_is_null(d.nameNode) ? a.row : ts_node_start_point(d.nameNode).row;
            frame = int32_t(symbols_.size());
            symbols_.push_back(std::move(sym));
            SymbolRecord r;
            r.parent = open_.empty() ? kNoSpan : open_.back();
            r.streamBegin = r.streamEnd = out_.size();
            r.nameByte = ts_node_is_null(d.nameNode) ? symbols_.back().startByte
                                                     : ts_node_start_byte(d.nameNode);
            r.nodeType = ts_node_symbol(n);
            r.namespaces = namespaceKey_;
            records_.push_back(r);
            open_.push_back(size_t(frame));
            openNames_.push_back(identityNames(symbols_.back()));
            if (!ts_node_is_null(d.nameNode))
                pending_.push_back({d.nameNode.id, size_t(frame), false});
            if (!ts_node_is_null(d.body)) pending_.push_back({d.body.id, size_t(frame), true});
            if (!prelude.empty()) {
                std::string code;
                compactCode(prelude, code);
                item(kGap, code);
            }
        }
        if (!d.scopeName.empty()) {
            qualified = scope && !spec_.flat ? scope->qualified : std::string();
            if (!qualified.empty()) qualified += spec_.sep;
            qualified += d.scopeName;
        }
        scopes_.push_back(Scope{std::move(qualified), d.name, d.kind});
        return frame;
    }

    // At a prelude (a Rust attribute, a decorator of a class member): when
    // the definition it introduces follows, that definition opens here, so
    // its range, and its digests, take in what introduces it. The symbol
    // is then walked, never taken over from an earlier extraction.
    void preopen(TSNode n, const Level* parent) {
        if (preopened_.node) return; // a second attribute of the same definition
        // The next named sibling, past more preludes and comments (from a
        // copy of the cursor: asking the node would walk down from the root).
        Cursor c(cursor_);
        TSNode d{};
        while (ts_tree_cursor_goto_next_sibling(c.get())) {
            TSNode s = c.node();
            if (!ts_node_is_named(s) || (spec_.flagsOf(s) & (kPrelude | kComment))) continue;
            d = s;
            break;
        }
        if (ts_node_is_null(d) || !(spec_.flagsOf(d) & kDefinition)) return;
        Def def;
        if (!classifyAt(d, parent ? parent->node : TSNode{}, def) || def.scopeOnly) return;
        std::string qualified = qualify(def);
        int32_t frame = open(d, n, def, std::move(qualified));
        preopened_ = {d.id, frame};
    }

    // The names a symbol's shape masks (Occurrence): its own, then those of
    // its qualifier, at most 254 of them.
    static std::vector<std::string> identityNames(const Symbol& s) {
        std::vector<std::string> names{s.name};
        auto parts = components(s.qualified);
        if (!parts.empty()) parts.pop_back(); // the symbol's own name
        for (auto part : parts)
            if (names.size() < 255) names.emplace_back(part);
        return names;
    }

    void pushNamespace(const std::string& name) {
        namespaces_.push_back(name);
        namespaceKey_ = foldNamespace(namespaceKey_, name);
    }

    // Takes the symbol at `n`, with every symbol nested in it, over from the
    // earlier extraction when nothing that decides them can have changed: the
    // node's extent is clean (no edit or re-parsed range touched it, so its
    // text and subtree are the same), its node type, name, qualified name and
    // kind are the same (so its nested symbols are classified in the same
    // scope), the same namespaces were known, and its enclosing symbols have
    // the same names (whose spellings inside it their shapes mask). Its
    // items are copied, not walked; positions move to where the node is now;
    // digests are kept, so nothing of it is hashed again.
    bool takeOver(TSNode n, const Def& d, const std::string& qualified) {
        if (reuseAt_.empty()) return false;
        // Error recovery is not a function of a node's text alone: a
        // re-parse can recover differently inside an extent no edit touched,
        // and the changed ranges do not always say so (fuzzing found a
        // definition with a broken parameter list whose digest changed
        // although its text had not). A node holding an error is walked.
        if (ts_node_has_error(n)) return false;
        uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
        auto it = reuseAt_.find(extentKey(start, end));
        if (it == reuseAt_.end() || it->second == kNoSpan) return false;
        const size_t i = it->second;
        const SymbolRecord& top = reuse_->records[i];
        const Symbol& old = reuse_->symbols[i];
        if (top.nodeType != ts_node_symbol(n) || top.namespaces != namespaceKey_ ||
            old.kind != d.kind || old.name != d.name || old.qualified != qualified)
            return false;
        // The old encloser k levels up is the open frame k levels up.
        std::vector<std::pair<size_t, size_t>> enclosers; // old index -> new index
        size_t up = top.parent, depth = open_.size();
        for (; up != kNoSpan && depth > 0; up = reuse_->records[up].parent) {
            size_t now = open_[--depth];
            if (reuse_->symbols[up].name != symbols_[now].name) return false;
            enclosers.push_back({up, now});
        }
        if (up != kNoSpan || depth != 0) return false;

        const TSPoint at = ts_node_start_point(n);
        const uint32_t oldLine = old.startLine, oldColumn = old.startColumn;
        auto move = [&](uint32_t& line, uint32_t& column) {
            if (line == oldLine) column = column - oldColumn + at.column;
            line = line - oldLine + at.row;
        };
        const size_t base = symbols_.size();
        const size_t streamAt = out_.size();
        auto streamMove = [&](size_t& p) {
            if (p != kNoSpan) p = p - top.streamBegin + streamAt;
        };
        for (size_t j = i; j < top.subtreeEnd; ++j) {
            Symbol s = reuse_->symbols[j];
            s.startByte = s.startByte - old.startByte + start;
            s.endByte = s.endByte - old.startByte + start;
            s.nameLine = s.nameLine - oldLine + at.row;
            move(s.startLine, s.startColumn);
            move(s.endLine, s.endColumn);
            SymbolRecord r = reuse_->records[j];
            r.nameByte = r.nameByte - old.startByte + start;
            r.parent = j == i ? (open_.empty() ? kNoSpan : open_.back()) : r.parent - i + base;
            r.subtreeEnd = r.subtreeEnd - i + base;
            streamMove(r.streamBegin);
            streamMove(r.streamEnd);
            streamMove(r.nameBegin);
            streamMove(r.nameEnd);
            streamMove(r.bodyBegin);
            streamMove(r.bodyEnd);
            r.known = true;
            r.clean = true;
            if (s.kind == "namespace") pushNamespace(s.name);
            symbols_.push_back(std::move(s));
            records_.push_back(r);
        }
        const auto& occ = reuse_->occurrences;
        auto o = std::lower_bound(occ.begin(), occ.end(), top.streamBegin,
                                  [](const Occurrence& x, size_t p) { return x.begin < p; });
        for (; o != occ.end() && o->begin < top.streamEnd; ++o) {
            size_t owner = kNoSpan;
            if (o->owner >= i && o->owner < top.subtreeEnd) {
                owner = o->owner - i + base;
            } else {
                for (auto [was, now] : enclosers)
                    if (was == o->owner) owner = now;
            }
            if (owner != kNoSpan)
                occurrences_.push_back({o->begin - top.streamBegin + streamAt,
                                        o->end - top.streamBegin + streamAt, owner, o->which});
        }
        out_.append(reuse_->stream, top.streamBegin, top.streamEnd - top.streamBegin);
        return true;
    }
};

} // namespace

Extraction extractFromTree(const LangSpec& spec, const TSTree* tree, std::string_view src,
                           const Extraction* reuse, std::string* stream, const Unparsed* unparsed,
                           std::string_view formerName) {
    if (!tree) return {};
    Walker w(spec, src, reuse, unparsed, formerName);
    w.walk(ts_tree_root_node(tree));
    return w.finish(stream);
}

} // namespace engram::syntax::detail
