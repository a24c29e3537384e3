// Per-grammar tables for the extraction walk, built once from the node type
// names the grammar declares, plus helpers the language rules share.
#include "syntax/SyntaxInternal.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <mutex>

namespace engram::syntax::detail {

namespace {

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

// Flags every grammar gets from its type names alone.
uint16_t genericFlags(std::string_view t, bool named) {
    if (!named) {
        if (t == ",") return kComma;
        if (t == ";") return kSemicolon;
        return 0;
    }
    uint16_t f = kNamed;
    if (contains(t, "comment") || t == "line_continuation") f |= kComment;
    if ((contains(t, "string") && !contains(t, "interpolation")) || t == "char_literal" ||
        t == "character_literal" || t == "rune_literal")
        f |= kStringish;
    if (contains(t, "content") || contains(t, "fragment")) f |= kContent;
    if (t == "concatenated_string") f |= kConcat;
    if (!contains(t, "type") &&
        (contains(t, "integer") || contains(t, "float") || contains(t, "number") ||
         contains(t, "int_literal") || contains(t, "imaginary")))
        f |= kNumber;
    if (t == "parenthesized_expression" || t == "parenthesized_type") f |= kUnwrap;
    if (contains(t, "escape")) f |= kEscape;
    return f;
}

uint32_t fnv1a(std::string_view s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

// See LangSpec::typeToken. `names` may repeat a name (aliases); empty names
// (anonymous tokens, field 0) get no token.
std::vector<std::string> tokens(const std::vector<std::string_view>& names,
                                const std::vector<bool>& wanted) {
    std::vector<std::string> out(names.size());
    std::vector<uint32_t> code(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        uint32_t h = fnv1a(names[i]);
        code[i] = (h ^ (h >> 16)) & 0xffff;
    }
    for (size_t i = 0; i < names.size(); ++i) {
        if (!wanted[i]) continue;
        bool unique = code[i] != 0xffff;
        for (size_t j = 0; j < names.size() && unique; ++j)
            unique = !(wanted[j] && code[j] == code[i] && names[j] != names[i]);
        if (unique) {
            out[i] = {char(code[i] & 0xff), char(code[i] >> 8)};
        } else {
            out[i] = {char(0xff), char(0xff), char(std::min<size_t>(names[i].size(), 0x7f))};
            out[i].append(names[i].substr(0, 0x7f));
        }
    }
    return out;
}

std::unique_ptr<LangSpec> build(Lang lang, const char* name) {
    const TSLanguage* ts = grammarFor(name);
    if (!ts) return nullptr;
    auto spec = std::make_unique<LangSpec>();
    spec->lang = lang;
    spec->ts = ts;
    bool colons = lang == Lang::Cpp || lang == Lang::Rust;
    spec->sep = colons ? "::" : ".";
    spec->flat = lang == Lang::C;

    LangRules rules;
    switch (lang) {
    case Lang::Python:
        rules = pythonRules();
        break;
    case Lang::JavaScript:
    case Lang::TypeScript:
    case Lang::Tsx:
        rules = jsRules(lang);
        break;
    case Lang::C:
    case Lang::Cpp:
        rules = cRules(lang);
        break;
    case Lang::Go:
        rules = goRules();
        break;
    case Lang::Rust:
        rules = rustRules();
        break;
    case Lang::Java:
        rules = javaRules();
        break;
    }
    spec->classify = rules.classify;
    spec->hook = rules.hook;
    spec->sign = rules.sign;

    uint32_t n = ts_language_symbol_count(ts);
    spec->flags.assign(n, 0);
    spec->typeName.assign(n, {});
    for (uint32_t i = 0; i < n; ++i) {
        auto sym = TSSymbol(i);
        std::string_view t = ts_language_symbol_name(ts, sym);
        bool named = ts_language_symbol_type(ts, sym) == TSSymbolTypeRegular;
        spec->typeName[i] = t;
        uint16_t f = genericFlags(t, named);
        if (named) {
            for (auto d : rules.definitions)
                if (d == t) f |= kDefinition;
            for (auto h : rules.hooks)
                if (h == t) f |= kHook;
            for (auto h : rules.preludes)
                if (h == t) f |= kPrelude;
            for (auto h : rules.tokenRuns)
                if (h == t) f |= kTokens;
            for (auto h : rules.rawCode)
                if (h == t) f |= kRawCode;
        }
        spec->flags[i] = f;
    }
    spec->errorIndex = TSSymbol(n);
    spec->typeName.push_back("ERROR");
    spec->flags.push_back(kNamed);
    ++n;
    uint32_t fields = ts_language_field_count(ts);
    spec->fieldName.assign(fields + 1, {});
    for (uint32_t i = 1; i <= fields; ++i) {
        const char* fname = ts_language_field_name_for_id(ts, TSFieldId(i));
        if (fname) spec->fieldName[i] = fname;
    }
    std::vector<bool> namedTypes(n), allFields(fields + 1, true);
    for (uint32_t i = 0; i < n; ++i)
        namedTypes[i] = spec->flags[i] & kNamed;
    allFields[0] = false;
    spec->typeToken = tokens(spec->typeName, namedTypes);
    spec->fieldToken = tokens(spec->fieldName, allFields);
    auto id = [&](std::string_view f) {
        return ts_language_field_id_for_name(ts, f.data(), uint32_t(f.size()));
    };
    Fields& F = spec->f;
    F.name = id("name");
    F.body = id("body");
    F.declarator = id("declarator");
    F.type = id("type");
    F.value = id("value");
    F.key = id("key");
    F.parameters = id("parameters");
    F.parameter = id("parameter");
    F.receiver = id("receiver");
    F.definition = id("definition");
    F.superclasses = id("superclasses");
    F.arguments = id("arguments");
    F.trait = id("trait");
    F.scope = id("scope");
    F.pattern = id("pattern");
    F.property = id("property");
    F.declaration = id("declaration");
    F.left = id("left");
    F.right = id("right");
    F.object = id("object");
    F.function = id("function");
    F.fieldId = id("field");
    return spec;
}

} // namespace

const LangSpec* langSpec(std::string_view language) {
    static constexpr std::array<std::pair<const char*, Lang>, 9> names = {{
        {"python", Lang::Python},
        {"javascript", Lang::JavaScript},
        {"typescript", Lang::TypeScript},
        {"tsx", Lang::Tsx},
        {"c", Lang::C},
        {"cpp", Lang::Cpp},
        {"go", Lang::Go},
        {"rust", Lang::Rust},
        {"java", Lang::Java},
    }};
    static std::array<std::unique_ptr<LangSpec>, 9> specs;
    static std::array<std::once_flag, 9> once;
    for (size_t i = 0; i < names.size(); ++i) {
        if (language != names[i].first) continue;
        std::call_once(once[i], [&] { specs[i] = build(names[i].second, names[i].first); });
        return specs[i].get();
    }
    return nullptr;
}

std::string_view LangSpec::tokenForType(std::string_view name) const {
    TSSymbol sym = ts_language_symbol_for_name(ts, name.data(), uint32_t(name.size()), true);
    return sym && sym < typeToken.size() && !typeToken[sym].empty()
               ? std::string_view(typeToken[sym])
               : std::string_view("\xff\xff\x00", 3); // not in this grammar: never used
}

std::string_view LangSpec::tokenForField(std::string_view name) const {
    TSFieldId id = ts_language_field_id_for_name(ts, name.data(), uint32_t(name.size()));
    return id && id < fieldToken.size() ? std::string_view(fieldToken[id])
                                        : std::string_view("\xff\xff\x00", 3);
}

std::string_view nodeText(std::string_view src, TSNode n) {
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (s > src.size() || e > src.size() || e < s) return {};
    return src.substr(s, e - s);
}

static bool wordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

std::string compactText(std::string_view src, TSNode n, const std::vector<TSNode>* skip) {
    // The node's tokens, comments left out (a comment inside a template
    // argument list is no part of a name), joined without their layout.
    std::string out;
    if (ts_node_is_null(n)) return out;
    uint32_t lastEnd = ts_node_start_byte(n);
    auto add = [&](TSNode leaf) {
        uint32_t s = ts_node_start_byte(leaf), e = ts_node_end_byte(leaf);
        if (s > src.size() || e > src.size() || e <= s) return;
        std::string_view t = src.substr(s, e - s);
        bool gap = s > lastEnd;
        if (gap && !out.empty() && wordChar(out.back()) && wordChar(t.front())) out += ' ';
        for (char c : t) // a token holding blanks (`#  define`) keeps none
            if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'))
                out += c;
        lastEnd = e;
    };
    if (ts_node_child_count(n) == 0) {
        add(n);
        return out;
    }
    Cursor cur(n);
    bool descend = true;
    for (;;) {
        TSNode at = cur.node();
        bool comment = std::string_view(ts_node_type(at)).find("comment") != std::string_view::npos;
        if (skip)
            for (const TSNode& k : *skip)
                comment = comment || ts_node_eq(k, at);
        if (descend && !comment && ts_tree_cursor_goto_first_child(cur.get())) continue;
        if (!comment && ts_node_child_count(at) == 0) add(at);
        if (comment) lastEnd = ts_node_end_byte(at);
        descend = true;
        if (!cur.next(false)) break;
    }
    return out;
}

TSNode field(const LangSpec&, TSNode n, TSFieldId id) {
    if (id == 0 || ts_node_is_null(n)) return TSNode{};
    return ts_node_child_by_field_id(n, id);
}

uint32_t namedChildCount(const LangSpec& spec, TSNode n, TSNode* first) {
    uint32_t count = 0;
    uint32_t all = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < all; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (ts_node_is_extra(c) || (spec.flagsOf(c) & kComment)) continue;
        if (count == 0 && first) *first = c;
        ++count;
    }
    return count;
}

std::string stringContent(std::string_view src, TSNode n) {
    std::string_view t = nodeText(src, n);
    if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'' || t.front() == '`') &&
        t.back() == t.front())
        t = t.substr(1, t.size() - 2);
    return std::string(t);
}

