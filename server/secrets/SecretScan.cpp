// SecretScan: hand-written detectors for credentials and merge-conflict markers in claim text.
//
// Every detector is a forward scan that either consumes what it looked at or gives up after a
// bounded look-ahead, so the whole scan stays linear even on hostile 1 MiB input (std::regex
// backtracks and recurses; it is deliberately not used). Detectors run independently and may
// overlap; a final pass keeps the most specific rule for each stretch of text. Heuristics lean
// towards flagging: a false positive costs an agent a rephrase, a false negative leaks into git.
#include "secrets/SecretScan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <utility>

namespace engram::secrets {
namespace {

constexpr std::size_t kMaxInputBytes = std::size_t{1} << 20;
constexpr std::size_t npos = std::string_view::npos;

// Declaration order is specificity: when spans of two rules overlap, the earlier rule wins.
enum class Rule : std::size_t {
    PrivateKey,
    MergeConflictMarker,
    GithubToken,
    AwsAccessKey,
    SlackToken,
    OpenAiKey,
    Jwt,
    OnePasswordRef,
    PasswordAssignment,
    HighEntropyToken,
};

struct RuleInfo {
    std::string_view id;
    std::string_view description;
};

constexpr std::array<RuleInfo, 10> kRules{{
    {"private-key", "private key block (PEM, OpenSSH or PGP)"},
    {"merge-conflict-marker", "unresolved merge conflict marker"},
    {"github-token", "GitHub personal access token"},
    {"aws-access-key", "AWS access key ID"},
    {"slack-token", "Slack API token"},
    {"openai-key", "OpenAI-style secret API key"},
    {"jwt", "JSON Web Token"},
    {"1password-ref", "1Password secret reference"},
    {"password-assignment", "value assigned to a password, secret or token setting"},
    {"high-entropy-token", "high-entropy string that looks like a credential"},
}};

const RuleInfo& info(Rule r) {
    return kRules[static_cast<std::size_t>(r)];
}

struct Candidate {
    Rule rule;
    std::size_t begin;
    std::size_t end;
};
using Candidates = std::vector<Candidate>;

// ASCII-only classification: <cctype> is locale-dependent and undefined for negative chars.
constexpr bool isLower(char c) {
    return c >= 'a' && c <= 'z';
}
constexpr bool isUpper(char c) {
    return c >= 'A' && c <= 'Z';
}
constexpr bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
constexpr bool isAlpha(char c) {
    return isLower(c) || isUpper(c);
}
constexpr bool isAlnum(char c) {
    return isAlpha(c) || isDigit(c);
}
constexpr bool isWordChar(char c) {
    return isAlnum(c) || c == '_';
}
constexpr bool isB64Url(char c) {
    return isAlnum(c) || c == '_' || c == '-';
}
constexpr bool isTokenSymbol(char c) {
    return c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
}
constexpr bool isTokenChar(char c) {
    return isAlnum(c) || isTokenSymbol(c);
}
constexpr bool isHex(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr bool isBlank(char c) {
    return c == ' ' || c == '\t';
}
constexpr bool isSpace(char c) {
    return isBlank(c) || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool isQuote(char c) {
    return c == '"' || c == '\'' || c == '`';
}
constexpr char toLower(char c) {
    return isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}

template <typename Pred>
std::size_t runEnd(std::string_view t, std::size_t i, Pred pred) {
    while (i < t.size() && pred(t[i]))
        ++i;
    return i;
}

// Prefixed tokens are often glued to punctuation ("key=ghp_...", "x-sk-..."), so only a letter
// or digit before the prefix disqualifies it; '_' and '-' count as boundaries.
bool boundaryBefore(std::string_view t, std::size_t i) {
    return i == 0 || !isAlnum(t[i - 1]);
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (toLower(a[i]) != toLower(b[i])) return false;
    return true;
}

// Position of c on the current line within max bytes of from, or npos: bounded so that many
// unterminated openers cannot make the scan quadratic.
std::size_t findOnLine(std::string_view t, std::size_t from, char c, std::size_t max) {
    const std::size_t limit = std::min(t.size(), from + max);
    for (std::size_t i = from; i < limit; ++i) {
        if (t[i] == c) return i;
        if (t[i] == '\n') return npos;
    }
    return npos;
}

// --- private-key -------------------------------------------------------------------------

void scanPrivateKeys(std::string_view t, Candidates& out) {
    constexpr std::string_view kBegin = "-----BEGIN ";
    constexpr std::size_t kMaxLabel = 64;
    std::size_t pos = 0;
    while ((pos = t.find(kBegin, pos)) != npos) {
        const std::size_t labelStart = pos + kBegin.size();
        std::size_t j = labelStart;
        while (j < t.size() && j - labelStart < kMaxLabel &&
               (isUpper(t[j]) || isDigit(t[j]) || t[j] == ' '))
            ++j;
        const std::string_view label = t.substr(labelStart, j - labelStart);
        if (t.substr(j, 5) != "-----" || label.find("PRIVATE KEY") == npos) {
            pos = labelStart;
            continue;
        }
        std::string endMarker = "-----END ";
        endMarker.append(label).append("-----");
        const std::size_t endPos = t.find(endMarker, j + 5);
        // Without an END line, everything after the header may be key material.
        const std::size_t end = endPos == npos ? t.size() : endPos + endMarker.size();
        out.push_back({Rule::PrivateKey, pos, end});
        pos = end;
    }
}

// --- merge-conflict-marker ---------------------------------------------------------------

bool isConflictMarkerLine(std::string_view line) {
    if (line == "=======") return true;
    // diff3-style base markers ("|||||||") are the same debris as the two in the spec.
    for (std::string_view m : {"<<<<<<<", ">>>>>>>", "|||||||"}) {
        if (line.starts_with(m) && (line.size() == m.size() || line[m.size()] == ' ')) return true;
    }
    return false;
}

void scanMergeMarkers(std::string_view t, Candidates& out) {
    std::size_t lineStart = 0;
    while (lineStart < t.size()) {
        const std::size_t nl = t.find('\n', lineStart);
        std::size_t lineEnd = nl == npos ? t.size() : nl;
        if (lineEnd > lineStart && t[lineEnd - 1] == '\r') --lineEnd;
        if (isConflictMarkerLine(t.substr(lineStart, lineEnd - lineStart)))
            out.push_back({Rule::MergeConflictMarker, lineStart, lineEnd});
        if (nl == npos) break;
        lineStart = nl + 1;
    }
}

// --- prefixed vendor tokens --------------------------------------------------------------

void scanGithub(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("gh", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos) && pos + 4 <= t.size() && t[pos + 3] == '_' &&
            std::string_view("pousr").find(t[pos + 2]) != npos) {
            const std::size_t body = pos + 4;
            const std::size_t end = runEnd(t, body, isAlnum);
            if (end - body >= 30) {
                out.push_back({Rule::GithubToken, pos, end});
                next = end;
            }
            // On failure resume at pos + 1: "ghp_ghp_<token>" must still find the inner one.
        }
        pos = next;
    }

    constexpr std::string_view kPat = "github_pat_";
    pos = 0;
    while ((pos = t.find(kPat, pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t body = pos + kPat.size();
            const std::size_t end = runEnd(t, body, isWordChar);
            if (end - body >= 40) out.push_back({Rule::GithubToken, pos, end});
            // Any later prefix inside this run has a shorter body, so it cannot match either.
            next = end;
        }
        pos = next;
    }
}

void scanOpenAi(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("sk-", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t body = pos + 3;
            const std::size_t end = runEnd(t, body, isB64Url);
            // Real keys are random base62; requiring one digit or capital keeps hyphenated
            // lowercase identifiers ("sk-learn-compatible-...") out.
            const bool mixed = std::any_of(t.begin() + body, t.begin() + end,
                                           [](char c) { return isDigit(c) || isUpper(c); });
            if (end - body >= 20 && mixed) out.push_back({Rule::OpenAiKey, pos, end});
            // A later "sk-" in the same run sees a subset of this body: same verdict.
            next = end;
        }
        pos = next;
    }
}

void scanAws(std::string_view t, Candidates& out) {
    for (std::string_view prefix : {"AKIA", "ASIA"}) {
        std::size_t pos = 0;
        while ((pos = t.find(prefix, pos)) != npos) {
            std::size_t next = pos + 1;
            const std::size_t body = pos + 4;
            const std::size_t end = body + 16;
            if (boundaryBefore(t, pos) && end <= t.size() &&
                std::all_of(t.begin() + body, t.begin() + end,
                            [](char c) { return isUpper(c) || isDigit(c); }) &&
                (end == t.size() || !isAlnum(t[end]))) {
                out.push_back({Rule::AwsAccessKey, pos, end});
                next = end;
            }
            pos = next;
        }
    }
}

void scanSlack(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("xox", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos) && pos + 5 <= t.size() && t[pos + 4] == '-' &&
            std::string_view("abprs").find(t[pos + 3]) != npos) {
            const std::size_t body = pos + 5;
            const std::size_t end = runEnd(t, body, [](char c) { return isAlnum(c) || c == '-'; });
            if (end - body >= 10) out.push_back({Rule::SlackToken, pos, end});
            next = end;
        }
        pos = next;
    }
}

