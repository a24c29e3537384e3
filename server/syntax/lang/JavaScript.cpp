// JavaScript, TypeScript and TSX: functions (declared, or arrow/function
// expressions bound to a name by a declaration, a class field, an object
// property or an assignment such as `res.send = function send() {}`),
// classes and their methods, object-literal methods (qualified by the name
// holding the object), and in TypeScript interfaces, type aliases, enums,
// namespaces and overload signatures.
//
// Forms that wrap a definition are the definition: `export`, `export
// default` (named "default" when anonymous), a `const` declaring one
// function, so the line of the first token anchors it.
//
// A function passed to a call whose first argument is a plain string is a
// definition named after the callee's last identifier and the string:
// `describe("Parser")`, `it("parses empty input")`, `app.get("/users")`
// gives `get("/users")`. Test suites and route tables are mostly made of
// these, and the helpers nested in them are qualified by them, so two
// `setup` functions in two suites are told apart.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool isFunctionValue(std::string_view t) {
    return t == "arrow_function" || t == "function_expression" || t == "function" ||
           t == "generator_function";
}

bool isClassValue(std::string_view t) {
    return t == "class";
}

// The value of a string literal node with its escapes resolved (the common
// ones; others are kept as written).
std::string stringValue(const DefContext& c, TSNode n) {
    std::string raw = stringContent(c.src, n);
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '\\' || i + 1 == raw.size()) {
            out += raw[i];
            continue;
        }
        char e = raw[++i];
        switch (e) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case '\n':
            break; // a line continuation
        case '\'':
        case '"':
        case '`':
        case '\\':
            out += e;
            break;
        default:
            out += '\\';
            out += e;
        }
    }
    return out;
}

// The name a property key gives: 'a' and "a" and a are one name.
std::string keyName(const DefContext& c, TSNode key) {
    std::string_view t = c.spec.type(key);
    if (t == "string") return stringValue(c, key);
    return compactText(c.src, key);
}

// A plain string: a literal, or a template without substitutions.
bool plainString(const LangSpec& S, TSNode n) {
    std::string_view t = S.type(n);
    if (t == "string") return true;
    if (t != "template_string") return false;
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i)
        if (S.type(ts_node_named_child(n, i)) == "template_substitution") return false;
    return true;
}

// TypeScript's overloads differ by their parameter types: "(string,number?)".
std::string parameterTypes(const DefContext& c, TSNode params) {
    const LangSpec& S = c.spec;
    if (S.lang == Lang::JavaScript || ts_node_is_null(params)) return {};
    std::string out = "(";
    uint32_t count = ts_node_named_child_count(params);
    bool first = true;
    for (uint32_t i = 0; i < count; ++i) {
        TSNode p = ts_node_named_child(params, i);
        std::string_view pt = S.type(p);
        if (pt != "required_parameter" && pt != "optional_parameter") continue;
        if (!first) out += ',';
        first = false;
        TSNode pattern = field(S, p, S.f.pattern);
        if (!ts_node_is_null(pattern) && S.type(pattern) == "rest_pattern") out += "...";
        TSNode type = field(S, p, S.f.type);
        if (ts_node_is_null(type)) {
            out += "any";
        } else {
            std::string t = compactText(c.src, type);
            out += t.starts_with(":") ? t.substr(1) : t;
        }
        if (pt == "optional_parameter") out += '?';
    }
    return out + ")";
}

bool classify(const DefContext& c, TSNode n, Def& d);

// `export ...` / `export default ...`: the declaration it exports.
bool exported(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode decl = field(S, n, S.f.declaration);
    if (!ts_node_is_null(decl)) {
        DefContext inner{c.spec, c.src, c.scope, n, c.namespaces};
        if (!classify(inner, decl, d)) return false;
        if (ts_node_is_null(d.inner)) d.inner = decl;
        return true;
    }
    TSNode value = field(S, n, S.f.value);
    if (ts_node_is_null(value)) return false;
    std::string_view vt = S.type(value);
    if (isFunctionValue(vt) || isClassValue(vt)) {
        TSNode name = field(S, value, S.f.name);
        d.name = ts_node_is_null(name) ? "default" : compactText(c.src, name);
        d.nameNode = name;
        d.kind = isClassValue(vt) ? "class" : "function";
        d.body = field(S, value, S.f.body);
        d.signatureOf = field(S, value, S.f.parameters);
        d.inner = value;
        return true;
    }
    if (vt == "object") {
        d.name = "default";
        d.kind = "object";
        d.scopeOnly = true;
        return true;
    }
    return false;
}

