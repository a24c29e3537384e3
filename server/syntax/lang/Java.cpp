// Java: classes, records, interfaces, annotation types and enums (nested ones
// qualified by their outer types), methods and constructors (overloads told
// apart by their parameter types), enum constants with bodies, and fields
// and variables holding an anonymous class or a lambda.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

// Java's overloads differ by their parameter types: "(Object,Class<?>)".
std::string parameterTypes(const DefContext& c, TSNode params) {
    const LangSpec& S = c.spec;
    if (ts_node_is_null(params)) return {};
    std::string out = "(";
    bool first = true;
    uint32_t count = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode p = ts_node_named_child(params, i);
        std::string_view pt = S.type(p);
        if (pt != "formal_parameter" && pt != "spread_parameter") continue;
        if (!first) out += ',';
        first = false;
        if (pt == "spread_parameter") {
            // `String... names`: the type, then the ellipsis.
            uint32_t n = ts_node_named_child_count(p);
            for (uint32_t k = 0; k < n; ++k) {
                TSNode t = ts_node_named_child(p, k);
                std::string_view tt = S.type(t);
                if (tt == "modifiers" || tt == "variable_declarator") continue;
                out += compactText(c.src, t);
                break;
            }
            out += "...";
        } else {
            out += compactText(c.src, field(S, p, S.f.type));
        }
    }
    return out + ")";
}

// A field or local variable holding an anonymous class or a lambda
// (`static final TypeAdapter<Boolean> BOOLEAN = new TypeAdapter<>() {...}`,
// `Comparator<X> byName = (a, b) -> ...`): named by the variable, so the
// methods inside are `TypeAdapters.BOOLEAN.read`, not one more `read` of the
// class.
bool variable(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode only{};
    uint32_t declarators = 0, count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode ch = ts_node_named_child(n, i);
        if (S.type(ch) != "variable_declarator") continue;
        ++declarators;
        only = ch;
    }
    if (declarators != 1) return false;
    TSNode name = field(S, only, S.f.name), value = field(S, only, S.f.value);
    if (ts_node_is_null(name) || ts_node_is_null(value)) return false;
    std::string_view vt = S.type(value);
    if (vt == "lambda_expression") {
        d.kind = "function";
        d.body = field(S, value, S.f.body);
    } else if (vt == "object_creation_expression") {
        TSNode body{};
        for (uint32_t i = 0; i < ts_node_named_child_count(value); ++i)
            if (S.type(ts_node_named_child(value, i)) == "class_body")
                body = ts_node_named_child(value, i);
        if (ts_node_is_null(body)) return false;
        d.kind = "class";
        d.body = body;
    } else {
        return false;
    }
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    return true;
}

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    if (t == "field_declaration" || t == "local_variable_declaration") return variable(c, n, d);
    TSNode name = field(S, n, S.f.name);
    if (ts_node_is_null(name)) return false;
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    if (t == "class_declaration" || t == "record_declaration")
        d.kind = "class";
    else if (t == "interface_declaration" || t == "annotation_type_declaration")
        d.kind = "interface";
    else if (t == "enum_declaration")
        d.kind = "enum";
    else if (t == "method_declaration")
        d.kind = "method";
    else if (t == "constructor_declaration" || t == "compact_constructor_declaration")
        d.kind = "constructor";
    else if (t == "enum_constant" && !ts_node_is_null(field(S, n, S.f.body)))
        d.kind = "constant"; // a constant with a body of its own: `IDENTITY { ... }`
    if (d.kind && (t == "method_declaration" || t == "constructor_declaration"))
        d.signatureOf = field(S, n, S.f.parameters);
    return d.kind != nullptr;
}

} // namespace

LangRules javaRules() {
    LangRules r{{"class_declaration", "record_declaration", "interface_declaration",
                 "annotation_type_declaration", "enum_declaration", "method_declaration",
                 "constructor_declaration", "compact_constructor_declaration", "enum_constant",
                 "field_declaration", "local_variable_declaration"},
                {},
                classify,
                nullptr,
                {},
                {},
                {}};
    r.sign = parameterTypes;
    return r;
}

} // namespace engram::syntax::detail
