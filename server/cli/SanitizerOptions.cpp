// The options a sanitized build (ENGRAM_SANITIZE) runs with unless
// ASAN_OPTIONS or UBSAN_OPTIONS say otherwise. Compiled into the sanitized
// binaries only.
//
// With ENGRAM_SANITIZER_LOG=PREFIX, reports go to PREFIX.<pid> files rather
// than standard error: the test suite runs servers it kills or never waits
// for, and reads every report from there at the end (tests/support/
// sanitizer_reports.sh), so none is lost in a log nobody looks at.
#include <cstdio>
#include <cstdlib>

// These run before the sanitizers' runtimes are set up (no allocation, no
// C++ statics: a fixed buffer and snprintf), so they must not be
// instrumented themselves; at -O0 (the unit tests' code) they would be.
#define ENGRAM_UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))

namespace {

ENGRAM_UNINSTRUMENTED const char* withLog(char* buf, size_t size, const char* base) {
    const char* log = std::getenv("ENGRAM_SANITIZER_LOG");
    if (log && *log)
        std::snprintf(buf, size, "%s:log_path=%s", base, log);
    else
        std::snprintf(buf, size, "%s", base);
    return buf;
}

} // namespace

extern "C" ENGRAM_UNINSTRUMENTED const char* __asan_default_options() {
    static char buf[4096];
    return withLog(buf, sizeof buf,
                   "detect_leaks=1:check_initialization_order=1:strict_init_order=1");
}

extern "C" ENGRAM_UNINSTRUMENTED const char* __ubsan_default_options() {
    static char buf[4096];
    return withLog(buf, sizeof buf, "print_stacktrace=1:halt_on_error=1");
}
