// Assignments: the password-assignment rule, values given to password, secret and token
// settings ("password=hunter2", "api_key: '...'", "dbPassword = '...'"), and the placeholder
// test shared with the URL-password rule.
//
// A hand-written scanner rather than a pattern: whether a value is a secret depends on what it
// looks like as code (a call, a member access, a CONSTANT) and on placeholder conventions,
// which are easier to state, and to keep linear, as code than as a regular expression.
#include "secrets/Chars.h"
#include "secrets/Rules.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace engram::secrets {

using namespace chars;

namespace {

// Longest first, so that "access_token" is consumed before its "token" suffix is tried.
constexpr std::array<std::string_view, 11> kSecretKeys{
    "client_secret", "access_token", "auth_token", "password", "api_key", "api-key",
    "apikey",        "passwd",       "secret",     "token",    "pwd",
};

// Also accepts a camelCase hump ("dbPassword", "accessToken"): same key, different style.
bool keyBoundaryBefore(std::string_view t, std::size_t i) {
    return i == 0 || !isAlnum(t[i - 1]) || (isLower(t[i - 1]) && isUpper(t[i]));
}

// Template and variable syntaxes that a deployment fills in: "{{ db_password }}", "%s",
// "%(password)s", "%DB_PASSWORD%", "@DB_PASSWORD@", "$(DB_PASSWORD)".
bool isTemplate(std::string_view v) {
    if (v.starts_with("{{") && v.ends_with("}}")) return true;
    if (v == "%s" || (v.starts_with("%(") && v.ends_with(")s"))) return true;
    const auto isName = [](std::string_view n) {
        return !n.empty() && std::all_of(n.begin(), n.end(), isWordChar);
    };
    if (v.size() > 2 &&
        ((v.front() == '%' && v.back() == '%') || (v.front() == '@' && v.back() == '@')))
        return isName(v.substr(1, v.size() - 2));
    if (v.starts_with("$(") && v.back() == ')') return isName(v.substr(2, v.size() - 3));
    return false;
}

// Words that name a credential field. A value made of them ("password", "YOUR_API_KEY",
// "my-secret-token", "<db_password>" without brackets) names the setting instead of filling it.
constexpr std::array<std::string_view, 17> kFieldWords{
    "credentials", "credential", "password", "private", "passwd", "secret",
    "access",      "client",     "token",    "auth",    "pass",   "user",
    "key",         "api",        "pwd",      "db",      "pw",
};
constexpr std::array<std::string_view, 10> kCoreWords{
    "credentials", "credential", "password", "passwd", "secret",
    "token",       "pass",       "key",      "pwd",    "pw",
};

// True if s splits entirely into kFieldWords with at least one credential word among them.
bool splitsIntoFieldWords(std::string_view s) {
    constexpr std::size_t kMax = 48;
    if (s.empty() || s.size() > kMax) return false;
    // reach[i]: s[0, i) splits; core[i]: and one of the parts was a credential word.
    std::array<bool, kMax + 1> reach{};
    std::array<bool, kMax + 1> core{};
    reach[0] = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!reach[i]) continue;
        for (std::string_view w : kFieldWords) {
            if (s.substr(i, w.size()) != w) continue;
            const bool isCore =
                std::find(kCoreWords.begin(), kCoreWords.end(), w) != kCoreWords.end();
            reach[i + w.size()] = true;
            core[i + w.size()] = core[i + w.size()] || core[i] || isCore;
        }
    }
    return reach[s.size()] && core[s.size()];
}

bool isPlaceholderWord(std::string_view v) {
    // "xoxb-your-token-here", "YOUR_KEY": a word "your" only ever asks the reader for a value.
    std::size_t w = 0;
    while (w < v.size()) {
        const std::size_t wordEnd = runEnd(v, w, isAlnum);
        if (equalsIgnoreCase(v.substr(w, wordEnd - w), "your")) return true;
        w = wordEnd + 1;
    }
    std::string folded; // lowercase letters and digits only: "YOUR_API_KEY" -> "yourapikey"
    for (char c : v) {
        if (isAlnum(c))
            folded += toLower(c);
        else if (c != '_' && c != '-' && c != '.' && c != ' ')
            return false;
    }
    std::string_view s = folded;
    for (std::string_view prefix : {"your", "my", "the", "some", "example", "sample", "dummy"})
        if (s.starts_with(prefix)) {
            s.remove_prefix(prefix.size());
            break;
        }
    if (s.ends_with("here")) s.remove_suffix(4); // "your-password-here"
    return splitsIntoFieldWords(s);
}

} // namespace