bool boundFunction(const DefContext& c, TSNode name, TSNode value, std::string_view literal,
                   Def& d) {
    const LangSpec& S = c.spec;
    if (ts_node_is_null(name) || ts_node_is_null(value) || S.type(name) != "identifier" ||
        S.type(value) != literal)
        return false;
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    d.body = field(S, value, S.f.body);
    d.kind = "function";
    return true;
}

std::pair<TSNode, TSNode> callbackArguments(const LangSpec& spec, TSNode args,
                                            bool (*isFunction)(std::string_view type)) {
    TSNode first{}, fn{};
    Cursor cur(args); // children in one pass, not one by index
    for (bool more = ts_tree_cursor_goto_first_child(cur.get()); more;
         more = ts_tree_cursor_goto_next_sibling(cur.get())) {
        TSNode a = cur.node();
        if (!ts_node_is_named(a) || (spec.flagsOf(a) & kComment)) continue;
        if (ts_node_is_null(first)) first = a;
        if (isFunction(spec.type(a))) fn = a;
    }
    return {first, fn};
}

std::string quotedName(std::string_view v) {
    std::string out = "\"";
    for (unsigned char ch : v) {
        switch (ch) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (ch < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                out += buf;
            } else {
                out += char(ch);
            }
        }
    }
    return out + "\"";
}

} // namespace engram::syntax::detail