// What a value bound to a name makes of it: a function, a class, or (an
// object literal) a scope for the methods inside.
bool boundValue(const DefContext& c, TSNode value, Def& d) {
    if (ts_node_is_null(value)) return false;
    std::string_view vt = c.spec.type(value);
    if (isFunctionValue(vt)) {
        d.kind = "function";
        d.body = field(c.spec, value, c.spec.f.body);
        d.signatureOf = field(c.spec, value, c.spec.f.parameters);
        return true;
    }
    if (isClassValue(vt)) {
        d.kind = "class";
        d.body = field(c.spec, value, c.spec.f.body);
        return true;
    }
    if (vt == "object") {
        d.kind = "object";
        d.scopeOnly = true;
        return true;
    }
    return false;
}

// `const f = () => {}` declaring one variable: the whole declaration.
bool declaration(const DefContext& c, TSNode n, Def& d) {
    TSNode only{};
    uint32_t named = 0, count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode ch = ts_node_named_child(n, i);
        if (c.spec.type(ch) != "variable_declarator") continue;
        ++named;
        only = ch;
    }
    if (named != 1) return false;
    if (!classify(c, only, d)) return false;
    d.inner = only;
    return true;
}

// `res.send = function send() {}`, `module.exports = {...}`, `f = () => 1`.
bool assignment(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode only{};
    if (namedChildCount(S, n, &only) != 1 || S.type(only) != "assignment_expression") return false;
    TSNode left = field(S, only, S.f.left), right = field(S, only, S.f.right);
    if (ts_node_is_null(left) || !boundValue(c, right, d)) return false;
    std::string_view lt = S.type(left);
    if (lt == "identifier") {
        d.nameNode = left;
        d.name = compactText(c.src, left);
    } else if (lt == "member_expression") {
        TSNode property = field(S, left, S.f.property);
        TSNode object = field(S, left, S.f.object);
        if (ts_node_is_null(property) || ts_node_is_null(object)) return false;
        d.nameNode = property;
        d.name = compactText(c.src, property);
        d.qualifier = compactText(c.src, object);
    } else {
        return false;
    }
    d.inner = only;
    return true;
}

// A function passed to a call whose first argument is a plain string.
bool callback(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode callee = field(S, n, S.f.function);
    TSNode args = field(S, n, S.f.arguments);
    if (ts_node_is_null(callee) || ts_node_is_null(args)) return false;
    std::string_view ct = S.type(callee);
    std::string name;
    if (ct == "identifier") {
        name = compactText(c.src, callee);
    } else if (ct == "member_expression") {
        TSNode property = field(S, callee, S.f.property);
        if (ts_node_is_null(property)) return false;
        name = compactText(c.src, property);
    } else {
        return false;
    }
    auto [first, fn] = callbackArguments(S, args, isFunctionValue);
    if (ts_node_is_null(first) || ts_node_is_null(fn) || !plainString(S, first)) return false;
    d.name = name + "(" + quotedName(stringValue(c, first)) + ")";
    d.nameNode = first;
    d.body = fn;
    d.kind = "function";
    return true;
}

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    std::string_view scopeKind = c.scope ? c.scope->kind : "";
    TSNode name = field(S, n, S.f.name);
    auto named = [&](const char* kind) {
        if (ts_node_is_null(name)) return false;
        d.nameNode = name;
        d.name = keyName(c, name);
        d.kind = kind;
        if (ts_node_is_null(d.signatureOf)) d.signatureOf = field(S, n, S.f.parameters);
        return true;
    };
    if (t == "export_statement") return exported(c, n, d);
    if (t == "lexical_declaration" || t == "variable_declaration") return declaration(c, n, d);
    if (t == "expression_statement") return assignment(c, n, d);
    if (t == "call_expression") return callback(c, n, d);
    if (t == "function_declaration" || t == "generator_function_declaration" ||
        t == "function_signature")
        return named("function");
    if (t == "class_declaration" || t == "abstract_class_declaration") return named("class");
    if (t == "interface_declaration") return named("interface");
    if (t == "type_alias_declaration") return named("type");
    if (t == "enum_declaration") return named("enum");
    if (t == "internal_module") return named("namespace");
    if (t == "module") return named("module");
    if (t == "ambient_declaration") {
        // `declare global { ... }`: the global scope augmented.
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
            if (std::string_view(ts_node_type(ts_node_child(n, i))) == "global") {
                d.name = "global";
                d.kind = "namespace";
                return true;
            }
        return false;
    }
    if (t == "method_definition") {
        if (!named("method")) return false;
        if (d.name == "constructor") d.kind = "constructor";
        return true;
    }
    if (t == "abstract_method_signature") return named("method");
    if (t == "method_signature") {
        // Interface members, and a class's overload signatures.
        if (!named("method")) return false;
        if (d.name == "constructor" && scopeKind == "class") d.kind = "constructor";
        return true;
    }

    TSNode value = field(S, n, S.f.value);
    if (t == "variable_declarator") {
        if (ts_node_is_null(name) || S.type(name) != "identifier") return false;
        if (!boundValue(c, value, d)) return false;
        d.nameNode = name;
        d.name = keyName(c, name);
        return true;
    }
    if (t == "field_definition" || t == "public_field_definition") {
        if (t == "field_definition") name = field(S, n, S.f.property);
        if (ts_node_is_null(value) || !isFunctionValue(S.type(value))) return false;
        if (!boundValue(c, value, d)) return false;
        TSNode sig = d.signatureOf;
        if (!named("method")) return false;
        d.signatureOf = sig;
        return true;
    }
    if (t == "pair") {
        name = field(S, n, S.f.key);
        if (ts_node_is_null(name) || !boundValue(c, value, d)) return false;
        if (!d.scopeOnly) d.kind = "method";
        d.nameNode = name;
        d.name = keyName(c, name);
        return true;
    }
    return false;
}

