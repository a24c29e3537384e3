// An LD_PRELOAD shim that makes the n-th file-system call of a class fail,
// for the fault-injection tests (tests/e2e/FaultTest.cpp).
//
//   ENGRAM_FAULT_CLASS  write | fsync | rename | open | mkdir | link | ftruncate,
//                       or readonly: every one of them fails with EROFS
//   ENGRAM_FAULT_AT     n: the n-th call of that class fails (1-based)
//   ENGRAM_FAULT_ERRNO  ENOSPC | EIO | EROFS | EACCES
//   ENGRAM_FAULT_UNDER  only calls on paths under these directories count
//                       (separated by ':')
//   ENGRAM_FAULT_REPORT a file the shim appends "<calls> <fired> <path>\n" to at
//                       exit (the path of the call that failed)
//   ENGRAM_FAULT_KILL   1: instead of failing, the process kills itself with
//                       SIGKILL just before that call (a crash at that point)
//
// Classes: write (write, pwrite, pwrite64), fsync (fsync, fdatasync), rename
// (rename, renameat, renameat2), open (open, open64, openat, openat64 when
// opening to write or create), mkdir, link (link, linkat), ftruncate.
// Calls on descriptors are matched by the path /proc/self/fd names, so the
// protocol's pipes and the terminal are never touched.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static const char* g_class;
static const char* g_under;
static long g_at;
static int g_errno;
static long g_calls;
static int g_fired;
static char g_firedAt[PATH_MAX]; // the path of the call that failed
static int g_ready;
static int g_kill;

static void setup(void) {
    if (g_ready) return;
    g_ready = 1;
    g_class = getenv("ENGRAM_FAULT_CLASS");
    g_under = getenv("ENGRAM_FAULT_UNDER");
    const char* at = getenv("ENGRAM_FAULT_AT");
    g_at = at ? atol(at) : 0;
    const char* k = getenv("ENGRAM_FAULT_KILL");
    g_kill = k && strcmp(k, "1") == 0;
    const char* e = getenv("ENGRAM_FAULT_ERRNO");
    g_errno = EIO;
    if (e && strcmp(e, "ENOSPC") == 0) g_errno = ENOSPC;
    if (e && strcmp(e, "EROFS") == 0) g_errno = EROFS;
    if (e && strcmp(e, "EACCES") == 0) g_errno = EACCES;
}

// ENGRAM_FAULT_UNDER may name several directories, separated by ':'.
static int under(const char* path) {
    setup(); // the first call's path is judged before fault() runs
    if (!g_under || !path) return 0;
    for (const char* dir = g_under; *dir;) {
        const char* end = strchr(dir, ':');
        size_t n = end ? (size_t)(end - dir) : strlen(dir);
        if (n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0')) return 1;
        if (!end) break;
        dir = end + 1;
    }
    return 0;
}

static char g_last[PATH_MAX]; // the path the current call is on

static int fdUnder(int fd) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, g_last, sizeof g_last - 1);
    if (n <= 0) return 0;
    g_last[n] = '\0';
    return under(g_last);
}

static int pathUnder(int dirfd, const char* path) {
    if (!path) return 0;
    if (path[0] == '/') {
        snprintf(g_last, sizeof g_last, "%s", path);
        return under(path);
    }
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) return 0;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t n = readlink(link, base, sizeof base - 1);
        if (n <= 0) return 0;
        base[n] = '\0';
    }
    int n = snprintf(g_last, sizeof g_last, "%s/%s", base, path);
    if (n < 0 || n >= (int)sizeof g_last) return 0;
    return under(g_last);
}

// Counts a matching call; true when this one must fail. The class
// "readonly" fails every write-side call under the directories with EROFS:
// a read-only file system.
static int fault(const char* cls, int matches) {
    setup();
    if (g_class && strcmp(g_class, "readonly") == 0 && matches) {
        ++g_calls;
        g_fired = 1;
        memcpy(g_firedAt, g_last, sizeof g_firedAt);
        errno = EROFS;
        return 1;
    }
    if (!g_class || strcmp(g_class, cls) != 0 || !matches) return 0;
    if (++g_calls != g_at) return 0;
    if (g_kill) raise(SIGKILL);
    g_fired = 1;
    memcpy(g_firedAt, g_last, sizeof g_firedAt);
    errno = g_errno;
    return 1;
}

