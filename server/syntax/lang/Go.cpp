// Go: functions, methods (qualified by their receiver's type: `func (s
// *Server) Handle` is "Server.Handle"), named types (struct, interface or
// other), interface methods ("Handler.ServeHTTP"), function literals bound
// to a name (`check := func...`) and passed to a call with a string first
// (`t.Run("parses", func...)` is `Run("parses")`, as in JavaScript).
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

// *Server[T] -> Server
std::string baseType(const LangSpec& S, std::string_view src, TSNode t) {
    for (int guard = 0; guard < 16 && !ts_node_is_null(t); ++guard) {
        std::string_view k = S.type(t);
        if (k == "pointer_type" || k == "parenthesized_type") {
            TSNode first{};
            if (namedChildCount(S, t, &first) == 0) break;
            t = first;
        } else if (k == "generic_type") {
            t = field(S, t, S.f.type);
        } else if (k == "qualified_type") {
            t = field(S, t, S.f.name);
        } else {
            return std::string(nodeText(src, t));
        }
    }
    return {};
}

// The only expression of an expression_list, or null.
TSNode single(const LangSpec& S, TSNode list) {
    if (ts_node_is_null(list)) return TSNode{};
    if (S.type(list) != "expression_list") return list;
    TSNode only{};
    return namedChildCount(S, list, &only) == 1 ? only : TSNode{};
}

// A function literal passed to a call whose first argument is a string:
// `t.Run("parses", func(t *testing.T) {...})` is `Run("parses")`.
bool callback(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode callee = field(S, n, S.f.function), args = field(S, n, S.f.arguments);
    if (ts_node_is_null(callee) || ts_node_is_null(args)) return false;
    std::string_view ct = S.type(callee);
    TSNode nameOf = ct == "selector_expression" ? field(S, callee, S.f.fieldId)
                    : ct == "identifier"        ? callee
                                                : TSNode{};
    if (ts_node_is_null(nameOf)) return false;
    auto [first, fn] =
        callbackArguments(S, args, [](std::string_view t) { return t == "func_literal"; });
    if (ts_node_is_null(first) || ts_node_is_null(fn)) return false;
    std::string_view ft = S.type(first);
    if (ft != "interpreted_string_literal" && ft != "raw_string_literal") return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(first);
         ++i) // no escapes: its text is its value
        if (S.type(ts_node_named_child(first, i)) == "escape_sequence") return false;
    d.name =
        std::string(nodeText(c.src, nameOf)) + "(" + quotedName(stringContent(c.src, first)) + ")";
    d.nameNode = first;
    d.body = fn;
    d.kind = "function";
    return true;
}

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    if (t == "short_var_declaration") // check := func(...) {...}
        return boundFunction(c, single(S, field(S, n, S.f.left)), single(S, field(S, n, S.f.right)),
                             "func_literal", d);
    if (t == "var_spec") {
        TSNode name = field(S, n, S.f.name);
        uint32_t names = 0;
        for (uint32_t i = 0, count = ts_node_named_child_count(n); i < count; ++i)
            names += S.type(ts_node_named_child(n, i)) == "identifier";
        if (names != 1) return false; // var a, b = ...
        return boundFunction(c, name, single(S, field(S, n, S.f.value)), "func_literal", d);
    }
    if (t == "call_expression") return callback(c, n, d);
    if (t == "type_declaration") {
        // `type X struct{...}` spans the keyword; a group `type ( ... )` does not.
        TSNode spec{};
        if (namedChildCount(S, n, &spec) != 1) return false;
        if (!classify(c, spec, d)) return false;
        d.inner = spec;
        return true;
    }
    TSNode name = field(S, n, S.f.name);
    if (ts_node_is_null(name)) return false;
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    if (t == "function_declaration") {
        d.kind = "function";
    } else if (t == "method_declaration") {
        d.kind = "method";
        TSNode recv = field(S, n, S.f.receiver);
        TSNode param{};
        if (!ts_node_is_null(recv) && namedChildCount(S, recv, &param) >= 1)
            d.qualifier = baseType(S, c.src, field(S, param, S.f.type));
    } else if (t == "type_spec") {
        TSNode type = field(S, n, S.f.type);
        std::string_view tt = ts_node_is_null(type) ? "" : S.type(type);
        d.kind = tt == "struct_type" ? "struct" : tt == "interface_type" ? "interface" : "type";
    } else if (t == "type_alias") {
        d.kind = "type";
    } else if (t == "method_elem" || t == "method_spec") {
        d.kind = "method";
    }
    return d.kind != nullptr;
}

} // namespace

LangRules goRules() {
    return {{"function_declaration", "method_declaration", "type_declaration", "type_spec",
             "type_alias", "method_elem", "method_spec", "short_var_declaration", "var_spec",
             "call_expression"},
            {},
            classify,
            nullptr,
            {},
            {},
            {}};
}

} // namespace engram::syntax::detail
