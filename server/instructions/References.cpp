#include "instructions/References.h"

#include "util/Lines.h"
#include "util/Paths.h"
#include "util/Utf8.h"

#include <algorithm>
#include <array>
#include <optional>

namespace engram::instructions {

namespace {

bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool isIdentChar(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9');
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool isIdent(std::string_view s) {
    if (s.empty() || !isIdentStart(s[0])) return false;
    return std::all_of(s.begin(), s.end(), isIdentChar);
}

bool allDigits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), isDigit);
}

// Bare file names that carry no extension but are files all the same.
bool knownBareName(std::string_view name) {
    static constexpr std::array<std::string_view, 9> names = {
        "Makefile", "Dockerfile",  "Gemfile",  "Rakefile",      "Justfile",
        "Procfile", "Vagrantfile", "Brewfile", "CMakeLists.txt"};
    return std::find(names.begin(), names.end(), name) != names.end();
}

// The characters a path written in prose is made of.
bool pathChars(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) {
        return isIdentChar(c) || c == '.' || c == '/' || c == '-' || c == '@' || c == '+';
    });
}

// Whether `s` is written like a path: a directory part, or a file name
// with an extension that names files (`auth.py`, not `Config.load`).
bool looksLikePath(std::string_view s) {
    if (s.empty() || !pathChars(s) || s.find("//") != std::string_view::npos) return false;
    if (s.starts_with('/') || s == "." || s == "..") return false;
    std::string_view name = s;
    bool hasDir = name.ends_with('/');
    if (hasDir) name.remove_suffix(1);
    auto slash = name.find_last_of('/');
    hasDir = hasDir || slash != std::string_view::npos;
    if (hasDir) name = name.substr(slash + 1);
    // Every part holds a letter: "1/2" and "../.." are not paths.
    bool letter = std::any_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    });
    if (!letter) return false;
    if (hasDir) return true;
    if (knownBareName(name)) return true;
    auto dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return false;
    return knownExtension(name.substr(dot + 1));
}

// `a.b`, `a::b`, `a#b` (two parts or more), with "::" and "#" read as ".".
std::optional<std::string> qualifiedName(std::string_view s) {
    std::string out;
    size_t parts = 0, i = 0;
    while (i <= s.size()) {
        size_t j = i;
        while (j < s.size() && isIdentChar(s[j]))
            ++j;
        if (!isIdent(s.substr(i, j - i))) return std::nullopt;
        out.append(s.substr(i, j - i));
        ++parts;
        if (j == s.size()) break;
        if (s.substr(j, 2) == "::")
            i = j + 2;
        else if (s[j] == '.' || s[j] == '#')
            i = j + 1;
        else
            return std::nullopt;
        out += '.';
    }
    if (parts < 2) return std::nullopt;
    return out;
}

// "42", "42-60": a 1-based line or an inclusive range of them.
bool lineSpec(std::string_view s, int& from, int& to) {
    auto dash = s.find('-');
    std::string_view a = s.substr(0, dash),
                     b = dash == std::string_view::npos ? a : s.substr(dash + 1);
    if (b.starts_with('L')) b.remove_prefix(1);
    if (!allDigits(a) || !allDigits(b) || a.size() > 7 || b.size() > 7) return false;
    from = std::stoi(std::string(a));
    to = std::stoi(std::string(b));
    return from >= 1 && to >= from;
}

std::string withoutDotSlash(std::string_view p) {
    while (p.starts_with("./"))
        p.remove_prefix(2);
    return std::string(p);
}