// Values that stand for a secret without being one. Type names are included because claims
// about code routinely say "password: string"; a secret that is literally a type name is not
// worth refusing every such claim for.
bool isPlaceholder(std::string_view v, std::string_view key) {
    // An authorization header's scheme is not part of the credential: "Bearer <token>".
    for (std::string_view scheme : {"Bearer ", "Basic ", "Token ", "bearer "})
        if (v.size() > scheme.size() && v.starts_with(scheme)) {
            v.remove_prefix(scheme.size());
            break;
        }
    if (v.empty()) return true;
    if (v.front() == '<' && v.back() == '>') return true;
    if (v.starts_with("${") && v.back() == '}') return true;
    if (v.front() == '$' && v.size() > 1 && !isDigit(v[1]) &&
        std::all_of(v.begin() + 1, v.end(), isWordChar))
        return true;
    if (v.size() >= 9 && equalsIgnoreCase(v.substr(0, 9), "[redacted")) return true;
    // "pwd" is also the shell's working directory: PWD=/home/... is a path.
    if (key == "pwd" && (v.front() == '/' || v.front() == '~')) return true;

    std::string_view core = v; // "xxxx..." and "hunter..." style elisions
    while (true) {
        if (core.ends_with(".")) {
            core.remove_suffix(1);
        } else if (core.ends_with("\xE2\x80\xA6")) { // U+2026 HORIZONTAL ELLIPSIS
            core.remove_suffix(3);
        } else {
            break;
        }
    }
    if (core.empty()) return true;
    if (std::all_of(core.begin(), core.end(), [](char c) { return c == '*'; })) return true;
    // Masked or x-ed out, possibly after a vendor prefix: "xxxxxx", "sk-xxxx...", "AKIAXXXX...".
    const auto masked = std::count_if(core.begin(), core.end(),
                                      [](char c) { return c == 'x' || c == 'X' || c == '*'; });
    if (std::size_t(masked) == core.size() ||
        (masked >= 6 && 3 * std::size_t(masked) >= 2 * core.size()))
        return true;

    if (isTemplate(v) || isPlaceholderWord(v)) return true;
    for (std::string_view word : {"null", "none", "nil", "undefined", "redacted"})
        if (equalsIgnoreCase(v, word)) return true;
    for (std::string_view type :
         {"string", "String", "str", "&str", "bytes", "[]byte", "number", "boolean", "SecretStr",
          "SecretString", "Option<String>", "Optional[str]"})
        if (v == type) return true;
    return false;
}

