// Counts what an engram process asks of the system, from outside it: loaded
// with LD_PRELOAD by the cost-invariant tests (tests/e2e/CostTest.cpp), it
// sits between engram and libc and counts the processes engram starts and
// the files and directories it opens or stats on the thread that answers,
// whatever code path (engram's, SQLite's, the C++ library's) makes the call,
// and the rows it reads from its index (each sqlite3_step that yields a row).
// Counting at this level
// means a feature cannot put work on a hot path that the test does not see.
//
// The counters live in a file the test names (ENGRAM_COST_COUNTS), mapped
// shared, so the test reads them while the server runs. Only a process
// whose executable is named engram counts: the git a server would start
// inherits the preload and is counted once, as a process.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// The counters' order in the file: eight little-endian uint64 slots.
enum {
    kProcesses,
    kOpens,
    kStats,
    kClaimFiles,
    kDirectories,
    kProcessesAnyThread,
    kIndexRows,
    kSlots = 8
};

static uint64_t* counters;

__attribute__((constructor)) static void costShimStart(void) {
    const char* path = getenv("ENGRAM_COST_COUNTS");
    if (!path) return;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    const char* base = strrchr(exe, '/');
    if (strcmp(base ? base + 1 : exe, "engram") != 0) return;
    // The raw system call: open() here would be counted by this very file.
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    void* m = mmap(NULL, kSlots * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    syscall(SYS_close, fd);
    if (m != MAP_FAILED) counters = (uint64_t*)m;
}

// Only the main thread, the one that answers requests: the background
// checks of claim files (start-up reconcile, the re-check after changes)
// run on threads of their own, whenever their timers say, and are held to
// account by tests/e2e/StartupTest.cpp, not here.
// A one-shot command waits at its exit for what its other threads started:
// processes are also counted whichever thread starts them.
static void countAnyThread(int slot) {
    if (counters) __atomic_fetch_add(&counters[slot], 1, __ATOMIC_RELAXED);
}

static void count(int slot) {
    if (counters && syscall(SYS_gettid) == getpid())
        __atomic_fetch_add(&counters[slot], 1, __ATOMIC_RELAXED);
}

// A claim file: a name ending in .md under .engram/ (claims, history), or a
// bare name ending in .md read relative to a directory descriptor (the
// store's scan reads its directory that way).
static void countPath(int slot, const char* path) {
    count(slot);
    size_t len = strlen(path);
    int md = len > 3 && strcmp(path + len - 3, ".md") == 0;
    if (md && (strstr(path, ".engram/") || !strchr(path, '/'))) count(kClaimFiles);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static int openMode(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

static void countOpen(const char* path, int flags) {
    countPath(kOpens, path);
    if (flags & O_DIRECTORY) count(kDirectories);
}

int open(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int mode = openMode(flags, ap);
    va_end(ap);
    countOpen(path, flags);
    return REAL(open)(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int mode = openMode(flags, ap);
    va_end(ap);
    countOpen(path, flags);
    return REAL(open64)(path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int mode = openMode(flags, ap);
    va_end(ap);
    countOpen(path, flags);
    return REAL(openat)(dir, path, flags, mode);
}

int openat64(int dir, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int mode = openMode(flags, ap);
    va_end(ap);
    countOpen(path, flags);
    return REAL(openat64)(dir, path, flags, mode);
}

FILE* fopen(const char* path, const char* mode) {
    countPath(kOpens, path);
    return REAL(fopen)(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
    countPath(kOpens, path);
    return REAL(fopen64)(path, mode);
}

int stat(const char* path, struct stat* st) {
    countPath(kStats, path);
    return REAL(stat)(path, st);
}

int lstat(const char* path, struct stat* st) {
    countPath(kStats, path);
    return REAL(lstat)(path, st);
}

int fstatat(int dir, const char* path, struct stat* st, int flags) {
    // fstat(fd) reaches here with an empty path: a file already open.
    if (*path) countPath(kStats, path);
    return REAL(fstatat)(dir, path, st, flags);
}

int stat64(const char* path, struct stat64* st) {
    countPath(kStats, path);
    return REAL(stat64)(path, st);
}

int lstat64(const char* path, struct stat64* st) {
    countPath(kStats, path);
    return REAL(lstat64)(path, st);
}

int fstatat64(int dir, const char* path, struct stat64* st, int flags) {
    if (*path) countPath(kStats, path);
    return REAL(fstatat64)(dir, path, st, flags);
}

int statx(int dir, const char* path, int flags, unsigned int mask, struct statx* st) {
    if (*path) countPath(kStats, path);
    return REAL(statx)(dir, path, flags, mask, st);
}

DIR* opendir(const char* path) {
    count(kDirectories);
    return REAL(opendir)(path);
}

int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa,
                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    count(kProcesses);
    countAnyThread(kProcessesAnyThread);
    return REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
}

int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa,
                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    count(kProcesses);
    countAnyThread(kProcessesAnyThread);
    return REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
}

pid_t fork(void) {
    count(kProcesses);
    countAnyThread(kProcessesAnyThread);
    return REAL(fork)();
}

// SQLite is a shared library: engram's calls into it pass through here.
// Rows of statements engram wrote are counted; the full-text module's own
// reads of its segment tables (statements naming the schema, 'main'.) are
// not: how many segments a term spans follows the history of merges, not
// the rows a request reads.
struct sqlite3_stmt;
int sqlite3_step(struct sqlite3_stmt* stmt);
const char* sqlite3_sql(struct sqlite3_stmt* stmt);
int sqlite3_step(struct sqlite3_stmt* stmt) {
    static __typeof__(&sqlite3_step) real;
    static __typeof__(&sqlite3_sql) sql;
    if (!real) real = REAL(sqlite3_step);
    if (!sql) sql = REAL(sqlite3_sql);
    int rc = real(stmt);
    if (rc == 100 /* SQLITE_ROW */) {
        const char* text = sql(stmt);
        if (!text || !strstr(text, "'main'.")) count(kIndexRows);
    }
    return rc;
}
