// Generates the 5,000-line Python and C++ files of the re-anchoring benchmark.
//
// Both are built from a few block templates (a free function of 16 lines, a
// class with methods) numbered so each name is unique, repeated until the
// next block would pass the line budget, then padded with comment lines to
// the exact count. Templates rather than fixture copies: the benchmark needs
// to know where each body's literal is, and needs a file whose every block is
// a definition engram anchors to.
#include "LargeFile.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>

namespace engram::bench {

namespace {

size_t countLines(const std::string& s) {
    return size_t(std::count(s.begin(), s.end(), '\n'));
}

std::string fill(std::string tpl, const std::string& name) {
    for (size_t p = tpl.find("@"); p != std::string::npos; p = tpl.find("@", p + name.size()))
        tpl.replace(p, 1, name);
    return tpl;
}

// header + blocks + padding comments + footer, exactly `lines` lines.
LargeFile assemble(std::string language, std::string name, size_t lines, const std::string& header,
                   const std::function<std::string(size_t)>& block, const std::string& pad,
                   const std::string& footer, const std::string& marker) {
    LargeFile f{std::move(language), std::move(name), header, 0, {}};
    size_t used = countLines(header) + countLines(footer);
    for (size_t i = 0;; ++i) {
        std::string b = block(i);
        size_t n = countLines(b);
        if (used + n > lines) break;
        f.text += b;
        used += n;
    }
    for (; used < lines; ++used)
        f.text += pad;
    f.text += footer;
    f.lines = countLines(f.text);
    // The literal is the marker's first '1' ("total = 1").
    for (size_t p = f.text.find(marker); p != std::string::npos; p = f.text.find(marker, p + 1))
        f.editOffsets.push_back(uint32_t(p + marker.find('1')));
    for (uint32_t off : f.editOffsets)
        if (f.text[off] != '1') throw std::logic_error("edit offset not on the literal");
    return f;
}

std::string numbered(const char* prefix, size_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s_%04zu", prefix, i);
    return buf;
}

} // namespace

LargeFile largePython(size_t lines) {
    const std::string function = R"(def @(values, limit=10):
    """Folds the values below a limit."""
    total = 1
    for i, v in enumerate(values):
        if v < limit:
            total += v * i
        elif v == limit:
            total -= 1
        else:
            total = max(total, v)
    evens = [x for x in values if x % 2 == 0]
    label = "@:" + str(total)
    while total > 1000:
        total //= 2
    return total, evens, label


)";
    const std::string klass = R"(class @:
    """Keeps a running total."""

    def __init__(self, start=0):
        self.total = start
        self.seen = []

    def add(self, value):
        total = 1
        if value > self.total:
            self.total += value
        else:
            self.seen.append(value)
        return self.total + total

    def reset(self):
        total = 1
        self.seen.clear()
        return total


)";
    auto block = [&](size_t i) {
        return i % 6 == 5 ? fill(klass, numbered("Widget", i))
                          : fill(function, numbered("fold", i));
    };
    return assemble("python", "big.py", lines,
                    "\"\"\"Generated: the re-anchoring benchmark's large Python file.\"\"\"\n"
                    "import math\n\n\n",
                    block, "# padding\n", "", "total = 1\n");
}

LargeFile largeCpp(size_t lines) {
    const std::string function = R"(int @(const std::vector<int>& values, int limit) {
    int total = 1;
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < limit) {
            total += values[i] * int(i);
        } else if (values[i] == limit) {
            total -= 1;
        } else {
            total = std::max(total, values[i]);
        }
    }
    std::string label = "@:" + std::to_string(total);
    while (total > 1000) total /= 2;
    return total + int(label.size());
}

)";
    const std::string klass = R"(class @ {
public:
    explicit @(int start) : total_(start) {}
    int add(int value) {
        int total = 1;
        if (value > total_) {
            total_ += value;
        } else {
            seen_.push_back(value);
        }
        return total_ + total;
    }
    void reset();

private:
    int total_ = 0;
    std::vector<int> seen_;
};

void @::reset() {
    int total = 1;
    seen_.clear();
    total_ = total;
}

)";
    auto block = [&](size_t i) {
        return i % 6 == 5 ? fill(klass, numbered("Widget", i))
                          : fill(function, numbered("fold", i));
    };
    return assemble("cpp", "big.cpp", lines,
                    "// Generated: the re-anchoring benchmark's large C++ file.\n"
                    "#include <algorithm>\n#include <string>\n#include <vector>\n\n"
                    "namespace gen {\n\n",
                    block, "// padding\n", "} // namespace gen\n", "total = 1");
}

} // namespace engram::bench
