// Timestamped log lines.
#include "util/Log.h"

#include "util/Time.h"

#include <cstdio>

namespace engram {

static FILE* g_log = nullptr;

bool openLog(const std::string& path) {
    if (path.empty()) return true;
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) return false;
    g_log = f;
    return true;
}

void logLine(const std::string& line) {
    FILE* out = g_log ? g_log : stderr;
    std::fprintf(out, "%s engram: %s\n", formatUtc(nowUnix()).c_str(), line.c_str());
    std::fflush(out);
}

} // namespace engram
