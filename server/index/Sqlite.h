// Move-only RAII handles over the SQLite C API.
//
// This module (index/) is the only one that includes sqlite3.h; everything
// else sees these wrappers. Statements are prepared once and reset after use;
// a Transaction rolls back unless committed, so an exception mid-write never
// leaves half an update behind.
#pragma once
#include "util/Error.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace engram::sql {

// A failed SQLite call. One the file system caused (full, read-only,
// failing, unopenable) is a StorageError a client can act on; any other is
// internal.
struct Error : EngramError {
    Error(int code, const std::string& msg);
    int code;
    // The file is not a database, or it is damaged: the index is rebuilt.
    bool corrupt() const;
    bool busy() const;
};

class Stmt {
public:
    Stmt() = default;
    Stmt(sqlite3* db, std::string_view sql);
    Stmt(Stmt&& o) noexcept
        : s_(o.s_)
        , db_(o.db_) {
        o.s_ = nullptr;
    }
    Stmt& operator=(Stmt&& o) noexcept;
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    ~Stmt();

    // The statement's SQL text, as prepared.
    std::string sql() const;
    // Binds are 1-based like SQLite's; chaining keeps call sites short.
    Stmt& bind(int i, std::string_view v);
    Stmt& bind(int i, int64_t v);
    Stmt& bind(int i, int v) { return bind(i, int64_t(v)); }
    Stmt& bind(int i, double v);
    Stmt& bindNull(int i);
    template <class T>
    Stmt& bind(int i, const std::optional<T>& v) {
        return v ? bind(i, *v) : bindNull(i);
    }
    // True while a row is available.
    bool step();
    // Runs to completion (for statements without rows) and resets.
    void exec();
    void reset();

    int64_t int64(int col) const;
    double real(int col) const;
    std::string text(int col) const;
    std::string_view view(int col) const;
    bool isNull(int col) const;

private:
    sqlite3_stmt* s_ = nullptr;
    sqlite3* db_ = nullptr;
};

class Db {
public:
    Db() = default;
    // Opens (creating if needed) with a busy timeout so concurrent engram
    // processes wait for each other instead of failing.
    // `create` false: a missing file is an error rather than a new database
    // (a reader beside the index's owner must not invent one).
    explicit Db(const std::string& path, bool create = true);
    Db(Db&& o) noexcept
        : db_(o.db_) {
        o.db_ = nullptr;
    }
    Db& operator=(Db&& o) noexcept;
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db();

    void exec(std::string_view sql);
    Stmt prepare(std::string_view sql) { return Stmt(db_, sql); }
    int64_t pragmaInt(std::string_view name);
    int64_t changes() const;
    int64_t lastInsertRowid() const;
    sqlite3* raw() const { return db_; }

private:
    sqlite3* db_ = nullptr;
};

class Transaction {
public:
    explicit Transaction(Db& db, bool immediate = true);
    ~Transaction();
    void commit();

private:
    Db& db_;
    bool done_ = false;
};

// Registers the "engram" FTS5 tokenizer (text/Tokenize.h) on this connection.
void registerTokenizer(Db& db);

} // namespace engram::sql