// Non-ASCII letters count (`{ 県: 1 }`); a quoted key that only looks like
// one is never written unquoted by a formatter, so the approximation costs
// nothing.
bool isIdentifier(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char ch : s)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '$' || (unsigned char)ch >= 0x80))
            return false;
    return true;
}

// prettier's rewrites that change the tree but not the meaning.
HookResult hook(const HookContext& h, TSNode n) {
    const LangSpec& S = h.spec;
    std::string_view t = S.type(n);
    std::string_view parent = ts_node_is_null(h.parent) ? "" : S.type(h.parent);
    if (t == "formal_parameters") {
        // x => x  ==  (x) => x
        if (parent != "arrow_function") return {};
        TSNode only{};
        if (namedChildCount(S, n, &only) != 1) return {};
        TSNode id = only;
        if (S.type(only) == "required_parameter") {
            if (ts_node_child_count(only) != 1) return {};
            id = ts_node_child(only, 0);
        }
        if (S.type(id) != "identifier") return {};
        return {HookResult::Leaf, "parameter", "identifier", nodeText(h.src, id)};
    }
    if (t == "union_type" || t == "intersection_type") {
        // A leading "|" (multi-line unions) adds a level: | A | B.
        TSNode first = ts_node_child(n, 0);
        if (!ts_node_is_null(first) && !ts_node_is_named(first)) return {HookResult::Unwrap};
        return {};
    }
    if (t == "arguments") {
        // new Foo  ==  new Foo()
        if (parent == "new_expression" && namedChildCount(S, n) == 0) return {HookResult::Skip};
        return {};
    }
    if (t == "empty_statement") {
        // Stray semicolons in statement lists (ASI guards ";[1, 2]").
        if (parent == "program" || parent == "statement_block" || parent == "class_body" ||
            parent == "switch_case" || parent == "switch_default")
            return {HookResult::Skip};
        return {};
    }
    if (t == "string") {
        // { "a": 1 }  ==  { a: 1 } (quoteProps: as-needed), and enum members.
        bool key = (parent == "pair" && h.field == S.f.key) || parent == "enum_body" ||
                   (parent == "enum_assignment" && h.field == S.f.name);
        if (!key) return {};
        std::string_view text = nodeText(h.src, n);
        if (text.size() < 2) return {};
        std::string_view inner = text.substr(1, text.size() - 2);
        if (!isIdentifier(inner)) return {};
        return {HookResult::Leaf, "", "property_identifier", inner};
    }
    return {};
}

} // namespace

LangRules jsRules(Lang lang) {
    LangRules r{{"function_declaration", "generator_function_declaration", "class_declaration",
                 "method_definition", "variable_declarator", "field_definition", "pair",
                 "export_statement", "lexical_declaration", "variable_declaration",
                 "expression_statement", "call_expression"},
                {"formal_parameters", "arguments", "empty_statement", "string"},
                classify,
                hook,
                {},
                {},
                {}};
    if (lang != Lang::JavaScript) {
        for (auto t : {"abstract_class_declaration", "interface_declaration",
                       "type_alias_declaration", "enum_declaration", "internal_module", "module",
                       "method_signature", "abstract_method_signature", "public_field_definition",
                       "function_signature", "ambient_declaration"})
            r.definitions.push_back(t);
        for (auto t : {"union_type", "intersection_type"})
            r.hooks.push_back(t);
    }
    // A class member's decorators precede it as siblings.
    r.preludes = {"decorator"};
    r.sign = parameterTypes;
    return r;
}

} // namespace engram::syntax::detail