__attribute__((destructor)) static void report(void) {
    const char* path = getenv("ENGRAM_FAULT_REPORT");
    if (!path || !g_class) return;
    char line[PATH_MAX + 64];
    int n = snprintf(line, sizeof line, "%ld %d %s\n", g_calls, g_fired, g_firedAt);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    syscall(SYS_write, fd, line, (size_t)n);
    syscall(SYS_close, fd);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static int writesTo(int flags) {
    return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
}

ssize_t write(int fd, const void* buf, size_t n) {
    if (fd > 2 && fault("write", fdUnder(fd))) return -1;
    return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
    if (fault("write", fdUnder(fd))) return -1;
    return REAL(pwrite)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) {
    if (fault("write", fdUnder(fd))) return -1;
    return REAL(pwrite64)(fd, buf, n, off);
}

int fsync(int fd) {
    if (fault("fsync", fdUnder(fd))) return -1;
    return REAL(fsync)(fd);
}

int fdatasync(int fd) {
    if (fault("fsync", fdUnder(fd))) return -1;
    return REAL(fdatasync)(fd);
}

int rename(const char* from, const char* to) {
    if (fault("rename", pathUnder(AT_FDCWD, to))) return -1;
    return REAL(rename)(from, to);
}

int renameat(int fromfd, const char* from, int tofd, const char* to) {
    if (fault("rename", pathUnder(tofd, to))) return -1;
    return REAL(renameat)(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char* from, int tofd, const char* to, unsigned flags) {
    if (fault("rename", pathUnder(tofd, to))) return -1;
    return REAL(renameat2)(fromfd, from, tofd, to, flags);
}

static mode_t modeArg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

// The mode argument of a variadic open call (a GNU statement expression).
#define MODE_AFTER(flags)                                                                          \
    ({                                                                                             \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode_t m = modeArg(flags, ap);                                                             \
        va_end(ap);                                                                                \
        m;                                                                                         \
    })

// Opening to write or create counts in the "open" class.
static int openFaults(int dirfd, const char* path, int flags) {
    return writesTo(flags) && fault("open", pathUnder(dirfd, path));
}

int open(const char* path, int flags, ...) {
    mode_t mode = MODE_AFTER(flags);
    return openFaults(AT_FDCWD, path, flags) ? -1 : REAL(open)(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
    mode_t mode = MODE_AFTER(flags);
    return openFaults(AT_FDCWD, path, flags) ? -1 : REAL(open64)(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
    mode_t mode = MODE_AFTER(flags);
    return openFaults(dirfd, path, flags) ? -1 : REAL(openat)(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
    mode_t mode = MODE_AFTER(flags);
    return openFaults(dirfd, path, flags) ? -1 : REAL(openat64)(dirfd, path, flags, mode);
}

int mkdir(const char* path, mode_t mode) {
    if (fault("mkdir", pathUnder(AT_FDCWD, path))) return -1;
    return REAL(mkdir)(path, mode);
}

int link(const char* from, const char* to) {
    if (fault("link", pathUnder(AT_FDCWD, to))) return -1;
    return REAL(link)(from, to);
}

int linkat(int fromfd, const char* from, int tofd, const char* to, int flags) {
    if (fault("link", pathUnder(tofd, to))) return -1;
    return REAL(linkat)(fromfd, from, tofd, to, flags);
}

int ftruncate(int fd, off_t len) {
    if (fault("ftruncate", fdUnder(fd))) return -1;
    return REAL(ftruncate)(fd, len);
}

int ftruncate64(int fd, off64_t len) {
    if (fault("ftruncate", fdUnder(fd))) return -1;
    return REAL(ftruncate64)(fd, len);
}
