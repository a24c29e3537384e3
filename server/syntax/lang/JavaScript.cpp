// JavaScript, TypeScript and TSX: functions (declared, or arrow/function
// expressions bound to a name), classes and their methods and function-valued
// fields, object-literal methods (qualified by the variable holding the
// object), and in TypeScript interfaces, type aliases, enums and namespaces.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool isFunctionValue(std::string_view t) {
    return t == "arrow_function" || t == "function_expression" || t == "function" ||
           t == "generator_function";
}

// The name a property key gives: 'a' and "a" and a are one name.
std::string keyName(const DefContext& c, TSNode key) {
    std::string_view t = c.spec.type(key);
    if (t == "string") return stringContent(c.src, key);
    return compactText(c.src, key);
}

bool kindOf(std::string_view k, std::string_view want) {
    return k == want;
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
        return true;
    };
    if (t == "function_declaration" || t == "generator_function_declaration")
        return named("function");
    if (t == "class_declaration" || t == "abstract_class_declaration") return named("class");
    if (t == "interface_declaration") return named("interface");
    if (t == "type_alias_declaration") return named("type");
    if (t == "enum_declaration") return named("enum");
    if (t == "internal_module") return named("namespace");
    if (t == "module") return named("module");
    if (t == "method_definition") {
        if (!named("method")) return false;
        if (d.name == "constructor") d.kind = "constructor";
        return true;
    }
    if (t == "abstract_method_signature") return named("method");
    if (t == "method_signature") // interface members; class overload signatures are not
        return (kindOf(scopeKind, "interface") || kindOf(scopeKind, "type")) && named("method");

    TSNode value = field(S, n, S.f.value);
    if (ts_node_is_null(value)) return false;
    std::string_view vt = S.type(value);
    bool fn = isFunctionValue(vt);
    if (t == "variable_declarator") {
        if (ts_node_is_null(name) || S.type(name) != "identifier") return false;
        if (fn) return named("function");
        if (vt == "class") return named("class");
        if (vt == "object") {
            d.scopeOnly = true;
            return named("object");
        }
        return false;
    }
    if (t == "field_definition" || t == "public_field_definition") {
        if (t == "field_definition") name = field(S, n, S.f.property);
        return fn && named("method");
    }
    if (t == "pair") {
        name = field(S, n, S.f.key);
        if (fn) return named("method");
        if (vt == "object") {
            d.scopeOnly = true;
            return named("object");
        }
    }
    return false;
}

bool isIdentifier(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char ch : s)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '$'))
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
        // { "a": 1 }  ==  { a: 1 } (quoteProps: as-needed)
        if (parent != "pair" || h.field != S.f.key) return {};
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
                 "method_definition", "variable_declarator", "field_definition", "pair"},
                {"formal_parameters", "arguments", "empty_statement", "string"},
                classify,
                hook};
    if (lang != Lang::JavaScript) {
        for (auto t : {"abstract_class_declaration", "interface_declaration",
                       "type_alias_declaration", "enum_declaration", "internal_module", "module",
                       "method_signature", "abstract_method_signature", "public_field_definition"})
            r.definitions.push_back(t);
        for (auto t : {"union_type", "intersection_type"})
            r.hooks.push_back(t);
    }
    return r;
}

} // namespace engram::syntax::detail
