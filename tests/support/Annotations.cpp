// Text with marked places (Annotations.h).
#include "support/Annotations.h"

#include <stdexcept>

namespace engram::test {

namespace {

bool nameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

Annotations::Annotations(std::string_view marked) {
    // Offsets into code_ are kept while reading; lines and columns are
    // computed once the whole text is known.
    std::vector<std::pair<std::string, size_t>> points;
    std::vector<std::pair<std::string, size_t>> open; // ranges begun, innermost last
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> ranges;
    for (size_t i = 0; i < marked.size();) {
        std::string name;
        size_t j = i;
        if (marked[j] == '$') {
            size_t k = j + 1;
            while (k < marked.size() && nameChar(marked[k]))
                ++k;
            bool marks = k < marked.size() && (marked[k] == '^' || marked.substr(k, 2) == "[[");
            // `$name` with no marker after it is text (`$HOME`, `${x}`).
            if (k > j + 1 && marks) {
                name = std::string(marked.substr(j + 1, k - j - 1));
                j = k;
            }
        }
        if (marked[j] == '^') {
            points.emplace_back(name, code_.size());
            i = j + 1;
        } else if (marked.substr(j, 2) == "[[") {
            open.emplace_back(name, code_.size());
            i = j + 2;
        } else if (marked.substr(j, 2) == "]]" && name.empty()) {
            if (open.empty()) throw std::invalid_argument("']]' closes no '[['");
            ranges.push_back({open.back().first, {open.back().second, code_.size()}});
            open.pop_back();
            i = j + 2;
        } else {
            code_ += marked[i];
            ++i;
        }
    }
    if (!open.empty()) throw std::invalid_argument("a '[[' is not closed");
    for (auto& [name, offset] : points)
        points_[name].push_back(at(offset));
    for (auto& [name, span] : ranges)
        ranges_[name].push_back({at(span.first), at(span.second)});
}

Annotations::Point Annotations::at(size_t offset) const {
    Point p;
    p.offset = offset;
    for (size_t i = 0; i < offset; ++i) {
        if (code_[i] == '\n') {
            ++p.line;
            p.column = 0;
        } else {
            ++p.column;
        }
    }
    return p;
}

std::vector<Annotations::Point> Annotations::points(const std::string& name) const {
    auto it = points_.find(name);
    return it == points_.end() ? std::vector<Point>{} : it->second;
}

std::vector<Annotations::Range> Annotations::ranges(const std::string& name) const {
    auto it = ranges_.find(name);
    return it == ranges_.end() ? std::vector<Range>{} : it->second;
}

Annotations::Point Annotations::point(const std::string& name) const {
    auto all = points(name);
    if (all.size() != 1)
        throw std::out_of_range("point '" + name + "': " + std::to_string(all.size()) +
                                " marked, not one");
    return all.front();
}

Annotations::Range Annotations::range(const std::string& name) const {
    auto all = ranges(name);
    if (all.size() != 1)
        throw std::out_of_range("range '" + name + "': " + std::to_string(all.size()) +
                                " marked, not one");
    return all.front();
}

std::string_view Annotations::text(const Range& r) const {
    return std::string_view(code_).substr(r.begin.offset, r.end.offset - r.begin.offset);
}

} // namespace engram::test
