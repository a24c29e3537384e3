// Rust: functions, structs, unions, enums, traits, type aliases and modules
// with bodies. An impl block is a scope, not a symbol: `fn parse` inside
// `impl Parser` or `impl Display for Parser` is "Parser::parse"; inside a
// trait, "Trait::method" (declared or with a default body).
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

// &mut a::Parser<T> -> Parser
std::string baseType(const LangSpec& S, std::string_view src, TSNode t) {
    for (int guard = 0; guard < 16 && !ts_node_is_null(t); ++guard) {
        std::string_view k = S.type(t);
        if (k == "generic_type" || k == "reference_type" || k == "pointer_type") {
            t = field(S, t, S.f.type);
        } else if (k == "scoped_type_identifier") {
            t = field(S, t, S.f.name);
        } else {
            return compactText(src, t);
        }
    }
    return {};
}

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    if (t == "impl_item") {
        d.name = baseType(S, c.src, field(S, n, S.f.type));
        d.kind = "impl";
        d.scopeOnly = true;
        return !d.name.empty();
    }
    if (t == "mod_item" && ts_node_is_null(field(S, n, S.f.body))) return false; // mod m;
    TSNode name = field(S, n, S.f.name);
    if (ts_node_is_null(name)) return false;
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    if (t == "function_item" || t == "function_signature_item") {
        std::string_view scope = c.scope ? c.scope->kind : "";
        d.kind = scope == "impl" || scope == "trait" ? "method" : "function";
    } else if (t == "struct_item" || t == "union_item") {
        d.kind = "struct";
    } else if (t == "enum_item") {
        d.kind = "enum";
    } else if (t == "trait_item") {
        d.kind = "trait";
    } else if (t == "type_item") {
        d.kind = "type";
    } else if (t == "mod_item") {
        d.kind = "module";
    }
    return d.kind != nullptr;
}

bool isStatement(std::string_view t) {
    return t.ends_with("_statement") || t.ends_with("_declaration") || t.ends_with("_item") ||
           t == "attribute_item";
}

// rustfmt's rewrites that change the tree but not the meaning.
HookResult hook(const HookContext& h, TSNode n) {
    const LangSpec& S = h.spec;
    std::string_view t = S.type(n);
    TSNode only{};
    if (t == "expression_statement") {
        // `return x;` == `return x` (trailing_semicolon adds the ";").
        if (namedChildCount(S, n, &only) != 1) return {};
        std::string_view k = S.type(only);
        if (k == "return_expression" || k == "break_expression" || k == "continue_expression")
            return {HookResult::Unwrap};
    } else if (t == "block") {
        // `A => x,` == `A => { x }` (match_arm_blocks wraps long arms).
        if (ts_node_is_null(h.parent) || S.type(h.parent) != "match_arm" || h.field != S.f.value)
            return {};
        if (ts_node_child_count(n) > 0 && !ts_node_is_named(ts_node_child(n, 0)) &&
            namedChildCount(S, n, &only) == 1 && !isStatement(S.type(only)))
            return {HookResult::Unwrap};
    }
    return {};
}

} // namespace

LangRules rustRules() {
    return {{"function_item", "function_signature_item", "struct_item", "union_item", "enum_item",
             "trait_item", "type_item", "mod_item", "impl_item"},
            {"expression_statement", "block"},
            classify,
            hook};
}

} // namespace engram::syntax::detail
