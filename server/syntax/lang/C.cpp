// C and C++. C: functions, structs, unions, enums and typedefs, unqualified
// (C has one tag and one ordinary namespace). C++ adds namespaces, classes and
// templates; a function's name comes from its declarator, so an out-of-line
// definition `void Parser::parse()` inside `namespace ns` is "ns::Parser::parse"
// and is a method (a constructor when named after its class) unless every
// qualifier is a namespace seen in the file.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool isNameType(std::string_view t) {
    return t == "identifier" || t == "field_identifier" || t == "type_identifier" ||
           t == "qualified_identifier" || t == "destructor_name" || t == "operator_name" ||
           t == "template_function" || t == "operator_cast" || t == "template_type" ||
           t == "primitive_type";
}

// Down the declarator chain (pointer, reference, function, parenthesized,
// array declarators) to the declared name.
TSNode declaredName(const LangSpec& S, TSNode d) {
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); ++guard) {
        if (isNameType(S.type(d))) return d;
        TSNode next = field(S, d, S.f.declarator);
        if (ts_node_is_null(next)) {
            TSNode first{};
            if (namedChildCount(S, d, &first) == 0) return TSNode{};
            next = first;
        }
        d = next;
    }
    return TSNode{};
}

// A name node's display text and the node shapeHash leaves out.
std::string simpleName(const DefContext& c, TSNode n, TSNode& nameNode) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    nameNode = n;
    if (t == "template_function" || t == "template_type") {
        TSNode inner = field(S, n, S.f.name);
        if (!ts_node_is_null(inner)) {
            nameNode = inner;
            return std::string(nodeText(c.src, inner));
        }
    }
    if (t == "operator_cast") {
        TSNode type = field(S, n, S.f.type);
        return "operator " + (ts_node_is_null(type) ? std::string() : compactText(c.src, type));
    }
    return compactText(c.src, n);
}

// qualified_identifier: the scopes joined by "::" and the final name.
std::string splitQualified(const DefContext& c, TSNode n, TSNode& nameNode,
                           std::vector<std::string>& scopes) {
    const LangSpec& S = c.spec;
    for (int guard = 0; guard < 64 && S.type(n) == "qualified_identifier"; ++guard) {
        TSNode scope = field(S, n, S.f.scope);
        // `FMT_FUNC std::string vformat(...)`: the parser may invent the
        // "::" it needs to join a type to the name. What it invented is no
        // qualifier: the type before it is a return type.
        bool invented = false;
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i)
            invented = invented || ts_node_is_missing(ts_node_child(n, i));
        if (invented) {
            scopes.clear();
        } else if (!ts_node_is_null(scope)) {
            TSNode ignored;
            scopes.push_back(simpleName(c, scope, ignored));
        }
        TSNode next = field(S, n, S.f.name);
        if (ts_node_is_null(next)) break;
        n = next;
    }
    return simpleName(c, n, nameNode);
}

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (auto& p : parts) {
        if (!out.empty()) out += "::";
        out += p;
    }
    return out;
}

bool isClassKind(const Scope* s) {
    if (!s) return false;
    std::string_view k = s->kind;
    return k == "class" || k == "struct";
}

bool classify(const DefContext& c, TSNode n, Def& d);

// C++ overloads differ by their parameter types and qualifiers:
// "(int,const std::string&) const". Names and default values left out.
std::string parameterTypes(const DefContext& c, TSNode declarator) {
    const LangSpec& S = c.spec;
    TSNode f = declarator;
    for (int guard = 0; guard < 64 && !ts_node_is_null(f) && S.type(f) != "function_declarator";
         ++guard) {
        TSNode next = field(S, f, S.f.declarator);
        if (ts_node_is_null(next)) namedChildCount(S, f, &next); // & and * declarators
        f = next;
    }
    TSNode params = field(S, f, S.f.parameters);
    if (ts_node_is_null(params)) return {};
    std::string out = "(";
    bool first = true;
    uint32_t count = ts_node_child_count(params);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode p = ts_node_child(params, i);
        std::string_view pt = S.type(p);
        bool variadic = !ts_node_is_named(p) && nodeText(c.src, p) == "...";
        if (!variadic && pt != "parameter_declaration" && pt != "optional_parameter_declaration" &&
            pt != "variadic_parameter_declaration")
            continue;
        if (!first) out += ',';
        first = false;
        if (variadic) {
            out += "...";
            continue;
        }
        std::vector<TSNode> skip;
        TSNode name = declaredName(S, field(S, p, S.f.declarator));
        if (!ts_node_is_null(name)) skip.push_back(name);
        TSNode def = ts_node_child_by_field_name(p, "default_value", 13);
        if (!ts_node_is_null(def)) skip.push_back(def);
        std::string t = compactText(c.src, p, &skip);
        if (!ts_node_is_null(def) && t.ends_with("=")) t.pop_back();
        out += t;
    }
    out += ")";
    for (uint32_t i = 0; i < ts_node_child_count(f); ++i) {
        TSNode q = ts_node_child(f, i);
        std::string_view qt = S.type(q);
        if (qt == "type_qualifier" || qt == "ref_qualifier") out += " " + compactText(c.src, q);
    }
    return out;
}

