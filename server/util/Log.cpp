// Timestamped log lines.
#include "util/Log.h"

#include "util/Time.h"

#include <cstdio>

namespace engram {

static FILE* g_log = nullptr;
static bool g_opened = false; // a server: openLog was called (a file, or stderr)

bool openLog(const std::string& path) {
    g_opened = true;
    if (path.empty()) return true;
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) return false;
    g_log = f;
    return true;
}

void closeLog() {
    if (g_log) std::fclose(g_log);
    g_log = nullptr;
    g_opened = false;
}

void logLine(const std::string& line) {
    FILE* out = g_log ? g_log : stderr;
    std::fprintf(out, "%s engram: %s\n", formatUtc(nowUnix()).c_str(), line.c_str());
    std::fflush(out);
}

void logDropped(std::string_view what, const std::exception& e) {
    if (g_opened) logLine(std::string(what) + " (dropped, serving on): " + e.what());
}

} // namespace engram
