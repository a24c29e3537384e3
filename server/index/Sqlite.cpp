// SQLite handle wrappers.
#include "index/Sqlite.h"

#include <sqlite3.h>

namespace engram::sql {

static ErrorKind kindOf(int code) {
    switch (code & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return ErrorKind::Storage;
    default:
        return ErrorKind::Internal;
    }
}

Error::Error(int code, const std::string& msg)
    : EngramError(kindOf(code), "index: " + msg)
    , code(code) {}

bool Error::corrupt() const {
    int primary = code & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

bool Error::busy() const {
    int primary = code & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

static Error lastError(sqlite3* db, std::string_view context) {
    int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
    std::string msg = std::string(context) + ": " + (db ? sqlite3_errmsg(db) : "no database");
    return Error(code, msg);
}

Stmt::Stmt(sqlite3* db, std::string_view sql)
    : db_(db) {
    if (sqlite3_prepare_v3(db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &s_,
                           nullptr) != SQLITE_OK)
        throw lastError(db, "prepare '" + std::string(sql.substr(0, 60)) + "'");
}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
    if (this != &o) {
        sqlite3_finalize(s_);
        s_ = o.s_;
        db_ = o.db_;
        o.s_ = nullptr;
    }
    return *this;
}

Stmt::~Stmt() {
    sqlite3_finalize(s_);
}

Stmt& Stmt::bind(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
}
Stmt& Stmt::bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
}
Stmt& Stmt::bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
}
Stmt& Stmt::bindNull(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
}

bool Stmt::step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Error e = lastError(db_, "step");
    sqlite3_reset(s_);
    throw e;
}

void Stmt::exec() {
    while (step()) {
    }
    reset();
}

void Stmt::reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
}

int64_t Stmt::int64(int col) const {
    return sqlite3_column_int64(s_, col);
}
double Stmt::real(int col) const {
    return sqlite3_column_double(s_, col);
}
bool Stmt::isNull(int col) const {
    return sqlite3_column_type(s_, col) == SQLITE_NULL;
}
std::string_view Stmt::view(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    return p ? std::string_view(p, size_t(sqlite3_column_bytes(s_, col))) : std::string_view{};
}
std::string Stmt::text(int col) const {
    return std::string(view(col));
}

std::string Stmt::sql() const {
    const char* text = s_ ? sqlite3_sql(s_) : nullptr;
    return text ? text : "";
}

Db::Db(const std::string& path, bool create) {
    int rc = sqlite3_open_v2(
        path.c_str(), &db_,
        SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        Error e = lastError(db_, "open " + path);
        sqlite3_close(db_);
        db_ = nullptr;
        throw e;
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 10000);
}

Db& Db::operator=(Db&& o) noexcept {
    if (this != &o) {
        sqlite3_close_v2(db_);
        db_ = o.db_;
        o.db_ = nullptr;
    }
    return *this;
}

Db::~Db() {
    sqlite3_close_v2(db_);
}

void Db::exec(std::string_view sql) {
    std::string s(sql);
    char* err = nullptr;
    if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        int code = sqlite3_extended_errcode(db_);
        std::string msg = err ? err : "error";
        sqlite3_free(err);
        throw Error(code, "exec: " + msg);
    }
}

int64_t Db::pragmaInt(std::string_view name) {
    Stmt s(db_, "PRAGMA " + std::string(name));
    return s.step() ? s.int64(0) : 0;
}

int64_t Db::changes() const {
    return sqlite3_changes64(db_);
}
int64_t Db::lastInsertRowid() const {
    return sqlite3_last_insert_rowid(db_);
}

Transaction::Transaction(Db& db, bool immediate)
    : db_(db) {
    db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
    if (!done_) {
        try {
            db_.exec("ROLLBACK");
        } catch (...) {
            // Nothing sensible to do in a destructor; SQLite rolls back on close.
        }
    }
}

void Transaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

} // namespace engram::sql
