// Python: classes, functions, methods and lambdas bound to a name; decorated
// definitions span their decorators. Qualified names join enclosing classes
// and functions with ".".
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode def = n;
    std::string_view t = S.type(n);
    if (t == "expression_statement") {
        // `normalise = lambda s: s.strip()`: a lambda bound to a name.
        TSNode only{};
        if (namedChildCount(S, n, &only) != 1 || S.type(only) != "assignment") return false;
        TSNode left = field(S, only, S.f.left), right = field(S, only, S.f.right);
        // black wraps a long one in parentheses.
        while (!ts_node_is_null(right) && S.type(right) == "parenthesized_expression" &&
               namedChildCount(S, right, &right) == 1) {
        }
        return boundFunction(c, left, right, "lambda", d);
    }
    if (t == "decorated_definition") {
        def = field(S, n, S.f.definition);
        if (ts_node_is_null(def)) return false;
        d.inner = def;
        t = S.type(def);
    }
    TSNode name = field(S, def, S.f.name);
    if (ts_node_is_null(name)) return false;
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    if (t == "class_definition") {
        d.kind = "class";
    } else if (t == "function_definition") {
        bool inClass = c.scope && std::string_view(c.scope->kind) == "class";
        d.kind = !inClass ? "function" : d.name == "__init__" ? "constructor" : "method";
    }
    return d.kind != nullptr;
}

bool hasComma(TSNode n) {
    uint32_t count = ts_node_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_child(n, i);
        if (!ts_node_is_named(c) && std::string_view(ts_node_type(c)) == ",") return true;
    }
    return false;
}

// black's rewrites that change the tree but not the meaning.
HookResult hook(const HookContext& h, TSNode n) {
    const LangSpec& S = h.spec;
    std::string_view t = S.type(n);
    if (t == "argument_list") {
        // class A(): -> class A:
        if (h.field == S.f.superclasses && namedChildCount(S, n) == 0) return {HookResult::Skip};
    } else if (t == "string") {
        // A bare string statement is documentation; black re-indents it.
        if (!ts_node_is_null(h.parent) && S.type(h.parent) == "expression_statement" &&
            namedChildCount(S, h.parent) == 1)
            return {HookResult::Docstring};
    } else if (t == "subscript") {
        // a[1,] indexes with a tuple: that trailing comma is meaning, not style.
        if (namedChildCount(S, n) == 2) return {HookResult::KeepCommas};
    } else if (t == "import_from_statement" || t == "with_clause") {
        // `from a import (b)`, `with (open(a) as f):`: optional parentheses.
        return {HookResult::Group};
    } else if (t == "tuple_pattern" && namedChildCount(S, n) == 1 && !hasComma(n)) {
        // `for (x) in xs` (black's split of a long target) is `for x in xs`.
        return {HookResult::Unwrap};
    } else if (t == "tuple" || t == "expression_list" || t == "tuple_pattern" ||
               t == "pattern_list") {
        // `for k, v in xs` == `for (k, v) in xs`, `a, b = xs` == `(a, b,) = xs`,
        // `return a, b` == `return (a, b)`: a tuple is the same with or
        // without its parentheses (black adds them when it splits a line).
        return {HookResult::Group, "", "expression_list", ""};
    }
    return {};
}

} // namespace

LangRules pythonRules() {
    return {
        {"function_definition", "class_definition", "decorated_definition", "expression_statement"},
        {"argument_list", "string", "subscript", "tuple", "expression_list", "tuple_pattern",
         "pattern_list", "import_from_statement", "with_clause"},
        classify,
        hook,
        {},
        {},
        {}};
}

} // namespace engram::syntax::detail