bool function(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode decl = field(S, n, S.f.declarator);
    if (S.lang == Lang::Cpp && !ts_node_is_null(decl) && S.type(decl) == "identifier" &&
        nodeText(c.src, decl) == "namespace") {
        // `FMT_BEGIN_NAMESPACE namespace detail {`: a macro without its
        // semicolon makes the parser read a function named `namespace`; it
        // is the namespace, named by the word the parser set aside.
        TSNode after{}; // the node after the declarator
        for (uint32_t i = 0, count = ts_node_child_count(n); i + 1 < count; ++i)
            if (ts_node_eq(ts_node_child(n, i), decl)) after = ts_node_child(n, i + 1);
        TSNode word{};
        if (!ts_node_is_null(after) && S.type(after) == "ERROR" &&
            namedChildCount(S, after, &word) == 1 && S.type(word) == "identifier") {
            d.nameNode = word;
            d.name = std::string(nodeText(c.src, word));
            d.kind = "namespace";
            return true;
        }
        return false;
    }
    TSNode name = declaredName(S, decl);
    if (ts_node_is_null(name)) return false;
    if (S.lang == Lang::Cpp) d.signatureOf = decl;
    // A macro before a function's name (`void ZLIB_INTERNAL z_error(...)`)
    // leaves the parser guessing: depending on the layout it takes the
    // macro for the name and sets the real one aside in an ERROR just
    // before the parameter list. That word is the name.
    for (TSNode f = decl; !ts_node_is_null(f); f = field(S, f, S.f.declarator)) {
        if (S.type(f) != "function_declarator") continue;
        TSNode params = field(S, f, S.f.parameters), before{};
        for (uint32_t i = 0, n = ts_node_child_count(f); i < n; ++i) {
            TSNode ch = ts_node_child(f, i);
            if (ts_node_eq(ch, params)) break;
            before = ch;
        }
        if (!ts_node_is_null(before) && S.type(before) == "ERROR") {
            uint32_t count = ts_node_named_child_count(before);
            TSNode last = count ? ts_node_named_child(before, count - 1) : TSNode{};
            if (!ts_node_is_null(last) && S.type(last) == "identifier") name = last;
        }
        break;
    }
    std::vector<std::string> quals;
    d.name = splitQualified(c, name, d.nameNode, quals);
    if (d.name.empty()) return false;
    if (S.lang == Lang::C) {
        d.kind = "function";
        return true;
    }
    if (!quals.empty()) {
        d.qualifier = join(quals);
        const std::string& owner = quals.back();
        bool allNamespaces = true;
        for (auto& q : quals) {
            bool known = false;
            for (auto& ns : c.namespaces)
                known = known || ns == q || ns.starts_with(q + "::") || ns.ends_with("::" + q) ||
                        ns.find("::" + q + "::") != std::string::npos;
            allNamespaces = allNamespaces && known;
        }
        if (d.name == owner)
            d.kind = "constructor";
        else
            d.kind = allNamespaces ? "function" : "method";
        return true;
    }
    if (isClassKind(c.scope))
        d.kind = d.name == c.scope->name ? "constructor" : "method";
    else
        d.kind = "function";
    return true;
}

bool record(const DefContext& c, TSNode n, Def& d, const char* kind) {
    const LangSpec& S = c.spec;
    if (ts_node_is_null(field(S, n, S.f.body))) return false; // a use, not a definition
    TSNode name = field(S, n, S.f.name);
    if (ts_node_is_null(name)) return false;
    std::vector<std::string> quals;
    if (S.type(name) == "template_type") { // an explicit specialisation: X<int>
        d.nameNode = name;
        d.name = compactText(c.src, name);
    } else {
        d.name = splitQualified(c, name, d.nameNode, quals);
    }
    d.qualifier = join(quals);
    d.kind = kind;
    return !d.name.empty();
}

bool typedefinition(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    TSNode name = declaredName(S, field(S, n, S.f.declarator));
    if (ts_node_is_null(name)) return false;
    // `typedef uch FAR uchf;`: the macro makes the parser guess which word is
    // the name, and its guess follows the layout. The name is the last word.
    for (uint32_t i = 0, count = ts_node_child_count(n); i < count; ++i) {
        TSNode ch = ts_node_child(n, i);
        if (S.type(ch) != "ERROR" || ts_node_start_byte(ch) < ts_node_end_byte(name)) continue;
        uint32_t k = ts_node_named_child_count(ch);
        TSNode last = k ? ts_node_named_child(ch, k - 1) : TSNode{};
        if (!ts_node_is_null(last) && isNameType(S.type(last))) name = last;
    }
    d.nameNode = name;
    d.name = std::string(nodeText(c.src, name));
    d.kind = "type";
    TSNode type = field(S, n, S.f.type);
    std::string_view tt = ts_node_is_null(type) ? "" : S.type(type);
    bool record = tt == "struct_specifier" || tt == "union_specifier" || tt == "enum_specifier" ||
                  tt == "class_specifier";
    if (record && !ts_node_is_null(field(S, type, S.f.body))) {
        TSNode tag = field(S, type, S.f.name);
        if (ts_node_is_null(tag)) // typedef struct { ... } Name;
            d.kind = tt == "enum_specifier" ? "enum" : tt == "class_specifier" ? "class" : "struct";
        else if (nodeText(c.src, tag) == d.name) // typedef struct S { ... } S;
            return false;
    }
    return true;
}

