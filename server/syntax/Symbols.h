// Symbols of a source file and a formatting-blind hash of each definition.
//
// A symbol anchor names a definition by its qualified path in the language's
// idiom and remembers two digests of its syntax tree:
//   - hash: every node type and every token of the definition, with comments,
//     white space and formatter-owned punctuation (commas, semicolons,
//     redundant parentheses, quote style...) left out. Equal hashes mean the
//     code is the same up to a formatter pass; any change to the syntax tree
//     changes it.
//   - shapeHash: the same digest with the symbol's own defining name left out,
//     so a pure rename keeps it (how a renamed or moved anchor is found again).
//   - tokenHash: the tokens alone (what is compared where the parse had
//     errors, see Symbol::tokenHash).
//   - headHash: the definition without its body and name (decorators,
//     attributes, modifiers, parameters, return type, bases): what tells
//     same-named definitions apart (overloads, a property's getter and
//     setter, cfg-gated twins) however the code is formatted.
//
// A qualified name need not be unique in a file (overloads, twins under
// conditional compilation, same-named helpers in sibling callbacks). A
// definition's identity is its qualified name and kind, then its headHash,
// then its ordinal among the same-named: the anchor records all three and
// resolves by them in that order (engine/Anchoring.cpp).
//
// Nothing here exposes tree-sitter: only syntax/*.cpp include its headers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::syntax {

// Byte ranges [begin, end) of a text, in order.
using Spans = std::vector<std::pair<uint32_t, uint32_t>>;

// The version of the digest rules: which definitions there are, what they
// are named, and what hash, shapeHash, headHash and tokenHash cover and
// ignore (ARCHITECTURE.md "Digest versions"). Every anchor records the
// version that stamped it (`rules=` in its claim file): an anchor stamped by
// other rules than these is not judged by comparing digests alone.
// fixtures/digests pins the digests of every fixture definition under this
// version (tests/unit/DigestsTest.cpp): a change to any of the above fails
// that test until this is bumped and scripts/update-digests.sh is run.
// 1: the first versioned rules. 2: a TypeScript interface or object type
// whose generic call signatures start their own lines is read whole (Parse.cpp,
// separateSignatures), not cut at the first of them.
inline constexpr int kDigestRules = 2;
// The earliest version extractSymbols still extracts by: from it to
// kDigestRules, anchors are judged by the rules that stamped them, exactly
// and without git (ARCHITECTURE.md "Digest versions").
inline constexpr int kKeptRules = 1;

// Whether extracting `language` by the digest rules `rules` gives, for every
// text, exactly what today's rules give: a version changes some languages
// and leaves the others as they were (1 -> 2: TypeScript and TSX only). An
// anchor a kept version stamped in another language is judged by today's
// symbols, with no second extraction. Held against the kept goldens by
// tests/unit/DigestsTest.cpp.
bool extractsAsToday(std::string_view language, int rules);

struct Symbol {
    std::string name;      // "validate", "it(\"parses\")", "impl Display for P"
    std::string qualified; // "TokenValidator.validate", "ns::Parser::parse", "<P as Display>::fmt"
    // The parameter types, in languages that overload by them (C++, Java,
    // TypeScript): "(Object,Class<?>)", "(size_t) const". Empty elsewhere.
    // Written after the qualified name it picks one overload: G.toJson(Object).
    std::string signature;
    // function | method | constructor | class | struct | interface | enum | type | trait |
    // namespace | module | impl | macro | constant
    std::string kind;
    uint32_t startByte = 0, endByte = 0;
    // 0-based; columns count bytes. The end is exclusive.
    uint32_t startLine = 0, startColumn = 0, endLine = 0, endColumn = 0;
    uint32_t nameLine = 0; // the line of its name (its first line when it has none)
    std::string hash;      // 32 hex characters
    std::string shapeHash; // 32 hex characters; the own name left out
    std::string headHash;  // 16 hex characters; the body and the own name left out
    // 16 hex characters: the definition's tokens alone, without the tree's
    // shape. Where the parser had to recover from an error (hasError), how
    // it recovered depends on layout (a macro before a C name, an interface
    // member without its semicolon), so the tokens are what is compared.
    std::string tokenHash;
    bool hasError = false;
    // 1-based place among the file's symbols with the same qualified name and
    // kind, in document order, and how many there are; how many of those
    // are identical copies of this one (the same hash), itself included.
    uint32_t ordinal = 1, twins = 1, copies = 1;
};