namespace {

// True if an identifier refers to a credential rather than being one: it is a key word itself
// ("password") or a snake_case name with a credential word in it ("last_external_token"); with
// camel, a camelCase one too ("refreshToken").
bool namesSecret(std::string_view ident, bool camel) {
    for (std::string_view key : kSecretKeys)
        if (equalsIgnoreCase(ident, key)) return true;
    if (!camel && ident.find('_') == npos) return false;
    constexpr std::array<std::string_view, 9> kWords{
        "password", "passwd", "pwd",        "secret",      "token",
        "key",      "apikey", "credential", "credentials",
    };
    std::size_t i = 0;
    while (i < ident.size()) {
        if (ident[i] == '_' || ident[i] == '$') {
            ++i;
            continue;
        }
        // A word is one lowercase run, optionally capitalised ("externalToken" -> external, Token).
        std::size_t j = i + 1;
        if (isUpper(ident[i]) && j < ident.size() && isUpper(ident[j])) {
            while (j < ident.size() && (isUpper(ident[j]) || isDigit(ident[j])))
                ++j;
        } else {
            while (j < ident.size() && (isLower(ident[j]) || isDigit(ident[j])))
                ++j;
        }
        const std::string_view word = ident.substr(i, j - i);
        for (std::string_view w : kWords)
            if (equalsIgnoreCase(word, w)) return true;
        i = j;
    }
    return false;
}

// Unquoted values in code are expressions, not literals: "token = next_token(lexer)",
// "c->password = g_strdup(value)", "secret = config.client_secret", "tok = NULL_SUBTREE".
// Literal secrets in code are quoted, and config-file secrets (.env, YAML) are not shaped so.
bool isCodeReference(std::string_view v) {
    constexpr std::array<std::string_view, 14> kRoots{
        "self", "this",    "process", "os",      "config", "settings", "cfg",
        "env",  "options", "opts",    "request", "req",    "ctx",      "context",
    };
    const auto isIdentStart = [](char c) { return isAlpha(c) || c == '_' || c == '$'; };
    const auto isIdentChar = [](char c) { return isAlnum(c) || c == '_' || c == '$'; };
    std::size_t i = 0;
    std::size_t components = 0;
    bool viaPointer = false;
    bool secretName = false;
    bool camelSecretName = false;
    std::string_view first;
    while (true) {
        if (i >= v.size() || !isIdentStart(v[i])) return false;
        const std::size_t start = i;
        i = runEnd(v, i, isIdentChar);
        const std::string_view ident = v.substr(start, i - start);
        if (components++ == 0) first = ident;
        secretName = secretName || namesSecret(ident, false);
        camelSecretName = camelSecretName || namesSecret(ident, true);
        if (i == v.size()) break;
        if (v[i] == '(' || v[i] == '[') return true; // call or index expression
        if (v[i] == '.') {
            ++i;
        } else if (v.substr(i, 2) == "->" || v.substr(i, 2) == "::") {
            viaPointer = true;
            i += 2;
        } else {
            return false;
        }
    }
    if (viaPointer || secretName) return true;
    // "response.accessToken", "cancellationToken": a member or a lowerCamelCase variable named
    // for a credential. A capitalised word stays a value: "MySecretPassword1" may be the secret.
    if (camelSecretName && (components > 1 || isLower(first.front()))) return true;
    if (components > 1) return std::find(kRoots.begin(), kRoots.end(), first) != kRoots.end();
    // CONSTANT_NAME: a named constant, like the $NAME placeholders.
    return v.find('_') != npos && std::all_of(v.begin(), v.end(), [](char c) {
               return isUpper(c) || isDigit(c) || c == '_';
           });
}

// The secret value assigned after a key ending at k, as a span, if there is one.
std::optional<std::pair<std::size_t, std::size_t>> assignedValue(std::string_view t, std::size_t k,
                                                                 std::string_view key) {
    constexpr std::size_t kMaxQuoted = 1024;
    constexpr std::size_t kMaxPlaceholder = 256;
    const std::size_t n = t.size();
    if (k < n && isAlnum(t[k])) return std::nullopt; // "tokens", "passwordHash"
    if (k < n && (t[k] == '"' || t[k] == '\'')) ++k; // JSON/YAML quoted key
    while (k < n && isBlank(t[k]))
        ++k;
    if (k >= n || (t[k] != '=' && t[k] != ':')) return std::nullopt;
    const char op = t[k++];
    if (k < n) {
        if (op == '=' && t[k] == '=') return std::nullopt; // comparison, not assignment
        if (op == ':' && t[k] == ':') return std::nullopt; // scope resolution
        if ((op == '=' && t[k] == '>') || (op == ':' && t[k] == '=')) ++k; // "=>", ":="
    }
    while (k < n && isBlank(t[k]))
        ++k;
    if (k >= n) return std::nullopt;

    std::size_t begin = k;
    std::size_t end = npos;
    const bool literal = isQuote(t[k]);
    if (literal) {
        begin = k + 1;
        const std::size_t close = findOnLine(t, begin, t[k], kMaxQuoted);
        if (close != npos) end = close; // quoted values may contain spaces
    }
    if (end == npos) {
        if (begin >= n) return std::nullopt;
        // "<your password>" and "${DB_PASSWORD}" may contain spaces; recognise them whole.
        if (t[begin] == '<' && findOnLine(t, begin + 1, '>', kMaxPlaceholder) != npos)
            return std::nullopt;
        if (t.substr(begin, 2) == "${" && findOnLine(t, begin + 2, '}', kMaxPlaceholder) != npos)
            return std::nullopt;
        end = runEnd(t, begin, [](char c) { return !isSpace(c) && !isQuote(c); });
        while (end > begin && std::string_view(",;:.)]}").find(t[end - 1]) != npos)
            --end;
    }
    const std::string_view value = t.substr(begin, end - begin);
    if (value.size() < 6 || isPlaceholder(value, key)) return std::nullopt;
    if (!literal && isCodeReference(value)) return std::nullopt;
    return std::pair{begin, end};
}

} // namespace

void scanAssignments(std::string_view t, Candidates& out) {
    std::size_t i = 0;
    while (i < t.size()) {
        std::size_t next = i + 1;
        const char c = toLower(t[i]);
        if ((c == 'p' || c == 's' || c == 'a' || c == 't' || c == 'c') && keyBoundaryBefore(t, i)) {
            for (std::string_view key : kSecretKeys) {
                if (!startsWithIgnoreCase(t, i, key)) continue;
                if (auto span = assignedValue(t, i + key.size(), key)) {
                    out.push_back({Rule::PasswordAssignment, span->first, span->second});
                    next = std::max(next, span->second);
                }
                break;
            }
        }
        i = next;
    }
}

} // namespace engram::secrets
