// Internals of syntax/: the per-grammar tables the extraction walk runs on.
// Included only by syntax/*.cpp (the one place tree_sitter/api.h may appear).
#pragma once
#include "syntax/Symbols.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <vector>

namespace engram::syntax::detail {

// The grammar behind a language name, or nullptr (Languages.cpp).
const TSLanguage* grammarFor(std::string_view language);

// A tree cursor, deleted with its scope. next(down) steps a preorder walk:
// into the first child when `down`, else on to the next sibling of the node
// or of its nearest ancestor that has one; false once the walk is over.
class Cursor {
public:
    explicit Cursor(TSNode n)
        : c_(ts_tree_cursor_new(n)) {}
    explicit Cursor(const TSTreeCursor* from)
        : c_(ts_tree_cursor_copy(from)) {}
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    ~Cursor() { ts_tree_cursor_delete(&c_); }

    TSTreeCursor* get() { return &c_; }
    TSNode node() const { return ts_tree_cursor_current_node(&c_); }
    bool next(bool down) {
        if (down && ts_tree_cursor_goto_first_child(&c_)) return true;
        while (!ts_tree_cursor_goto_next_sibling(&c_))
            if (!ts_tree_cursor_goto_parent(&c_)) return false;
        return true;
    }

private:
    TSTreeCursor c_;
};

enum class Lang : uint8_t { Python, JavaScript, TypeScript, Tsx, C, Cpp, Go, Rust, Java };

// Per node type, computed once per grammar from the type names.
enum NodeFlag : uint16_t {
    kComment = 1 << 0,    // an extra (comment, line continuation): skipped with its subtree
    kStringish = 1 << 1,  // a literal whose text is hashed as one run, quotes dropped
    kNumber = 1 << 2,     // numeric literal: case-normalised
    kUnwrap = 1 << 3,     // redundant grouping: only the inside is hashed
    kEscape = 1 << 4,     // escape sequence inside a literal
    kComma = 1 << 5,      // ","
    kSemicolon = 1 << 6,  // ";"
    kDefinition = 1 << 7, // the language's classifier is asked about it
    kHook = 1 << 8,       // the language's normalisation hook is asked about it
    kContent = 1 << 9,    // the text inside a literal ("string_content", "string_fragment")
    kNamed = 1 << 10,     // a named node type (not an anonymous token)
    kConcat = 1 << 11,    // adjacent literals that make one value ("a " "b")
    kPrelude = 1 << 12,   // written before a definition, as its sibling, and part of it
    kTokens = 1 << 13,    // unparsed tokens (a macro's body): punctuation compares
                          // character by character (`>>` == `> >`)
    kRawCode = 1 << 14,   // a leaf holding code as raw text (a #define's body):
                          // compared without its layout (compactCode)
};

// One enclosing scope while walking: a symbol, or a non-symbol scope such as a
// Rust impl block or a JavaScript object literal bound to a name.
struct Scope {
    std::string qualified;
    std::string name; // the last component
    const char* kind; // the symbol kind, or "impl" / "object"
};

// What a classifier says about a definition node.
struct Def {
    const char* kind = nullptr; // nullptr: not a symbol
    TSNode nameNode{};          // the defining name (left out of shapeHash)
    TSNode body{};              // the body (left out of headHash), if any
    std::string name;           // the display name ("~Parser", "operator==")
    std::string qualifier;      // extra leading components, already joined ("ns::Parser")
    TSNode signatureOf{};       // what Symbol::signature is read from (LangRules::sign)
    // What the symbol's children are qualified by, when not its own
    // qualified name (a Rust `impl Display for P` block: "<P as Display>").
    std::string scopeName;
    bool scopeOnly = false; // a scope that is not itself a symbol (an object literal)
    bool global = false;    // named by `name` alone, whatever encloses it (a C macro)
    TSNode inner{};         // for wrappers: the wrapped definition node
};

struct LangSpec;

struct DefContext {
    const LangSpec& spec;
    std::string_view src;
    const Scope* scope;                         // the innermost scope, or nullptr
    TSNode parent;                              // the definition node's parent (may be null)
    const std::vector<std::string>& namespaces; // C++ namespace names met so far
};

// What a normalisation hook decides for one node.
struct HookResult {
    enum Action : uint8_t {
        None,        // hash it as usual
        Skip,        // leave the node out
        Unwrap,      // hash only its named children
        Leaf,        // hash it as a named leaf of `type` with `text` (under `field` if set)
        Docstring,   // a literal used as documentation: per-line white space left out
        KeepCommas,  // the commas directly inside it carry meaning
        Group,       // a grouping written with or without brackets: hashed as a
                     // node of `type` (its own when empty), its own brackets
                     // (parentheses, square brackets, braces) left out
        Transparent, // brackets that may be there or not: left out, with no
                     // node of their own; what they hold is hashed in place
    } action = None;
    std::string_view field, type, text;

