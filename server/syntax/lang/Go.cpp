// Go: functions, methods (qualified by their receiver's type: `func (s
// *Server) Handle` is "Server.Handle"), named types (struct, interface or
// other) and interface methods ("Handler.ServeHTTP").
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

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
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
             "type_alias", "method_elem", "method_spec"},
            {},
            classify,
            nullptr,
            {},
            {},
            {}};
}

} // namespace engram::syntax::detail
