// Line-oriented text files (the audit log, report boxes, the usage counter):
// one helper to walk their lines and split their fields.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// Calls fn(line, number) for each line of text, numbered from 1, without
// its '\n'. A last line without a newline is a line too.
template <class F>
void forEachLine(std::string_view text, F&& fn) {
    int number = 0;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        fn(text.substr(at, end - at), ++number);
        at = end + 1;
    }
}

// The fields of a line separated by `sep` (an empty line is one empty field).
inline std::vector<std::string> splitFields(std::string_view line, char sep) {
    std::vector<std::string> out(1);
    for (char c : line) {
        if (c == sep)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

} // namespace engram