    HookResult() = default;
    HookResult(Action a)
        : action(a) {}
    HookResult(Action a, std::string_view f, std::string_view t, std::string_view x)
        : action(a)
        , field(f)
        , type(t)
        , text(x) {}
};

struct HookContext {
    const LangSpec& spec;
    std::string_view src;
    TSNode parent;
    TSFieldId field;         // the node's field in its parent, 0 if none
    std::string_view before; // the type of the sibling before it ("=>"), empty if none
};

using Classifier = bool (*)(const DefContext&, TSNode node, Def& out);
// Symbol::signature from Def::signatureOf; asked only of the symbols a walk
// opens (not of those taken over from an earlier extraction).
using Signer = std::string (*)(const DefContext&, TSNode);
using Hook = HookResult (*)(const HookContext&, TSNode node);

struct Fields {
    TSFieldId name = 0, body = 0, declarator = 0, type = 0, value = 0, key = 0, parameters = 0,
              parameter = 0, receiver = 0, definition = 0, superclasses = 0, arguments = 0,
              trait = 0, scope = 0, pattern = 0, property = 0, declaration = 0, left = 0, right = 0,
              object = 0, function = 0, fieldId = 0;
};

struct LangSpec {
    Lang lang;
    const TSLanguage* ts = nullptr;
    std::string_view sep; // qualified-name separator
    bool flat = false;    // C: names are not qualified by enclosing definitions
    TSSymbol errorIndex = 0;
    std::vector<uint16_t> flags;            // by index(node)
    std::vector<std::string_view> typeName; // by index(node)
    std::vector<std::string_view> fieldName;
    // What the hash stream writes for a named node type / a field: 2 bytes
    // digested from the name (stable across grammar versions that keep the
    // name, and short); for a name whose digest collides with another name's
    // in the same grammar, 0xffff, its length and the name itself.
    std::vector<std::string> typeToken;
    std::vector<std::string> fieldToken;
    Fields f;
    Classifier classify = nullptr;
    Hook hook = nullptr;
    Signer sign = nullptr;