void scanOnePassword(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("op://", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t body = pos + 5;
            std::size_t end =
                runEnd(t, body, [](char c) { return !isSpace(c) && !isQuote(c) && c != '<'; });
            // Sentence punctuation after a reference is prose, not part of the path.
            while (end > body && std::string_view(".,;:)]}>").find(t[end - 1]) != npos)
                --end;
            if (end > body) {
                out.push_back({Rule::OnePasswordRef, pos, end});
                next = end;
            }
        }
        pos = next;
    }
}

void scanJwt(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("eyJ", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t headerEnd = runEnd(t, pos, isB64Url);
            next = headerEnd; // later "eyJ" in this run share its dots, so share its verdict
            if (headerEnd - pos < 10 || headerEnd >= t.size() || t[headerEnd] != '.') {
                pos = next;
                continue;
            }
            const std::size_t payload = headerEnd + 1;
            if (t.substr(payload, 3) != "eyJ") {
                pos = next;
                continue;
            }
            const std::size_t payloadEnd = runEnd(t, payload, isB64Url);
            if (payloadEnd - payload < 10 || payloadEnd >= t.size() || t[payloadEnd] != '.') {
                pos = next;
                continue;
            }
            const std::size_t sig = payloadEnd + 1;
            const std::size_t sigEnd = runEnd(t, sig, isB64Url);
            if (sigEnd - sig >= 8) {
                out.push_back({Rule::Jwt, pos, sigEnd});
                next = sigEnd;
            }
        }
        pos = next;
    }
}

