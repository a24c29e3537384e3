// Java: classes, records, interfaces, annotation types and enums (nested ones
// qualified by their outer types), methods and constructors.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
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
    return d.kind != nullptr;
}

} // namespace

LangRules javaRules() {
    return {{"class_declaration", "record_declaration", "interface_declaration",
             "annotation_type_declaration", "enum_declaration", "method_declaration",
             "constructor_declaration", "compact_constructor_declaration"},
            {},
            classify,
            nullptr,
            {},
            {},
            {}};
}

} // namespace engram::syntax::detail
