// Text with marked places, for tests that speak of positions: `^` marks a
// point and `[[ ]]` a range, each optionally named (`$name^`,
// `$name[[ ]]`). The markers are taken out; what is left is the text the
// test writes to a file, and the places are where the markers stood in it.
//
//     Annotations a(R"(def $f[[fetch]](url):
//         return ^get(url)
//     )");
//     root.write("m.py", a.code());   // the text without markers
//     a.range("f")                    // line 0, columns 4 to 9
//     a.point()                       // line 1, column 11
//
// Lines and columns count from 0, columns in bytes; `line1` adds one for
// the places engram speaks of in 1-based lines.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engram::test {

class Annotations {
public:
    struct Point {
        uint32_t line = 0, column = 0;
        size_t offset = 0; // bytes from the start of code()
        int line1() const { return int(line) + 1; }
    };
    struct Range {
        Point begin, end; // end is just past the range
    };

    // Throws std::invalid_argument on an unclosed `[[` or a stray `]]`. A
    // `$name` with no `^` or `[[` right after it is text (`$HOME`); a text
    // that needs `^`, `[[` or `]]` of its own is written without markers.
    explicit Annotations(std::string_view marked);

    const std::string& code() const { return code_; }
    // The one point (or range) of that name; the name "" is the unnamed one.
    // Throws std::out_of_range unless exactly one was marked.
    Point point(const std::string& name = "") const;
    Range range(const std::string& name = "") const;
    std::vector<Point> points(const std::string& name = "") const;
    std::vector<Range> ranges(const std::string& name = "") const;
    // The text a range covers.
    std::string_view text(const Range& r) const;

private:
    Point at(size_t offset) const;
    std::string code_;
    std::map<std::string, std::vector<Point>> points_;
    std::map<std::string, std::vector<Range>> ranges_;
};

} // namespace engram::test