// --- password-assignment -----------------------------------------------------------------

// Longest first, so that "access_token" is consumed before its "token" suffix is tried.
constexpr std::array<std::string_view, 11> kSecretKeys{
    "client_secret", "access_token", "auth_token", "password", "api_key", "api-key",
    "apikey",        "passwd",       "secret",     "token",    "pwd",
};

// Also accepts a camelCase hump ("dbPassword", "accessToken"): same key, different style.
bool keyBoundaryBefore(std::string_view t, std::size_t i) {
    return i == 0 || !isAlnum(t[i - 1]) || (isLower(t[i - 1]) && isUpper(t[i]));
}

bool startsWithIgnoreCase(std::string_view t, std::size_t i, std::string_view key) {
    return t.size() - i >= key.size() && equalsIgnoreCase(t.substr(i, key.size()), key);
}

// Values that stand for a secret without being one. Type names are included because claims
// about code routinely say "password: string"; a secret that is literally a type name is not
// worth refusing every such claim for.
bool isPlaceholder(std::string_view v, std::string_view key) {
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
    if (std::all_of(core.begin(), core.end(), [](char c) { return c == 'x' || c == 'X'; }))
        return true;

    for (std::string_view word : {"null", "none", "nil", "undefined", "redacted"})
        if (equalsIgnoreCase(v, word)) return true;
    for (std::string_view type :
         {"string", "String", "str", "&str", "bytes", "[]byte", "number", "boolean", "SecretStr",
          "SecretString", "Option<String>", "Optional[str]"})
        if (v == type) return true;
    return false;
}