    // The table index of a node: its symbol id; ERROR nodes (whose ids lie
    // outside the grammar's range) share the last entry.
    TSSymbol index(TSNode n) const {
        TSSymbol s = ts_node_symbol(n);
        return s < errorIndex ? s : errorIndex;
    }
    std::string_view type(TSNode n) const { return typeName[index(n)]; }
    uint16_t flagsOf(TSNode n) const { return flags[index(n)]; }
    std::string_view tokenForType(std::string_view name) const;
    std::string_view tokenForField(std::string_view name) const;
};

// The tables for a language name (cached, thread-safe), or nullptr.
const LangSpec* langSpec(std::string_view language);

constexpr size_t kNoSpan = ~size_t(0);
using Digest = std::array<unsigned char, 32>; // SHA-256

// What the walk knows about one symbol beyond the Symbol itself: where its
// items lie in the stream, its nesting, and its full digests. Kept with an
// open document so the next walk after an edit can take over every
// definition the edit did not touch instead of walking and hashing it again.
struct SymbolRecord {
    size_t parent = kNoSpan; // the enclosing symbol
    size_t subtreeEnd = 0;   // one past its last nested symbol
    size_t streamBegin = 0, streamEnd = 0;
    size_t nameBegin = kNoSpan, nameEnd = kNoSpan; // its defining name's items
    size_t bodyBegin = kNoSpan, bodyEnd = kNoSpan; // its body's items
    uint32_t nameByte = 0;                         // where its name starts in the text
    TSSymbol nodeType = 0;
    // The C++ namespaces known when the walk met it (they decide whether an
    // out-of-line `a::f` is a function or a method): an order-sensitive hash.
    uint64_t namespaces = 0;
    bool known = false; // digests carried over from an earlier walk
    bool clean = true;  // in a kept Extraction: no edit has touched it since
    Digest hash{}, shape{}, head{}, tokens{};
};

// A leaf inside a symbol whose text is one of the names in the symbol's
// qualified name: its own (a recursive call, a constructor's declaration, a
// method taking its class) or an encloser's (a Go receiver, a C++
// out-of-line `Parser::`, a method naming its class). The span of the leaf's
// text in the stream, masked in the symbol's shape so a rename that renames
// these too keeps the shape.
struct Occurrence {
    size_t begin, end;
    size_t owner;  // the symbol
    uint8_t which; // 0: its own name; k: the k-th component of its qualifier
};

// The components of a qualified name: "(*Parser).parse", "Parser::parse"
// and "Parser.parse" all give {"Parser", "parse"} (Symbols.cpp).
std::vector<std::string_view> components(std::string_view qualified);

struct Extraction {
    std::vector<Symbol> symbols;
    std::vector<SymbolRecord> records;   // parallel to symbols
    std::string stream;                  // the items (Walk.cpp)
    std::vector<Occurrence> occurrences; // in stream order
    // The comments' byte spans, in order (what the token digest leaves out;
    // those inside definitions taken over unwalked are not listed).
    std::vector<std::pair<uint32_t, uint32_t>> comments;
    // Code the parser could not read: the spans of the outermost ERROR
    // nodes of the trees the symbols came from, in order. Set by
    // recovered() (the walk leaves it empty; see errorSpans).
    std::vector<std::pair<uint32_t, uint32_t>> unreadable;
};

// Every symbol of a parsed tree (Walk.cpp). With `reuse` (the extraction of
// the same document before some edits, its records' `clean` flags and byte
// offsets kept up to date by the caller), a definition whose node is clean
// and unchanged in position and context is taken over with all it holds
// rather than walked. `stream`, when given, receives the normalised item
// stream the hashes are taken over (for debugging; reused definitions write
// nothing to it). `formerName`, when given, is masked in every symbol's
// shape wherever it is spelled, as the symbol's own name is (see
// extractSymbols).
// What the parser was not shown (C and C++): the macros opening
// declarations, which belong to the definition they precede (its range and
// its digests take them in), and the comments inside directives.
struct Unparsed {
    std::vector<std::pair<uint32_t, uint32_t>> macros;   // declarationMacros
    std::vector<std::pair<uint32_t, uint32_t>> comments; // directiveComments
};

Extraction extractFromTree(const LangSpec& spec, const TSTree* tree, std::string_view src,
                           const Extraction* reuse = nullptr, std::string* stream = nullptr,
                           const Unparsed* unparsed = nullptr, std::string_view formerName = {});

// A token of C or C++ text (CLexer.cpp). kind: 'w' a word or a number, 'l'
// a string or character literal, 'c' a comment, 'q' "::", else the
// punctuation character itself.
struct CToken {
    uint32_t begin, end;
    char kind;
    bool directive; // on a preprocessor directive's line(s)
    bool opens;     // the `#` that opens a directive
};
std::vector<CToken> lexC(std::string_view text);

// C and C++ text laid out one way for every layout (Canonical.cpp): comments
// dropped, blanks only where two tokens would merge, each directive on a
// line of its own. origin[i] is the byte of the original text that byte i
// came from (an inserted blank: the next token's); origin has one entry
// more than text, the original's size.
struct Canonical {
    std::string text;
    std::vector<uint32_t> origin;
};
Canonical canonicalC(std::string_view src, const std::vector<CToken>& tokens);

// C and C++ code the parser failed on at the top level (an ERROR among the
// root's children, which can swallow every definition after it): the byte
// ranges of its top-level pieces, each ending after a `}` or `;` that closes
// a top-level declaration (Macros.cpp). Parsed one by one, each piece is
// parsed as it would be in a file that held it alone.
std::vector<std::pair<uint32_t, uint32_t>> topLevelPieces(std::string_view text,
                                                          const std::vector<CToken>& tokens);

// Parsing (Parse.cpp). Trees are owned; byte offsets and points are always
// the file's own, whatever part of it a parse was shown.
struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

bool cFamily(const LangSpec* spec);
// The 0-based row and byte column of a byte offset.
TSPoint pointAt(std::string_view text, uint32_t offset);
// What the parser is not shown: nothing outside C and C++.
Unparsed unparsedOf(const LangSpec* spec, std::string_view src);
// Unparsed's spans together, sorted.
Spans hiddenSpans(const Unparsed& u);
// Parses `src` with everything but `hidden` as the included ranges.
TreePtr parseText(TSParser* parser, const TSTree* old, std::string_view src, const Spans& hidden);
// Parses `src[begin, end)` alone, `hidden` left out.
TreePtr parseRange(TSParser* parser, std::string_view src, uint32_t begin, uint32_t end,
                   const Spans& hidden);

// The spans of the outermost ERROR nodes under `root` within [begin, end)
// (clipped to it), in order: only the paths holding an error are walked.
Spans errorSpans(TSNode root, uint32_t begin, uint32_t end);

// The symbols of a tree whose parse has errors, with the errors contained
// (ARCHITECTURE.md, "Parse errors are contained"): where an error broke
// the file's top level, its top-level pieces are parsed one by one, so an
// error swallows no definition outside its own piece. nullopt when the tree
// as it is holds every definition (no error, or, outside C and C++, none
// at the top level); the caller then walks the tree itself.
// `rules`: the digest rules version (2 on: TypeScript's generic call
// signatures separated first).
std::optional<Extraction> recovered(const LangSpec* spec, TSParser* parser, const TSTree* tree,
                                    std::string_view src, std::string_view formerName = {},
                                    int rules = kDigestRules);

// Hashes the symbols whose records are not `known` (Digest.cpp): fills their
// records' digests and Symbol::hash / shapeHash / headHash.
void digestSymbols(Extraction& x, std::string_view src);

// Sets every symbol's ordinal and twins (Symbols.cpp).
void numberTwins(std::vector<Symbol>& symbols);

// Text normalisation of tokens (Literal.cpp). The string_view results may
// point into `scratch`.
// White space runs become one blank; leading and trailing white space go.
std::string_view collapseSpace(std::string_view t, std::string& scratch);
// Numeric literals compare case-blind ("0XFF" == "0xff"); in JavaScript and
// TypeScript decimals also compare as prettier prints them (".5" == "0.50").
std::string_view canonicalNumber(Lang lang, std::string_view t, std::string& scratch);
// A documentation string compares line by line without the indentation black
// re-does: each line trimmed, leading and trailing blank lines dropped.
void docstringText(std::string_view run, std::string& out);
// Code kept as raw text, without its layout: white space and line
// continuations dropped, but for one blank where two words, or two
// operator characters, would otherwise run together ("a - -b" stays apart
// from "a--b").
void compactCode(std::string_view text, std::string& out);
// Python string prefixes compare as black writes them: lower case, no "u".
void pythonPrefix(std::string_view prefix, std::string& out);

// C and C++: the byte spans of macros that open a declaration as an
// attribute would (`FMT_BEGIN_NAMESPACE namespace detail {`, `FMT_FUNC void
// f()`), which the parser is not shown (Macros.cpp). Decided on tokens, so
// alike for every layout. Sorted.
std::vector<std::pair<uint32_t, uint32_t>> declarationMacros(std::string_view text,
                                                             const std::vector<CToken>& tokens);
// C and C++: the block comments inside preprocessor directives (a comment
// in a continued #define ends the grammar's macro body), also not shown.
std::vector<std::pair<uint32_t, uint32_t>> directiveComments(std::string_view text,
                                                             const std::vector<CToken>& tokens);

// Small helpers shared by the language rules (LangSpec.cpp).
std::string_view nodeText(std::string_view src, TSNode n);
// The node's tokens without comments (and without the subtrees in `skip`),
// joined with one blank between two words only ("operator new",
// "Foo<int>").
std::string compactText(std::string_view src, TSNode n, const std::vector<TSNode>* skip = nullptr);
TSNode field(const LangSpec& spec, TSNode n, TSFieldId id);
// The named, non-comment children count and the first such child.
uint32_t namedChildCount(const LangSpec& spec, TSNode n, TSNode* first = nullptr);
// The content of a string literal node without quotes (JS property names).
std::string stringContent(std::string_view src, TSNode n);
// A function value bound to a name (`f = lambda ...`, `check := func ...`,
// `auto f = [](...) {...}`, `let f = |x| ...`): fills `d` as a "function"
// named by `name`, its body the value's. False unless `name` is an
// identifier and `value` a `literal` node.
bool boundFunction(const DefContext& c, TSNode name, TSNode value, std::string_view literal,
                   Def& d);
// A call's first argument, and its last argument that `isFunction` calls a
// function (the callback of `it("x", () => ...)`, `t.Run("x", func...)`);
// nulls where there is none. Comments are no arguments.
std::pair<TSNode, TSNode> callbackArguments(const LangSpec& spec, TSNode args,
                                            bool (*isFunction)(std::string_view type));
// A string as a name component: double-quoted with JSON's escapes
// (`it("parses \"x\"")`), so any quote style gives one name.
std::string quotedName(std::string_view value);

// Per language: the node types consulted and the functions consulting them.
struct LangRules {
    std::vector<std::string_view> definitions;
    std::vector<std::string_view> hooks;
    Classifier classify = nullptr;
    Hook hook = nullptr;
    std::vector<std::string_view> preludes;  // kPrelude
    std::vector<std::string_view> tokenRuns; // kTokens
    std::vector<std::string_view> rawCode;   // kRawCode
    Signer sign = nullptr;
};
LangRules pythonRules();
LangRules jsRules(Lang lang); // JavaScript, TypeScript, TSX
LangRules cRules(Lang lang);  // C, C++
LangRules goRules();
LangRules rustRules();
LangRules javaRules();

} // namespace engram::syntax::detail
