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
    bool scopePushed = false;
    int32_t frame = -1;      // the symbol this node opened
    int32_t nameSymbol = -1; // the symbol this node names
    size_t nameBegin = 0;
    const void* innerDef = nullptr; // a wrapped definition node not to classify again
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
    Walker(const LangSpec& spec, std::string_view src, const Extraction* reuse)
        : spec_(spec)
        , src_(src)
        , reuse_(reuse) {
        out_.reserve(src.size() * 2);
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

    Extraction run(TSNode root, std::string* stream) {
        TSTreeCursor cur = ts_tree_cursor_new(root);
        cursor_ = &cur;
        bool descend = enter(root);
        for (;;) {
            if (descend && ts_tree_cursor_goto_first_child(&cur)) {
                descend = enter(ts_tree_cursor_current_node(&cur));
                continue;
            }
            bool done = false;
            for (;;) {
                leave();
                if (ts_tree_cursor_goto_next_sibling(&cur)) {
                    descend = enter(ts_tree_cursor_current_node(&cur));
                    break;
                }
                if (!ts_tree_cursor_goto_parent(&cur)) {
                    done = true;
                    break;
                }
            }
            if (done) break;
        }
        ts_tree_cursor_delete(&cur);
        cursor_ = nullptr;
        Extraction x{std::move(symbols_), std::move(records_), std::move(out_),
                     std::move(occurrences_)};
        digestSymbols(x);
        if (stream) *stream = x.stream;
        return x;
    }

private:
    const LangSpec& spec_;
    std::string_view src_;
    TSTreeCursor* cursor_ = nullptr; // positioned on the node being entered
    std::string out_;
    std::string run_; // the current literal's text
    std::string scratch_;
    bool docstring_ = false;
    std::vector<Level> levels_;
    std::vector<Symbol> symbols_;
    std::vector<SymbolRecord> records_; // parallel to symbols_
    std::vector<Occurrence> occurrences_;
    std::vector<size_t> open_; // open symbol frames
    // Per open frame: its name, then its qualifier's components (Occurrence).
    std::vector<std::vector<std::string>> openNames_;
    std::vector<Scope> scopes_;
    std::vector<std::string> namespaces_;
    uint64_t namespaceKey_ = 0; // namespaces_ folded (SymbolRecord::namespaces)
    std::vector<std::pair<const void*, size_t>> pendingNames_;
    const Extraction* reuse_;
    std::unordered_map<uint64_t, size_t> reuseAt_; // clean extent -> reuse_ index

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
            for (size_t w = 0; w < names.size(); ++w) {
                if (names[w] != text) continue;
                occurrences_.push_back({begin, out_.size(), open_[k], uint8_t(w)});
                break;
            }
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

    // Text between the previous child of `p` and `upto` that no visible token
    // covers: white space, or a hidden token (a literal's raw contents).
    void gap(Level& p, uint32_t upto) {
        if (upto <= p.lastEnd || !emitting()) return;
        std::string_view g = text(p.lastEnd, upto);
        if (p.inString) {
            run_.append(g);
            return;
        }
        if (allSpace(g)) return;
        item(kGap, collapse(g));
    }

    bool keepComma(const Level& p) const {
        if (p.keepCommas) return true;
        // An elision: "[1,,2]", "[,1]".
        if (!p.hasPrev) return false;
        std::string_view prev = spec_.typeName[p.prevSym];
        return prev == "," || prev == "[";
    }

    bool enter(TSNode n) {
        Level* parent = levels_.empty() ? nullptr : &levels_.back();
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        if (parent) gap(*parent, s);
        levels_.emplace_back();
        parent = levels_.size() > 1 ? &levels_[levels_.size() - 2] : nullptr;
        Level& L = levels_.back();
        L.node = n;
        L.end = e;
        L.lastEnd = s;
        L.sym = spec_.index(n);
        uint16_t fl = spec_.flags[L.sym];
        if (fl & kComment) {
            L.extra = true;
            return false;
        }
        if (!pendingNames_.empty()) {
            for (size_t i = 0; i < pendingNames_.size(); ++i) {
                if (pendingNames_[i].first != n.id) continue;
                L.nameSymbol = int32_t(pendingNames_[i].second);
                L.nameBegin = out_.size();
                pendingNames_.erase(pendingNames_.begin() + ptrdiff_t(i));
                break;
            }
        }
        bool named = fl & kNamed;
        uint32_t children = ts_node_child_count(n);

        if (parent && parent->inString) {
            if (children == 0) {
                if (!emitting()) return false;
                std::string_view t = text(s, e);
                std::string_view pre;
                bool plain = !(fl & (kEscape | kContent));
                if (plain && parent->childIndex == 0 && s == ts_node_start_byte(parent->node) &&
                    openingQuote(t, pre)) {
                    flushRun();
                    prefix(pre);
                } else if (plain && parent->childIndex > 0 && e == parent->end &&
                           closingQuote(t, pre)) {
                    flushRun();
                    prefix(pre);
                } else if (fl & kEscape) {
                    appendEscape(t);
                } else {
                    run_.append(t);
                }
                return false;
            }
            if (fl & kStringish) { // the literal's inner structure: transparent
                L.inString = true;
                L.descended = true;
                return true;
            }
            flushRun(); // an interpolation: hashed as code
        }

        if (!named) {
            if ((parent && parent->unwrapped) || (fl & kSemicolon) ||
                ((fl & kComma) && !(parent && keepComma(*parent)))) {
                return false;
            }
            std::string_view t = text(s, e);
            if (allSpace(t)) {
                return false;
            }
            if (emitting()) item(kAnon, t);
            return false;
        }

        // The field a named node fills (an anonymous token's field never tells
        // two trees apart); only needed while writing, and not free to ask.
        TSFieldId fid = emitting() || (fl & kHook) ? ts_tree_cursor_current_field_id(cursor_) : 0;
        HookResult hr;
        if ((fl & kHook) && spec_.hook)
            hr = spec_.hook(HookContext{spec_, src_, parent ? parent->node : TSNode{}, fid}, n);
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
        default:
            break;
        }

        if ((fl & kDefinition) && !(parent && parent->innerDef == n.id)) {
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
        if (fl & kStringish) {
            if (emitting()) token(kOpen, spec_.typeToken[L.sym]);
            if (children == 0) {
                // A literal that is a single token: 'a', `<stdio.h>`.
                std::string_view t = text(s, e), pre;
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
            docstring_ = hr.action == HookResult::Docstring;
            return true;
        }
        if (children == 0) {
            if (emitting()) {
                std::string_view t = text(s, e);
                emitLeaf(spec_.typeToken[L.sym], (fl & kNumber) ? number(t) : collapse(t));
            }
            return false;
        }
        if (emitting()) {
            token(kOpen, spec_.typeToken[L.sym]);
            L.closeNeeded = true;
        }
        L.descended = true;
        return true;
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
        if (L.frame >= 0) {
            SymbolRecord& r = records_[size_t(L.frame)];
            r.streamEnd = out_.size();
            r.subtreeEnd = symbols_.size();
            open_.pop_back();
            openNames_.pop_back();
        }
        if (L.scopePushed) scopes_.pop_back();
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
        const Scope* scope = scopes_.empty() ? nullptr : &scopes_.back();
        Def d;
        DefContext ctx{spec_, src_, scope, parent ? parent->node : TSNode{}, namespaces_};
        if (!spec_.classify(ctx, n, d) || !d.kind) return false;
        if (!ts_node_is_null(d.inner)) L.innerDef = d.inner.id;
        std::string qualified;
        if (scope && !spec_.flat) qualified = scope->qualified;
        for (auto* part : {&d.qualifier, &d.name}) {
            if (part->empty()) continue;
            if (!qualified.empty()) qualified += spec_.sep;
            qualified += *part;
        }
        if (spec_.flat) qualified = d.name;
        if (!d.scopeOnly && takeOver(n, d, qualified)) return true;
        if (std::string_view(d.kind) == "namespace") pushNamespace(d.name);
        if (!d.scopeOnly) {
            Symbol sym;
            sym.name = d.name;
            sym.qualified = qualified;
            sym.kind = d.kind;
            sym.startByte = ts_node_start_byte(n);
            sym.endByte = ts_node_end_byte(n);
            TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
            sym.startLine = a.row;
            sym.startColumn = a.column;
            sym.endLine = b.row;
            sym.endColumn = b.column;
            L.frame = int32_t(symbols_.size());
            symbols_.push_back(std::move(sym));
            SymbolRecord r;
            r.parent = open_.empty() ? kNoSpan : open_.back();
            r.streamBegin = r.streamEnd = out_.size();
            r.nodeType = ts_node_symbol(n);
            r.namespaces = namespaceKey_;
            records_.push_back(r);
            open_.push_back(size_t(L.frame));
            openNames_.push_back(identityNames(symbols_.back()));
            if (!ts_node_is_null(d.nameNode))
                pendingNames_.push_back({d.nameNode.id, size_t(L.frame)});
        }
        scopes_.push_back(Scope{std::move(qualified), d.name, d.kind});
        L.scopePushed = true;
        return false;
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
            move(s.startLine, s.startColumn);
            move(s.endLine, s.endColumn);
            SymbolRecord r = reuse_->records[j];
            r.parent = j == i ? (open_.empty() ? kNoSpan : open_.back()) : r.parent - i + base;
            r.subtreeEnd = r.subtreeEnd - i + base;
            streamMove(r.streamBegin);
            streamMove(r.streamEnd);
            streamMove(r.nameBegin);
            streamMove(r.nameEnd);
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
                           const Extraction* reuse, std::string* stream) {
    if (!tree) return {};
    Walker w(spec, src, reuse);
    return w.run(ts_tree_root_node(tree), stream);
}

} // namespace engram::syntax::detail