// What a code span's text names, if it is written like a reference at all.
std::optional<Reference> classifySpan(std::string_view s) {
    if (s.empty() || s.size() > 512) return std::nullopt;
    if (std::any_of(s.begin(), s.end(), isBlank)) return std::nullopt; // a command, a sentence
    if (s.find("://") != std::string_view::npos) return std::nullopt;  // a URL
    // A flag, a variable, an absolute or home path, a decorator or scope.
    if (std::string_view("-$/~@%+!").find(s[0]) != std::string_view::npos) return std::nullopt;
    Reference r;
    r.written = std::string(s);
    std::string_view body = s;
    bool call = false;
    if (body.ends_with("()")) {
        body.remove_suffix(2);
        call = true;
    }
    if (auto hash = body.find('#'); hash != std::string_view::npos && hash > 0 && !call) {
        std::string_view left = body.substr(0, hash), right = body.substr(hash + 1);
        if (looksLikePath(left) && !left.ends_with('/')) {
            int a = 0, b = 0;
            if (right.starts_with('L') && lineSpec(right.substr(1), a, b)) {
                r.form = RefForm::PathLine;
                r.path = withoutDotSlash(left);
                r.line = a, r.lineEnd = b;
                return r;
            }
            std::optional<std::string> name;
            if (isIdent(right))
                name = std::string(right);
            else
                name = qualifiedName(right);
            if (name) {
                r.form = RefForm::PathSymbol;
                r.path = withoutDotSlash(left);
                r.symbol = *name;
                return r;
            }
            return std::nullopt;
        }
    }
    if (auto colon = body.find(':');
        colon != std::string_view::npos && colon > 0 && !call && body.substr(colon, 2) != "::") {
        // path:line, path:from-to, path:line:column.
        std::string_view left = body.substr(0, colon), right = body.substr(colon + 1);
        if (auto c2 = right.find(':');
            c2 != std::string_view::npos && allDigits(right.substr(c2 + 1)))
            right = right.substr(0, c2);
        int a = 0, b = 0;
        if (looksLikePath(left) && !left.ends_with('/') && lineSpec(right, a, b)) {
            r.form = RefForm::PathLine;
            r.path = withoutDotSlash(left);
            r.line = a, r.lineEnd = b;
            return r;
        }
        if (body.find("::") == std::string_view::npos) return std::nullopt;
    }
    if (!call && looksLikePath(body)) {
        r.form = RefForm::Path;
        r.directory = body.ends_with('/');
        r.path = withoutDotSlash(body);
        if (r.directory) r.path.pop_back();
        return r;
    }
    if (auto q = qualifiedName(body)) {
        r.form = RefForm::Name;
        r.symbol = *q;
        return r;
    }
    // A lone identifier is a reference only when written as a call: a
    // backticked word is too often a term, a value or a package. Otherwise
    // it is a word, which only its past can make a reference.
    if (isIdent(body)) {
        r.form = call ? RefForm::Name : RefForm::Word;
        r.symbol = std::string(body);
        return r;
    }
    return std::nullopt;
}

// A markdown link's target, when it points into the repository.
std::optional<Reference> classifyLink(std::string_view target) {
    if (target.empty() || target.starts_with('#') || target.find(':') != std::string_view::npos)
        return std::nullopt; // in-page, or a scheme (https:, mailto:)
    Reference r;
    r.written = std::string(target);
    r.link = true;
    std::string_view path = target, frag;
    if (auto hash = target.find('#'); hash != std::string_view::npos) {
        path = target.substr(0, hash);
        frag = target.substr(hash + 1);
    }
    if (auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
    std::string decoded = percentDecoded(path);
    if (decoded.empty()) return std::nullopt;
    if (decoded.starts_with('/')) { // the repository's root, as hosting sites read it
        r.link = false;
        decoded.erase(0, decoded.find_first_not_of('/'));
        if (decoded.empty()) return std::nullopt;
    }
    r.directory = decoded.ends_with('/');
    while (decoded.size() > 1 && decoded.ends_with('/'))
        decoded.pop_back();
    r.path = withoutDotSlash(decoded);
    if (r.path.empty() || r.path == ".") return std::nullopt;
    int a = 0, b = 0;
    if (frag.starts_with('L') && lineSpec(frag.substr(1), a, b)) {
        r.form = RefForm::PathLine;
        r.line = a, r.lineEnd = b;
    } else {
        r.form = RefForm::Path;
    }
    return r;
}

// A path with a line or a symbol written in prose, outside code: only the
// unmistakable forms (`src/auth.py:42`, `src/auth.py#validate`), or a
// path with a directory and a file extension (`docs/guide.md`).
std::optional<Reference> classifyBare(std::string_view token) {
    if (token.find("://") != std::string_view::npos) return std::nullopt;
    auto r = classifySpan(token);
    if (!r) return std::nullopt;
    if (r->form == RefForm::PathLine || r->form == RefForm::PathSymbol) return r;
    if (r->form == RefForm::Path && !r->directory && r->path.find('/') != std::string::npos) {
        auto slash = r->path.find_last_of('/');
        auto dot = r->path.find_last_of('.');
        if (dot != std::string::npos && dot > slash + 1 && knownExtension(r->path.substr(dot + 1)))
            return r;
    }
    return std::nullopt;
}

bool bareChar(char c) {
    return isIdentChar(c) || c == '.' || c == '/' || c == '-' || c == ':' || c == '#' || c == '@' ||
           c == '+';
}

// One line outside fenced code: its code spans, its links and bare forms.
void scanLine(std::string_view line, uint32_t lineIndex, std::vector<Reference>& out) {
    auto add = [&](std::optional<Reference> r, size_t start, size_t end) {
        if (!r) return;
        r->lineIndex = lineIndex;
        r->startColumn = uint32_t(start);
        r->endColumn = uint32_t(end);
        out.push_back(std::move(*r));
    };
    size_t i = 0, plainFrom = 0;
    auto scanPlain = [&](size_t from, size_t to) {
        size_t k = from;
        while (k < to) {
            while (k < to && !bareChar(line[k]))
                ++k;
            size_t s = k;
            while (k < to && bareChar(line[k]))
                ++k;
            size_t e = k;
            // Sentence punctuation after a path is not part of it.
            while (e > s && std::string_view(".,:;-").find(line[e - 1]) != std::string_view::npos)
                --e;
            // Nor a link's or a list's leading marks.
            while (s < e && std::string_view("-:#").find(line[s]) != std::string_view::npos)
                ++s;
            if (e > s) add(classifyBare(line.substr(s, e - s)), s, e);
        }
    };
    while (i < line.size()) {
        if (line[i] == '\\' && i + 1 < line.size()) {
            i += 2;
            continue;
        }
        if (line[i] == '`') {
            size_t n = 0;
            while (i + n < line.size() && line[i + n] == '`')
                ++n;
            // The closing run of exactly as many backticks.
            size_t j = i + n, close = std::string_view::npos;
            while (j < line.size()) {
                if (line[j] != '`') {
                    ++j;
                    continue;
                }
                size_t m = 0;
                while (j + m < line.size() && line[j + m] == '`')
                    ++m;
                if (m == n) {
                    close = j;
                    break;
                }
                j += m;
            }
            if (close == std::string_view::npos) {
                i += n;
                continue;
            }
            scanPlain(plainFrom, i);
            size_t s = i + n, e = close;
            if (e - s >= 2 && line[s] == ' ' && line[e - 1] == ' ') ++s, --e;
            add(classifySpan(line.substr(s, e - s)), s, e);
            i = close + n;
            plainFrom = i;
            continue;
        }
        if (line[i] == ']' && i + 1 < line.size() && line[i + 1] == '(') {
            size_t s = i + 2;
            size_t e = s;
            bool angle = s < line.size() && line[s] == '<';
            if (angle) {
                e = line.find('>', s);
                if (e == std::string_view::npos) {
                    ++i;
                    continue;
                }
                ++s;
            } else {
                int depth = 0;
                while (e < line.size() && !isBlank(line[e])) {
                    if (line[e] == '(') ++depth;
                    if (line[e] == ')' && depth-- == 0) break;
                    ++e;
                }
            }
            scanPlain(plainFrom, i);
            add(classifyLink(line.substr(s, e - s)), s, e);
            size_t close = line.find(')', e);
            i = close == std::string_view::npos ? line.size() : close + 1;
            plainFrom = i;
            continue;
        }
        ++i;
    }
    scanPlain(plainFrom, line.size());
}

} // namespace

