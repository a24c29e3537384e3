// Finding a request id in the head or tail of a line that cannot be parsed.
#include "protocol/IdSniff.h"

#include <cctype>
#include <string>

namespace engram::protocol {

namespace {

using json = nlohmann::json;

bool space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// A JSON-RPC id is a string or an integer; anything else is no id.
std::optional<json> asId(std::string_view token) {
    json v = json::parse(token, nullptr, false);
    if (v.is_discarded() || !(v.is_string() || v.is_number_integer())) return std::nullopt;
    return v;
}

// A forward scanner over the head: only as far as the bytes we have.
struct Scanner {
    std::string_view s;
    size_t i = 0;

    void ws() {
        while (i < s.size() && space(s[i]))
            ++i;
    }
    bool eat(char c) {
        ws();
        if (i >= s.size() || s[i] != c) return false;
        ++i;
        return true;
    }
    // A string starting at s[i] == '"'; false when it runs past the head.
    bool string(std::string* out) {
        if (i >= s.size() || s[i] != '"') return false;
        size_t start = i++;
        while (i < s.size()) {
            if (s[i] == '\\') {
                i += 2;
                continue;
            }
            if (s[i++] == '"') {
                if (out) {
                    json v = json::parse(s.substr(start, i - start), nullptr, false);
                    if (!v.is_string()) return false;
                    *out = v.get<std::string>();
                }
                return true;
            }
        }
        return false;
    }
    // Any value; false when it runs past the head.
    bool value() {
        ws();
        if (i >= s.size()) return false;
        if (s[i] == '"') return string(nullptr);
        if (s[i] == '{' || s[i] == '[') {
            int depth = 0;
            while (i < s.size()) {
                char c = s[i];
                if (c == '"') {
                    if (!string(nullptr)) return false;
                    continue;
                }
                ++i;
                if (c == '{' || c == '[') ++depth;
                if (c == '}' || c == ']') {
                    if (--depth == 0) return true;
                }
            }
            return false;
        }
        while (i < s.size() && !space(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']')
            ++i;
        return i < s.size();
    }
};

std::optional<json> fromHead(std::string_view head) {
    Scanner sc{head};
    if (!sc.eat('{')) return std::nullopt;
    for (;;) {
        sc.ws();
        std::string key;
        if (!sc.string(&key) || !sc.eat(':')) return std::nullopt;
        sc.ws();
        size_t start = sc.i;
        if (!sc.value()) return std::nullopt;
        if (key == "id") return asId(head.substr(start, sc.i - start));
        if (!sc.eat(',')) return std::nullopt;
    }
}

// The tail must end with `"id": <scalar> }`: the member just before the
// closing brace of a JSON text is a member of its top-level object.
std::optional<json> fromTail(std::string_view tail) {
    size_t end = tail.size();
    auto back = [&] {
        while (end > 0 && space(tail[end - 1]))
            --end;
    };
    back();
    if (end == 0 || tail[end - 1] != '}') return std::nullopt;
    --end;
    back();
    size_t valueEnd = end, valueStart;
    if (end > 0 && tail[end - 1] == '"') {
        // A string: its opening quote is the first one not escaped.
        size_t j = end - 1;
        for (;;) {
            if (j == 0) return std::nullopt;
            --j;
            if (tail[j] != '"') continue;
            size_t slashes = 0;
            while (j >= slashes + 1 && tail[j - slashes - 1] == '\\')
                ++slashes;
            if (slashes % 2 == 0) break;
        }
        valueStart = j;
    } else {
        size_t j = end;
        while (j > 0 &&
               (std::isdigit(static_cast<unsigned char>(tail[j - 1])) || tail[j - 1] == '-'))
            --j;
        if (j == end) return std::nullopt;
        valueStart = j;
    }
    end = valueStart;
    back();
    if (end == 0 || tail[end - 1] != ':') return std::nullopt;
    --end;
    back();
    constexpr std::string_view key = "\"id\"";
    if (end < key.size() || tail.substr(end - key.size(), key.size()) != key) return std::nullopt;
    end -= key.size();
    back();
    if (end == 0 || (tail[end - 1] != ',' && tail[end - 1] != '{')) return std::nullopt;
    return asId(tail.substr(valueStart, valueEnd - valueStart));
}

} // namespace

std::optional<json> sniffRequestId(std::string_view head, std::string_view tail) {
    if (auto id = fromHead(head)) return id;
    return fromTail(tail);
}

} // namespace engram::protocol