// True if an identifier refers to a credential rather than being one: it is a key word itself
// ("password") or a snake_case name with a credential word in it ("last_external_token").
bool namesSecret(std::string_view ident) {
    for (std::string_view key : kSecretKeys)
        if (equalsIgnoreCase(ident, key)) return true;
    if (ident.find('_') == npos) return false;
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
    std::string_view first;
    while (true) {
        if (i >= v.size() || !isIdentStart(v[i])) return false;
        const std::size_t start = i;
        i = runEnd(v, i, isIdentChar);
        const std::string_view ident = v.substr(start, i - start);
        if (components++ == 0) first = ident;
        secretName = secretName || namesSecret(ident);
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

// --- high-entropy-token ------------------------------------------------------------------

using Span = std::pair<std::size_t, std::size_t>;

// Host and path parts of URLs: long path segments are routinely random-looking (commit ids,
// slugs) and are not credentials. Userinfo ("user:pass@") stays scannable.
std::vector<Span> urlHostPaths(std::string_view t) {
    std::vector<Span> ranges;
    std::size_t pos = 0;
    while ((pos = t.find("://", pos)) != npos) {
        std::size_t schemeStart = pos;
        const std::size_t limit = pos > 32 ? pos - 32 : 0;
        while (schemeStart > limit && (isAlnum(t[schemeStart - 1]) || t[schemeStart - 1] == '+' ||
                                       t[schemeStart - 1] == '.' || t[schemeStart - 1] == '-'))
            --schemeStart;
        if (schemeStart == pos || !isAlpha(t[schemeStart])) {
            pos += 3;
            continue;
        }
        const std::size_t authority = pos + 3;
        const std::size_t end = runEnd(t, authority, [](char c) {
            return !isSpace(c) && !isQuote(c) && c != '<' && c != '>' && c != '?' && c != '#';
        });
        const std::size_t authorityEnd =
            runEnd(t.substr(0, end), authority, [](char c) { return c != '/'; });
        const std::size_t at = t.substr(authority, authorityEnd - authority).rfind('@');
        ranges.push_back({at == npos ? schemeStart : authority + at + 1, end});
        pos = std::max(end, pos + 3);
    }
    return ranges;
}

bool isAllHex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), isHex);
}

// Identifiers and paths are made of words: split at separators, case humps and digit runs,
// their segments average well over 3 characters ("TokenValidator_validate_expired_tokens"),
// while random base62/base64 changes class every 1-2 characters.
bool isIdentifierLike(std::string_view run) {
    std::size_t letters = 0;
    std::size_t segments = 0;
    std::size_t i = 0;
    while (i < run.size()) {
        if (isTokenSymbol(run[i])) {
            ++i;
            continue;
        }
        const std::size_t pieceEnd = runEnd(run, i, isAlnum);
        const std::string_view piece = run.substr(i, pieceEnd - i);
        if (piece.size() >= 7 && isAllHex(piece)) { // a commit id inside a path
            letters += piece.size();
            ++segments;
            i = pieceEnd;
            continue;
        }
        while (i < pieceEnd) {
            std::size_t j = i;
            if (isDigit(run[i])) {
                j = runEnd(run.substr(0, pieceEnd), i, isDigit);
            } else if (isLower(run[i])) {
                j = runEnd(run.substr(0, pieceEnd), i, isLower);
            } else {
                j = runEnd(run.substr(0, pieceEnd), i, isUpper);
                if (j < pieceEnd && isLower(run[j])) {
                    // "HTTPServer": the last capital starts the next word.
                    if (j - i > 1) {
                        ++segments;
                        letters += j - 1 - i;
                        i = j - 1;
                    }
                    j = runEnd(run.substr(0, pieceEnd), j, isLower);
                }
            }
            ++segments;
            letters += j - i;
            i = j;
        }
    }
    return segments > 0 && letters >= 3 * segments;
}

double shannonEntropy(std::string_view s) {
    std::array<std::uint32_t, 256> counts{};
    for (unsigned char c : s)
        ++counts[c];
    double h = 0.0;
    const double n = static_cast<double>(s.size());
    for (std::uint32_t count : counts) {
        if (count == 0) continue;
        const double p = count / n;
        h -= p * std::log2(p);
    }
    return h;
}

bool looksLikeToken(std::string_view run) {
    constexpr std::size_t kMinLength = 32;
    if (run.size() < kMinLength) return false;
    bool lower = false, upper = false, digit = false, symbol = false;
    for (char c : run) {
        lower |= isLower(c);
        upper |= isUpper(c);
        digit |= isDigit(c);
        symbol |= isTokenSymbol(c);
    }
    if (int(lower) + int(upper) + int(digit) + int(symbol) < 3) return false;
    // Hex digests, git ids and UUIDs: agents cite them all the time and they are not secrets.
    if (std::all_of(run.begin(), run.end(), [](char c) { return isHex(c) || c == '-'; }))
        return false;
    // Subresource-integrity hashes from lock files ("sha512-<base64>") are public digests.
    for (std::string_view sri : {"sha1-", "sha256-", "sha384-", "sha512-"})
        if (run.starts_with(sri)) return false;
    if (isIdentifierLike(run)) return false;
    return shannonEntropy(run) >= 4.0;
}