// The name a user writes to pick this symbol: the qualified name, plus the
// signature when it has one ("G.toJson(Object,Class<?>)").
std::string writtenName(const Symbol& s);

// Every definition in the file, in document order (a class before its
// methods). Unknown language: empty.
//
// With `formerName`, every definition's shape (and so its hash) is taken
// with that name left out wherever it is spelled, as its own name is: the
// shape a definition renamed from `formerName` is compared by when its
// body kept other spellings of the old name (a local variable named like
// the function). Only for that comparison: these digests are no anchor's.
//
// `unreadable`, when given, receives the byte spans of the code the parser
// could not read even with its errors contained (where a definition may
// be that no symbol stands for), in order.
//
// `rules`: the digest rules to extract by, today's or a kept earlier
// version (kKeptRules: what an anchor they stamped is judged by).
std::vector<Symbol> extractSymbols(std::string_view language, std::string_view source,
                                   std::string_view formerName = {}, Spans* unreadable = nullptr,
                                   int rules = kDigestRules);

// The last component of a qualified name: a definition's own name
// ("Command.displayName" -> "displayName", "<P as Display>::fmt" -> "fmt").
std::string_view ownName(std::string_view qualified);

// Indices of the symbols a user-given name designates: the exact qualified
// match(es) if any (the query as it is, then without the blanks around it,
// so every symbol answers to its writtenName even where a quoted key keeps
// blanks: `o.turn ` beside `o.turn`); else the symbols whose qualified names equal the query
// once separators are normalised ("Parser.parse" == "Parser::parse" ==
// "(*Parser).parse"); else those whose trailing components match it
// ("validate" -> TokenValidator.validate). A Rust `<P as Display>` component
// is matched by `P` and by `Display` too. A query ending in a parameter list
// ("toJson(Object, Class<?>)") keeps only the overloads with that signature
// (white space aside). Several indices mean the name is ambiguous: the caller
// reports the candidates. Empty: no match.
std::vector<size_t> resolveSymbol(const std::vector<Symbol>& symbols, std::string_view query);

// The innermost symbol whose range holds the 0-based (line, byte column).
std::optional<size_t> innermostAt(const std::vector<Symbol>& symbols, uint32_t line,
                                  uint32_t column);

// The definition a 0-based line designates (`--anchor PATH:LINE`): of the
// symbols whose lines hold it, the innermost of those named on it, else the
// innermost. So the line of a definition's first token (`export`, a
// decorator, an attribute, a macro before a C name), the line of its name
// (`} ct_data;` names the typedef, not the struct it closes) and any line
// inside it designate that definition.
std::optional<size_t> definitionAtLine(const std::vector<Symbol>& symbols, uint32_t line);

// An open document kept parsed across edits (an editor's unsaved buffer):
// edits re-parse incrementally; symbols are recomputed lazily.
class Document {
public:
    Document(std::string language, std::string text);
    ~Document();
    Document(Document&&) noexcept;
    Document& operator=(Document&&) noexcept;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    // Replaces the bytes [startByte, oldEndByte) with newText. Offsets past
    // the end are clamped.
    void edit(uint32_t startByte, uint32_t oldEndByte, std::string_view newText);
    // Replaces the whole text (a fresh parse).
    void reset(std::string text);

    const std::string& language() const;
    const std::string& text() const;
    const std::vector<Symbol>& symbols();
    // The code of the current text the parser could not read (see
    // extractSymbols), as of symbols().
    const Spans& unreadable();
    // How many of the symbols the last extraction took over unchanged from
    // the one before (not walked, not hashed): what incremental extraction
    // saved, for tests and benchmarks.
    size_t reusedSymbols() const;
    // The symbols of the current tree by a full walk, nothing taken over:
    // what symbols() must equal (tests and benchmarks compare the two).
    std::vector<Symbol> walkAfresh() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace engram::syntax
