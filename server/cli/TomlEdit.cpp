// TOML configuration (Codex's config.toml), read with toml++ and edited
// line by line (see ConfigEdit.h): a new table is a block appended at the
// end, a new key a line under its table's header, and what is taken out
// is taken out as whole lines. Anything else is refused.
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 1
#include <toml++/toml.h>

#include "cli/ConfigEdit.h"

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace engram::cli::tomlfile {

using Doc = ConfigDoc;

namespace {

Doc fromNode(const ::toml::node& n);

Doc fromTable(const ::toml::table& t) {
    Doc out = Doc::object();
    for (auto&& [k, v] : t)
        out[std::string(k.str())] = fromNode(v);
    return out;
}

Doc fromNode(const ::toml::node& n) {
    if (auto t = n.as_table()) return fromTable(*t);
    if (auto a = n.as_array()) {
        Doc out = Doc::array();
        for (auto&& item : *a)
            out.push_back(fromNode(item));
        return out;
    }
    if (auto s = n.as_string()) return s->get();
    if (auto i = n.as_integer()) return i->get();
    if (auto f = n.as_floating_point()) return f->get();
    if (auto b = n.as_boolean()) return b->get();
    std::ostringstream text; // dates and times, as TOML writes them
    n.visit([&](auto&& v) { text << v; });
    return text.str();
}

::toml::table parseTable(const std::string& text) {
    try {
        return ::toml::parse(text);
    } catch (const ::toml::parse_error& e) {
        throw ConfigError(e.source().begin.line, std::string(e.description()));
    }
}

bool bareKey(const std::string& k) {
    if (k.empty()) return false;
    for (char c : k)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
    return true;
}

// JSON's string escapes are all TOML basic-string escapes.
std::string keyText(const std::string& k) {
    return bareKey(k) ? k : Doc(k).dump();
}

std::string pathText(const std::vector<std::string>& path) {
    std::string out;
    for (auto& k : path)
        out += (out.empty() ? "" : ".") + keyText(k);
    return out;
}

std::optional<std::string> valueText(const Doc& v) {
    if (v.is_string() || v.is_boolean() || v.is_number_integer()) return v.dump();
    if (v.is_array()) {
        std::string out = "[";
        for (size_t i = 0; i < v.size(); ++i) {
            auto item = valueText(v[i]);
            if (!item) return std::nullopt;
            out += (i ? ", " : "") + *item;
        }
        return out + "]";
    }
    return std::nullopt; // floats, nested tables in arrays, null: not written here
}

// A `[path]` block with the table's keys, then its sub-tables' blocks (a
// table holding only tables has no header of its own).
std::optional<std::string> block(const std::vector<std::string>& path, const Doc& table) {
    bool keys = table.empty();
    for (auto& [k, v] : table.items())
        keys = keys || !v.is_object();
    std::string out = keys ? "[" + pathText(path) + "]\n" : "", subs;
    for (auto& [k, v] : table.items()) {
        if (v.is_object()) {
            auto path2 = path;
            path2.push_back(k);
            auto sub = block(path2, v);
            if (!sub) return std::nullopt;
            subs += (subs.empty() && out.empty() ? "" : "\n") + *sub;
            continue;
        }
        auto text = valueText(v);
        if (!text) return std::nullopt;
        out += keyText(k) + " = " + *text + "\n";
    }
    return out + subs;
}

// The text's lines and the edits to make to them: lines taken out, and
// text put before a line (lines.size() for the end).
class Lines {
public:
    Lines(const std::string& text, const ::toml::table& root) {
        for (size_t at = 0; at < text.size();) {
            size_t eol = text.find('\n', at);
            if (eol == std::string::npos) eol = text.size();
            lines_.push_back(text.substr(at, eol - at));
            at = eol + 1;
        }
        // A line inside a multi-line string or array is not a header,
        // whatever it starts with.
        markSpans(root);
        for (size_t i = 0; i < lines_.size(); ++i)
            if (!inString_.count(i + 1) && header(i + 1)) headers_.push_back(i + 1);
    }

    // The `[a.b]` a line (1-based) opens, or nullopt.
    std::optional<std::vector<std::string>> header(size_t line) const {
        const std::string& l = lines_[line - 1];
        size_t s = l.find_first_not_of(" \t");
        if (s == std::string::npos || l[s] != '[' || inString_.count(line)) return std::nullopt;
        bool array = s + 1 < l.size() && l[s + 1] == '[';
        size_t e = l.find(array ? "]]" : "]", s);
        if (e == std::string::npos) return std::nullopt;
        std::vector<std::string> path;
        std::string cur;
        bool quoted = false;
        for (size_t i = s + (array ? 2 : 1); i < e; ++i) {
            char c = l[i];
            if (c == '"' || c == '\'') {
                quoted = !quoted;
            } else if (c == '.' && !quoted) {
                path.push_back(cur);
                cur.clear();
            } else if (quoted || (c != ' ' && c != '\t')) {
                cur += c;
            }
        }
        path.push_back(cur);
        if (array) path.push_back("[]"); // never equal to a table's path
        return path;
    }

    // The header line of a table at path, 0 where it has none.
    size_t headerOf(const std::vector<std::string>& path) const {
        for (size_t h : headers_)
            if (header(h) == path) return h;
        return 0;
    }

    // A table's own lines: from its header to the next header that is not
    // one of its sub-tables (blank and comment lines just before that
    // header belong to it).
    std::pair<size_t, size_t> blockOf(const std::vector<std::string>& path, size_t h) const {
        size_t end = lines_.size() + 1;
        for (size_t other : headers_) {
            if (other <= h) continue;
            auto p = header(other);
            if (p->size() > path.size() && std::equal(path.begin(), path.end(), p->begin()))
                continue;
            end = other;
            break;
        }
        while (end - 1 > h && blankOrComment(end - 1))
            --end;
        return {h, end};
    }

    bool blankOrComment(size_t line) const {
        const std::string& l = lines_[line - 1];
        size_t s = l.find_first_not_of(" \t\r");
        return s == std::string::npos || l[s] == '#';
    }

    void erase(size_t from, size_t to) { // [from, to), 1-based
        for (size_t i = from; i < to; ++i)
            erased_.insert(i);
    }
    void insert(size_t before, std::string text) { inserted_[before] += text; }
    size_t size() const { return lines_.size(); }
    const std::vector<size_t>& headers() const { return headers_; }

    std::string text() const {
        std::string out;
        for (size_t i = 1; i <= lines_.size() + 1; ++i) {
            auto ins = inserted_.find(i);
            if (ins != inserted_.end()) out += ins->second;
            if (i <= lines_.size() && !erased_.count(i)) out += lines_[i - 1] + "\n";
        }
        return out;
    }

    // Taking a block out leaves one blank line where two would meet.
    void tidy() {
        for (size_t i = 1; i <= lines_.size(); ++i) {
            if (!erased_.count(i) || (i > 1 && erased_.count(i - 1))) continue;
            size_t j = i;
            while (j <= lines_.size() && erased_.count(j))
                ++j;
            bool blankBefore = i > 1 && trimmedEmpty(i - 1);
            bool blankAfter = j > lines_.size() || trimmedEmpty(j);
            if (blankBefore && blankAfter && !inserted_.count(j)) erased_.insert(i - 1);
        }
    }

private:
    bool trimmedEmpty(size_t line) const {
        return lines_[line - 1].find_first_not_of(" \t\r") == std::string::npos;
    }

    void markSpans(const ::toml::node& n) {
        auto t = n.as_table();
        if (!t || t->is_inline()) {
            auto& r = n.source();
            for (auto l = r.begin.line + 1; l <= r.end.line; ++l)
                inString_.insert(l);
        }
        if (t) {
            for (auto&& [k, v] : *t)
                markSpans(v);
        } else if (auto a = n.as_array()) {
            for (auto&& v : *a)
                markSpans(v);
        }
    }

    std::vector<std::string> lines_;
    std::vector<size_t> headers_;
    std::set<size_t> inString_, erased_;
    std::map<size_t, std::string> inserted_;
};

class Editor {
public:
    Editor(const std::string& text, const ::toml::table& root)
        : lines_(text, root)
        , root_(root) {}

    bool diff(const std::vector<std::string>& path, const Doc& before, const Doc& after) {
        if (before == after) return true;
        if (!before.is_object() || !after.is_object()) return remove(path) && add(path, after);
        for (auto& [k, v] : before.items()) {
            auto sub = path;
            sub.push_back(k);
            if (!after.contains(k)) {
                if (!remove(sub)) return false;
            } else if (!diff(sub, v, after[k])) {
                return false;
            }
        }
        for (auto& [k, v] : after.items()) {
            if (before.contains(k)) continue;
            auto sub = path;
            sub.push_back(k);
            if (!add(sub, v)) return false;
        }
        return true;
    }

    std::string text() {
        lines_.tidy();
        std::string out = lines_.text();
        if (!appended_.empty()) {
            if (!out.empty() && out.find_first_not_of(" \t\r\n") != std::string::npos) {
                while (out.size() >= 2 && out[out.size() - 1] == '\n' &&
                       out[out.size() - 2] == '\n')
                    out.pop_back();
                out += "\n";
            } else {
                out.clear();
            }
            out += appended_;
        }
        return out;
    }

private:
    // The node at path; `nested` says whether it sits inside an inline table
    // or an array (whose lines are not its own).
    const ::toml::node* at(const std::vector<std::string>& path, bool* nested = nullptr) const {
        const ::toml::node* n = &root_;
        for (auto& k : path) {
            auto t = n->as_table();
            if (!t) return nullptr;
            if (nested && t->is_inline()) *nested = true;
            n = t->get(k);
            if (!n) return nullptr;
        }
        return n;
    }

    bool remove(const std::vector<std::string>& path) {
        bool nested = false;
        const ::toml::node* n = at(path, &nested);
        if (!n || nested) return false;
        if (auto t = n->as_table(); t && !t->is_inline()) {
            if (size_t h = lines_.headerOf(path)) {
                auto [from, to] = lines_.blockOf(path, h);
                lines_.erase(from, to);
                return true;
            }
            // Made by dotted keys or by a sub-table's header: its members.
            for (auto&& [k, v] : *t) {
                auto sub = path;
                sub.push_back(std::string(k.str()));
                if (!remove(sub)) return false;
            }
            return true;
        }
        auto& r = n->source();
        if (r.begin.line == 0 || r.begin.line != r.end.line) return false; // multi-line
        lines_.erase(r.begin.line, r.begin.line + 1);
        return true;
    }

    bool add(const std::vector<std::string>& path, const Doc& value) {
        std::vector<std::string> parent(path.begin(), path.end() - 1);
        if (value.is_object()) {
            auto b = block(path, value);
            if (!b) return false;
            appended_ += (appended_.empty() ? "" : "\n") + *b;
            return true;
        }
        auto text = valueText(value);
        if (!text) return false;
        std::string line = keyText(path.back()) + " = " + *text + "\n";
        if (parent.empty()) { // above the first header
            lines_.insert(lines_.headers().empty() ? lines_.size() + 1 : lines_.headers()[0], line);
            return true;
        }
        if (size_t h = lines_.headerOf(parent)) {
            lines_.insert(h + 1, line);
            return true;
        }
        if (at(parent)) return false; // a table made another way: not edited here
        Doc table = Doc::object();
        table[path.back()] = value;
        return add(parent, table);
    }

    Lines lines_;
    const ::toml::table& root_;
    std::string appended_;
};

nlohmann::json unordered(const Doc& d) {
    return nlohmann::json::parse(d.dump());
}

} // namespace

Doc parse(const std::string& text) {
    return fromTable(parseTable(text));
}

std::optional<std::string> edit(const std::string& text, const Doc& after) {
    ::toml::table root = parseTable(text);
    Editor ed(text, root);
    if (!ed.diff({}, fromTable(root), after)) return std::nullopt;
    std::string out = ed.text();
    try {
        if (unordered(parse(out)) != unordered(after)) return std::nullopt;
    } catch (const ConfigError&) {
        return std::nullopt;
    }
    return out;
}

} // namespace engram::cli::tomlfile