void considerRun(std::string_view t, std::size_t begin, std::size_t end,
                 const std::vector<Span>& urls, std::size_t& url, Candidates& out) {
    if (end - begin < 32) return;
    while (url < urls.size() && urls[url].second <= begin)
        ++url;
    if (url < urls.size() && urls[url].first <= begin) return;
    if (looksLikeToken(t.substr(begin, end - begin)))
        out.push_back({Rule::HighEntropyToken, begin, end});
}

void scanHighEntropy(std::string_view t, Candidates& out) {
    const std::vector<Span> urls = urlHostPaths(t);
    std::size_t url = 0;
    std::size_t i = 0;
    while (i < t.size()) {
        if (!isTokenChar(t[i])) {
            ++i;
            continue;
        }
        const std::size_t end = runEnd(t, i, isTokenChar);
        // '=' inside a run separates "name=value"; only trailing '=' is base64 padding.
        std::size_t begin = i;
        std::size_t j = i;
        while (j < end) {
            if (t[j] != '=') {
                ++j;
                continue;
            }
            const std::size_t eqEnd = runEnd(t.substr(0, end), j, [](char c) { return c == '='; });
            if (eqEnd < end) {
                considerRun(t, begin, j, urls, url, out);
                begin = eqEnd;
            }
            j = eqEnd;
        }
        considerRun(t, begin, end, urls, url, out);
        i = end;
    }
}

// --- resolution --------------------------------------------------------------------------

std::vector<Hit> resolve(Candidates candidates) {
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.rule != b.rule) return a.rule < b.rule;
        if (a.begin != b.begin) return a.begin < b.begin;
        return a.end > b.end;
    });
    // Accepted spans are disjoint, keyed by begin; their ends therefore increase with begin,
    // so the only possible overlap is with the last span starting before the candidate's end.
    std::map<std::size_t, Candidate> accepted;
    for (const Candidate& c : candidates) {
        if (c.end <= c.begin) continue;
        auto it = accepted.lower_bound(c.end);
        if (it != accepted.begin() && std::prev(it)->second.end > c.begin) continue;
        accepted.emplace(c.begin, c);
    }
    std::vector<Hit> hits;
    hits.reserve(accepted.size());
    for (const auto& [begin, c] : accepted) {
        const RuleInfo& r = info(c.rule);
        hits.push_back({std::string(r.id), c.begin, c.end, std::string(r.description)});
    }
    return hits;
}

} // namespace

std::vector<Hit> scan(std::string_view text) {
    if (text.size() > kMaxInputBytes)
        throw ScanFailure("secret scan refused: input larger than 1 MiB");
    try {
        Candidates candidates;
        scanPrivateKeys(text, candidates);
        scanMergeMarkers(text, candidates);
        scanGithub(text, candidates);
        scanAws(text, candidates);
        scanSlack(text, candidates);
        scanOpenAi(text, candidates);
        scanJwt(text, candidates);
        scanOnePassword(text, candidates);
        scanAssignments(text, candidates);
        scanHighEntropy(text, candidates);
        return resolve(std::move(candidates));
    } catch (const std::exception& e) {
        throw ScanFailure(std::string("secret scan failed: ") + e.what());
    }
}

std::string redact(std::string_view text, const std::vector<Hit>& hits) {
    std::vector<const Hit*> ordered;
    ordered.reserve(hits.size());
    for (const Hit& h : hits)
        ordered.push_back(&h);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Hit* a, const Hit* b) { return a->begin < b->begin; });

    std::string out;
    out.reserve(text.size());
    std::size_t cursor = 0;
    for (const Hit* h : ordered) {
        const std::size_t end = std::min(h->end, text.size());
        if (h->begin >= end || end <= cursor) continue;
        if (h->begin >= cursor) {
            out.append(text.substr(cursor, h->begin - cursor));
            out.append("[REDACTED:").append(h->rule).append("]");
        }
        // An overlapping hit extends the redaction already emitted instead of exposing the
        // tail that sticks out past it.
        cursor = end;
    }
    if (cursor < text.size()) out.append(text.substr(cursor));
    return out;
}

std::string redacted(std::string_view text) {
    try {
        return redact(text, scan(text));
    } catch (const std::exception&) {
        return "[REDACTED:unscanned]";
    }
}

} // namespace engram::secrets
