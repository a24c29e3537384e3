// Lines the C and C++ grammars are not shown: a macro invoked alone on its
// line without a semicolon (`FMT_BEGIN_NAMESPACE`, `G_BEGIN_DECLS`,
// `Q_OBJECT`, `NLOHMANN_JSON_NAMESPACE_BEGIN`).
//
// Why: tree-sitter parses C without the preprocessor, and such a line reads
// as the start of a declaration, so the parser swallows what follows into
// it (a namespace becomes a function named `namespace`, a whole header one
// declaration) and recovers differently for every layout. A compiler sees
// what the macro expands to; engram sees nothing there, which is closer.
// The parser is given the rest of the text as its included ranges, so byte
// offsets stay the file's own.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool upperWord(std::string_view w) {
    if (w.size() < 3) return false;
    bool underscore = false;
    for (char c : w) {
        if (c == '_')
            underscore = true;
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return (underscore || w.size() >= 6) && !(w[0] >= '0' && w[0] <= '9');
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// `NAME` or `NAME(args)` with balanced parentheses, a trailing `//`
// comment aside.
bool bareMacro(std::string_view line) {
    if (auto c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    line = trim(line);
    size_t i = 0;
    while (i < line.size() && ((line[i] >= 'A' && line[i] <= 'Z') ||
                               (line[i] >= '0' && line[i] <= '9') || line[i] == '_'))
        ++i;
    if (!upperWord(line.substr(0, i))) return false;
    std::string_view rest = trim(line.substr(i));
    if (rest.empty()) return true;
    if (rest.front() != '(' || rest.back() != ')') return false;
    int depth = 0;
    for (size_t k = 0; k < rest.size(); ++k) {
        depth += rest[k] == '(' ? 1 : rest[k] == ')' ? -1 : 0;
        if (depth == 0 && k + 1 != rest.size()) return false;
    }
    return depth == 0;
}

// `name (`, `ns::Class::Class(`, `~Class (`, `operator== (`: a line that
// starts with a declarator and its parameter list.
bool declaratorHead(std::string_view line) {
    size_t i = 0;
    auto word = [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    };
    while (i < line.size() && (word(line[i]) || line[i] == ':' || line[i] == '~' ||
                               line[i] == '<' || line[i] == '>' || line[i] == ','))
        ++i;
    if (i == 0) return false;
    if (line.substr(0, i).ends_with("operator")) return true;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
    return i < line.size() && line[i] == '(';
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> bareMacroLines(std::string_view text) {
    struct Line {
        uint32_t begin, end; // end: before the line break
        std::string_view code;
        bool blockComment; // inside /* */ all along
    };
    std::vector<Line> lines;
    bool inComment = false;
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = text.substr(at, nl - at);
        bool wholeComment = inComment;
        // Track /* */ across lines (a rough scan: strings holding "/*" are rare
        // on lines that matter here).
        for (size_t k = 0; k + 1 < l.size(); ++k) {
            if (!inComment && l[k] == '/' && l[k + 1] == '/') break;
            if (!inComment && l[k] == '/' && l[k + 1] == '*') {
                inComment = true;
                ++k;
            } else if (inComment && l[k] == '*' && l[k + 1] == '/') {
                inComment = false;
                ++k;
            }
        }
        lines.push_back({uint32_t(at), uint32_t(nl), trim(l), wholeComment && inComment});
        at = nl + 1;
    }
    auto significant = [&](size_t k) {
        const Line& l = lines[k];
        return !l.blockComment && !l.code.empty() && !l.code.starts_with("//") &&
               !l.code.starts_with("/*") && !l.code.starts_with("*");
    };
    std::vector<std::pair<uint32_t, uint32_t>> out;
    bool continued = false; // the previous line ended with a backslash
    for (size_t k = 0; k < lines.size(); ++k) {
        const Line& l = lines[k];
        bool cont = continued;
        continued = !l.code.empty() && l.code.back() == '\\';
        if (cont || l.blockComment || !bareMacro(l.code)) continue;
        // What comes before ends a declaration or opens a scope.
        size_t p = k;
        while (p > 0 && !significant(p - 1))
            --p;
        if (p > 0) {
            std::string_view prev = lines[p - 1].code;
            if (auto c = prev.find("//"); c != std::string_view::npos)
                prev = trim(prev.substr(0, c));
            char last = prev.empty() ? ';' : prev.back();
            if (!(last == ';' || last == '{' || last == '}' || last == ':' || prev.front() == '#' ||
                  prev.ends_with("*/") || bareMacro(prev)))
                continue;
        }
        // What comes after starts a declaration, not an expression.
        size_t q = k + 1;
        while (q < lines.size() && !significant(q))
            ++q;
        if (q < lines.size()) {
            char first = lines[q].code.front();
            bool word =
                (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_';
            if (!(word || first == '#' || first == '}' || first == '~' || first == '[')) continue;
            // A declarator's head (`name (`, `Class::Class(`): the macro is the
            // return type a GNU-style layout put on its own line (`FMT_FUNC`
            // before a constructor). It is part of that definition, and shown.
            if (declaratorHead(lines[q].code)) continue;
        }
        out.push_back({l.begin, l.end});
    }
    return out;
}

} // namespace engram::syntax::detail
