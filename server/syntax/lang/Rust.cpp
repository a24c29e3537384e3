// Rust: functions, structs, unions, enums, traits, type aliases, modules
// (`mod m { ... }`, and `mod m;` whose body is another file), `macro_rules!`
// macros, closures bound by `let`, and impl
// blocks. An impl block is a symbol named as rustdoc heads it ("impl
// Parser", "impl fmt::Display for Parser"); the methods of an inherent impl
// are "Parser::parse", those of a trait impl "<Parser as fmt::Display>::fmt"
// (Rust's own path to them), so the `fmt` of Display and the `fmt` of Debug
// are two names. A trait's methods are "Trait::method". Outer attributes
// (`#[derive]`, `#[cfg(test)]`) belong to the item they precede.
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
        std::string type = baseType(S, c.src, field(S, n, S.f.type));
        if (type.empty()) return false;
        TSNode trait = field(S, n, S.f.trait);
        if (ts_node_is_null(trait)) {
            d.name = "impl " + type;
            d.scopeName = type;
        } else {
            std::string tr = compactText(c.src, trait);
            d.name = "impl " + tr + " for " + type;
            d.scopeName = "<" + type + " as " + tr + ">";
        }
        d.kind = "impl";
        return true;
    }
    if (t == "let_declaration") {
        // let parse = |s| ...;
        return boundFunction(c, field(S, n, S.f.pattern), field(S, n, S.f.value),
                             "closure_expression", d);
    }
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
    } else if (t == "macro_definition") {
        d.kind = "macro";
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
    std::string_view parent = ts_node_is_null(h.parent) ? "" : S.type(h.parent);
    TSNode only{};
    if (t == "expression_statement") {
        // `return x;` == `return x` (trailing_semicolon adds the ";").
        if (namedChildCount(S, n, &only) != 1) return {};
        std::string_view k = S.type(only);
        if (k == "return_expression" || k == "break_expression" || k == "continue_expression")
            return {HookResult::Unwrap};
    } else if (t == "block") {
        // `A => x,` == `A => { x }` (match_arm_blocks wraps long arms), and
        // `|a| f(a)` == `|a| { f(a) }`: a block holding one expression.
        bool arm = parent == "match_arm" && h.field == S.f.value;
        bool closure = parent == "closure_expression" && h.field == S.f.body;
        if (!arm && !closure) return {};
        if (ts_node_child_count(n) > 0 && !ts_node_is_named(ts_node_child(n, 0)) &&
            namedChildCount(S, n, &only) == 1 && !isStatement(S.type(only)))
            return {HookResult::Unwrap};
    } else if (t == "token_tree") {
        // A macro rule's expansion `=> ( ... )` == `=> { ... }`: the outer
        // delimiters of a transcriber are not part of it.
        if (parent == "macro_rule" && h.field == S.f.right) return {HookResult::Group};
        // Inside a macro's tokens, `=> x` == `=> { x }`: rustfmt formats a
        // macro body as code and wraps long match arms in a block.
        if (parent == "token_tree" && h.before == "=>") {
            TSNode open = ts_node_child(n, 0);
            if (!ts_node_is_null(open) && nodeText(h.src, open) == "{")
                return {HookResult::Transparent};
        }
    }
    return {};
}

} // namespace

LangRules rustRules() {
    LangRules r{{"function_item", "function_signature_item", "struct_item", "union_item",
                 "enum_item", "trait_item", "type_item", "mod_item", "impl_item",
                 "macro_definition", "let_declaration"},
                {"expression_statement", "block", "token_tree"},
                classify,
                hook,
                {},
                {},
                {}};
    r.preludes = {"attribute_item"};
    r.tokenRuns = {"token_tree", "token_tree_pattern"};
    return r;
}

} // namespace engram::syntax::detail