bool knownExtension(std::string_view ext) {
    static constexpr std::array<std::string_view, 64> exts = {
        "py",   "pyi",    "ts",    "tsx",  "js",     "jsx",  "mjs",   "cjs",   "c",
        "h",    "cc",     "cpp",   "cxx",  "hpp",    "hh",   "hxx",   "go",    "rs",
        "java", "kt",     "kts",   "rb",   "php",    "cs",   "swift", "scala", "m",
        "mm",   "lua",    "sh",    "bash", "zsh",    "ps1",  "sql",   "proto", "graphql",
        "css",  "scss",   "html",  "vue",  "svelte", "md",   "mdc",   "mdx",   "rst",
        "txt",  "json",   "jsonc", "yaml", "yml",    "toml", "ini",   "cfg",   "conf",
        "xml",  "gradle", "cmake", "mk",   "lock",   "tf",   "ex",    "exs",   "dart"};
    return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

namespace {

// Fenced code blocks: opened by ``` or ~~~, closed by a run of the same
// character at least as long with nothing after it.
class Fences {
public:
    // Whether a line (without its indentation) belongs to a fenced block:
    // opens one, lies inside one, or closes one.
    bool line(std::string_view lead) {
        if (fence_) {
            size_t n = 0;
            while (n < lead.size() && lead[n] == fence_)
                ++n;
            if (n >= length_ && lead.substr(n).find_first_not_of(" \t") == std::string_view::npos)
                fence_ = 0;
            return true;
        }
        if (!lead.starts_with("```") && !lead.starts_with("~~~")) return false;
        fence_ = lead[0];
        length_ = 0;
        while (length_ < lead.size() && lead[length_] == fence_)
            ++length_;
        return true;
    }
    bool open() const { return fence_ != 0; }

private:
    char fence_ = 0;
    size_t length_ = 0;
};

// Calls fn(line, index) for each line after a leading front matter block
// (a rules file's `globs:`), without its '\r'; index counts from 0 in the
// whole text.
template <class F>
void forEachBodyLine(std::string_view text, F&& fn) {
    bool frontMatter = false;
    forEachLine(text, [&](std::string_view line, int number) {
        uint32_t here = uint32_t(number - 1);
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (here == 0 && line == "---") {
            frontMatter = true;
            return;
        }
        if (frontMatter) {
            if (line == "---" || line == "...") frontMatter = false;
            return;
        }
        fn(line, here);
    });
}

} // namespace

std::vector<Reference> extractReferences(std::string_view text) {
    std::vector<Reference> out;
    Fences fences;
    bool comment = false;
    forEachBodyLine(text, [&](std::string_view line, uint32_t here) {
        std::string_view lead = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (fences.line(lead)) return;
        // HTML comments hide their text from a reader; they are not read.
        std::string visible(line);
        size_t k = 0;
        while (k < visible.size()) {
            if (comment) {
                size_t end = visible.find("-->", k);
                size_t stop = end == std::string::npos ? visible.size() : end + 3;
                std::fill(visible.begin() + std::ptrdiff_t(k),
                          visible.begin() + std::ptrdiff_t(stop), ' ');
                if (end == std::string::npos) break;
                comment = false;
                k = stop;
            } else {
                size_t open = visible.find("<!--", k);
                if (open == std::string::npos) break;
                comment = true;
                k = open;
            }
        }
        scanLine(visible, here, out);
    });
    return out;
}

std::vector<Paragraph> splitParagraphs(std::string_view text) {
    std::vector<Paragraph> out;
    std::string heading;
    Paragraph cur;
    bool open = false;
    Fences fences;
    auto flush = [&] {
        if (open && cur.text.find_first_not_of(" \t\n") != std::string::npos) {
            while (!cur.text.empty() && cur.text.back() == '\n')
                cur.text.pop_back();
            out.push_back(std::move(cur));
        }
        cur = Paragraph{};
        open = false;
    };
    forEachBodyLine(text, [&](std::string_view line, uint32_t here) {
        std::string_view lead = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        bool blank = lead.find_first_not_of(" \t") == std::string_view::npos;
        if (!fences.open()) {
            if (blank) {
                flush();
                return;
            }
            if (lead.starts_with('#')) {
                size_t hashes = lead.find_first_not_of('#');
                if (hashes != std::string_view::npos && hashes <= 6 &&
                    (lead[hashes] == ' ' || lead[hashes] == '\t')) {
                    flush();
                    std::string_view h = lead.substr(hashes);
                    h.remove_prefix(std::min(h.find_first_not_of(" \t"), h.size()));
                    heading = std::string(h.substr(0, 200));
                    return;
                }
            }
        }
        fences.line(lead); // a fence's lines belong to the paragraph
        if (open && cur.text.size() + line.size() + 1 > kMaxParagraphBytes && !cur.text.empty())
            flush();
        if (!open) {
            cur.line = here;
            cur.heading = heading;
            open = true;
        }
        cur.endLine = here;
        cur.text.append(utf8Prefix(line, kMaxParagraphBytes));
        cur.text += '\n';
    });
    flush();
    return out;
}

bool isInstructionFile(std::string_view rel) {
    auto slash = rel.find_last_of('/');
    std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
    std::string_view dir = slash == std::string_view::npos ? "" : rel.substr(0, slash);
    auto dirIs = [&](std::string_view d) {
        return dir == d || dir.ends_with("/" + std::string(d));
    };
    if (name == "AGENTS.md" || name == "CLAUDE.md" || name == "GEMINI.md" || name == ".cursorrules")
        return true;
    if (name == "copilot-instructions.md" && dirIs(".github")) return true;
    if (name.ends_with(".instructions.md") && dirIs(".github/instructions")) return true;
    if ((name.ends_with(".mdc") || name.ends_with(".md")) &&
        (dirIs(".cursor/rules") || dir.find(".cursor/rules/") != std::string_view::npos ||
         dir.starts_with(".cursor/rules")))
        return true;
    return false;
}

bool globMatches(std::string_view glob, std::string_view rel) {
    // Iterative wildcard matching with one backtrack point.
    size_t g = 0, r = 0, star = std::string_view::npos, mark = 0;
    while (r < rel.size()) {
        if (g < glob.size() && (glob[g] == '?' || glob[g] == rel[r])) {
            ++g, ++r;
        } else if (g < glob.size() && glob[g] == '*') {
            star = g++;
            mark = r;
        } else if (star != std::string_view::npos) {
            g = star + 1;
            r = ++mark;
        } else {
            return false;
        }
    }
    while (g < glob.size() && glob[g] == '*')
        ++g;
    return g == glob.size();
}

} // namespace engram::instructions