bool classify(const DefContext& c, TSNode n, Def& d) {
    const LangSpec& S = c.spec;
    std::string_view t = S.type(n);
    if (t == "preproc_def" || t == "preproc_function_def") {
        // Macros have one namespace, whatever encloses their #define. The
        // name is the first word after #define: a comment in the body can
        // make the parser take a later word for it and the real one for an
        // ERROR.
        TSNode name{};
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count && ts_node_is_null(name); ++i) {
            TSNode ch = ts_node_named_child(n, i);
            if (S.flagsOf(ch) & kComment) continue;
            if (S.type(ch) == "ERROR" && ts_node_named_child_count(ch) > 0)
                ch = ts_node_named_child(ch, 0);
            if (S.type(ch) != "identifier") break;
            name = ch;
        }
        if (ts_node_is_null(name)) return false;
        d.nameNode = name;
        d.name = std::string(nodeText(c.src, name));
        d.kind = "macro";
        d.global = true;
        d.body = field(S, n, S.f.value);
        return true;
    }
    if (t == "declaration") {
        // `auto parse = [&](std::string_view s) { ... };`: a lambda bound to a name.
        if (S.lang != Lang::Cpp) return false;
        // Most declarations are variables: look no further than the first.
        TSNode first = field(S, n, S.f.declarator);
        if (ts_node_is_null(first) || S.type(first) != "init_declarator") return false;
        TSNode firstValue = field(S, first, S.f.value);
        if (ts_node_is_null(firstValue) || S.type(firstValue) != "lambda_expression") return false;
        TSNode only{};
        uint32_t inits = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
            TSNode ch = ts_node_named_child(n, i);
            if (S.type(ch) == "init_declarator") {
                ++inits;
                only = ch;
            }
        }
        if (inits != 1) return false;
        return boundFunction(c, field(S, only, S.f.declarator), field(S, only, S.f.value),
                             "lambda_expression", d);
    }
    // Inside a template the template_declaration is the definition node.
    if (!ts_node_is_null(c.parent) && S.type(c.parent) == "template_declaration") return false;
    if (t == "function_definition") return function(c, n, d);
    if (t == "struct_specifier") return record(c, n, d, "struct");
    if (t == "union_specifier") return record(c, n, d, "struct");
    if (t == "class_specifier") return record(c, n, d, "class");
    if (t == "enum_specifier") return record(c, n, d, "enum");
    if (t == "type_definition") return typedefinition(c, n, d);
    if (t == "alias_declaration") {
        TSNode name = field(S, n, S.f.name);
        if (ts_node_is_null(name)) return false;
        d.nameNode = name;
        d.name = std::string(nodeText(c.src, name));
        d.kind = "type";
        return true;
    }
    if (t == "namespace_definition") {
        TSNode name = field(S, n, S.f.name);
        if (ts_node_is_null(name)) return false; // anonymous: no scope of its own
        d.nameNode = name;
        d.name = compactText(c.src, name);
        d.kind = "namespace";
        return true;
    }
    if (t == "template_declaration") {
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; ++i) {
            TSNode inner = ts_node_named_child(n, i);
            std::string_view it = S.type(inner);
            if (it == "template_parameter_list" || (S.flagsOf(inner) & kComment)) continue;
            // template <..> template <..>: the innermost one finds the definition.
            Def id;
            DefContext plain{c.spec, c.src, c.scope, TSNode{}, c.namespaces};
            if (!classify(plain, inner, id)) return false;
            d = std::move(id);
            d.inner = inner;
            return true;
        }
    }
    return false;
}

} // namespace

LangRules cRules(Lang lang) {
    LangRules r{{"function_definition", "struct_specifier", "union_specifier", "enum_specifier",
                 "type_definition", "preproc_def", "preproc_function_def"},
                {},
                classify,
                nullptr,
                {},
                {},
                {"preproc_arg"}};
    if (lang == Lang::Cpp)
        for (auto t : {"class_specifier", "namespace_definition", "template_declaration",
                       "alias_declaration", "declaration"})
            r.definitions.push_back(t);
    if (lang == Lang::Cpp) r.sign = parameterTypes;
    return r;
}

} // namespace engram::syntax::detail
