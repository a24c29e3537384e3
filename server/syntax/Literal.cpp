// Text normalisation of single tokens for the hash stream: what formatters
// rewrite inside a token without changing its meaning.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

} // namespace

std::string_view collapseSpace(std::string_view t, std::string& scratch) {
    bool clean = true;
    for (size_t i = 0; i < t.size(); ++i) {
        if ((unsigned char)t[i] > ' ') continue;
        if (isSpace(t[i]) && (t[i] != ' ' || i == 0 || i + 1 == t.size() || t[i + 1] == ' ')) {
            clean = false;
            break;
        }
    }
    if (clean) return t;
    scratch.clear();
    bool space = false;
    for (char c : t) {
        if (isSpace(c)) {
            space = true;
            continue;
        }
        if (space && !scratch.empty()) scratch += ' ';
        space = false;
        scratch += c;
    }
    return scratch;
}

std::string_view canonicalNumber(Lang lang, std::string_view t, std::string& scratch) {
    scratch.assign(t);
    for (char& c : scratch)
        c = lower(c);
    bool js = lang == Lang::JavaScript || lang == Lang::TypeScript || lang == Lang::Tsx;
    if (!js || scratch.find_first_of("xbon_") != std::string::npos) return scratch;
    // prettier: "1.50" -> "1.5", "5." -> "5", ".5" -> "0.5", "1e+05" -> "1e5",
    // "2e0" -> "2". All name the same number, so they compare equal here.
    std::string mant = scratch, exp;
    if (auto e = scratch.find('e'); e != std::string::npos) {
        mant = scratch.substr(0, e);
        exp = scratch.substr(e + 1);
        bool negative = !exp.empty() && exp[0] == '-';
        if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
        size_t zeros = exp.find_first_not_of('0');
        exp = zeros == std::string::npos ? "" : exp.substr(zeros);
        if (negative && !exp.empty()) exp.insert(0, "-");
    }
    if (auto dot = mant.find('.'); dot != std::string::npos) {
        while (mant.size() > dot + 1 && mant.back() == '0')
            mant.pop_back();
        if (!mant.empty() && mant.back() == '.') mant.pop_back();
        if (mant.empty() || mant[0] == '.') mant.insert(0, "0");
    }
    scratch = mant;
    if (!exp.empty()) scratch += "e" + exp;
    return scratch;
}

void docstringText(std::string_view run, std::string& out) {
    size_t i = 0;
    while (i <= run.size()) {
        size_t nl = run.find('\n', i);
        if (nl == std::string_view::npos) nl = run.size();
        std::string_view line = run.substr(i, nl - i);
        while (!line.empty() && isSpace(line.front()))
            line.remove_prefix(1);
        while (!line.empty() && isSpace(line.back()))
            line.remove_suffix(1);
        if (!out.empty() || !line.empty()) {
            out.append(line);
            out += '\n';
        }
        i = nl + 1;
    }
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
}

void pythonPrefix(std::string_view prefix, std::string& out) {
    for (char c : prefix)
        if (lower(c) != 'u') out += lower(c);
}

namespace {

bool wordByte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

bool operatorByte(char c) {
    return std::string_view("+-*/%&|^<>=!~.:#?").find(c) != std::string_view::npos;
}

} // namespace

void compactCode(std::string_view text, std::string& out) {
    bool pending = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        // Comments are not code (the parser may leave one inside a macro
        // body); literals are kept as written.
        if (c == '/' && i + 1 < text.size() && (text[i + 1] == '*' || text[i + 1] == '/')) {
            size_t e = text[i + 1] == '*' ? text.find("*/", i + 2) : text.find('\n', i);
            i = e == std::string_view::npos ? text.size() : (text[i + 1] == '*' ? e + 1 : e - 1);
            pending = true;
            continue;
        }
        if (c == '"' || c == '\'') {
            if (pending && !out.empty() && wordByte(out.back())) out += ' ';
            pending = false;
            size_t s = i;
            for (++i; i < text.size() && text[i] != c; ++i)
                if (text[i] == '\\') ++i;
            out.append(text.substr(s, std::min(i + 1, text.size()) - s));
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            pending = true;
            continue;
        }
        if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            pending = true;
            continue;
        }
        if (pending && !out.empty()) {
            char p = out.back();
            if ((wordByte(p) && wordByte(c)) || (operatorByte(p) && operatorByte(c))) out += ' ';
        }
        pending = false;
        out += c;
    }
}

} // namespace engram::syntax::detail
