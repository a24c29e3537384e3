// The "engram" FTS5 tokenizer: the index and the ranker share one tokenizer.
//
// Documents are split by text::tokenize (identifier splitting, stemming, stop
// words). Queries are handed over already tokenized by the same function, so
// in query mode the tokenizer passes terms through verbatim: stemming twice
// would not be idempotent and would miss terms. A bulk load may hand over a
// row's terms computed on another thread (Pretokenized.h).
#include "index/Pretokenized.h"
#include "index/Sqlite.h"
#include "text/Tokenize.h"

#include <sqlite3.h>

namespace engram::sql {
namespace {

struct Tok {
    int unused = 0;
};

// The row a ReplayScope on this thread is inserting, and the next of its
// columns not yet replayed (FTS5 tokenizes a row's columns in order and
// skips the NULL ones).
thread_local std::span<const ReplayColumn> tReplay;
thread_local size_t tReplayNext = 0;

const Pretokenized* replayed(std::string_view text) {
    for (size_t i = tReplayNext; i < tReplay.size(); ++i)
        if (tReplay[i].terms && tReplay[i].text == text) {
            tReplayNext = i + 1;
            return tReplay[i].terms;
        }
    return nullptr;
}

int create(void*, const char**, int, Fts5Tokenizer** out) {
    *out = reinterpret_cast<Fts5Tokenizer*>(new Tok());
    return SQLITE_OK;
}

void destroy(Fts5Tokenizer* t) {
    delete reinterpret_cast<Tok*>(t);
}

int tokenize(Fts5Tokenizer*, void* ctx, int flags, const char* text, int n,
             int (*emit)(void*, int, const char*, int, int, int)) {
    std::string_view in(text ? text : "", size_t(n > 0 ? n : 0));
    if (flags & FTS5_TOKENIZE_QUERY) {
        size_t i = 0;
        while (i < in.size()) {
            while (i < in.size() && in[i] == ' ')
                ++i;
            size_t j = in.find(' ', i);
            if (j == std::string_view::npos) j = in.size();
            if (j > i) {
                int rc = emit(ctx, 0, in.data() + i, int(j - i), int(i), int(j));
                if (rc != SQLITE_OK) return rc;
            }
            i = j;
        }
        return SQLITE_OK;
    }
    if (auto* pre = replayed(in)) {
        for (auto& t : pre->list) {
            int rc = emit(ctx, t.colocated ? FTS5_TOKEN_COLOCATED : 0, pre->terms.data() + t.offset,
                          int(t.size), int(t.begin), int(t.end));
            if (rc != SQLITE_OK) return rc;
        }
        return SQLITE_OK;
    }
    int rc = SQLITE_OK;
    text::tokenize(in, [&](const text::Token& t) {
        if (rc != SQLITE_OK) return;
        rc = emit(ctx, t.colocated ? FTS5_TOKEN_COLOCATED : 0, t.term.data(), int(t.term.size()),
                  int(t.begin), int(t.end));
    });
    return rc;
}

} // namespace

Pretokenized Pretokenized::of(std::string_view text) {
    Pretokenized p;
    text::tokenize(text, [&](const text::Token& t) {
        p.list.push_back(
            {uint32_t(p.terms.size()), uint32_t(t.term.size()), t.begin, t.end, t.colocated});
        p.terms += t.term;
    });
    return p;
}

ReplayScope::ReplayScope(std::span<const ReplayColumn> columns) {
    tReplay = columns;
    tReplayNext = 0;
}

ReplayScope::~ReplayScope() {
    tReplay = {};
    tReplayNext = 0;
}

void registerTokenizer(Db& db) {
    fts5_api* api = nullptr;
    // The pointer-passing interface is how FTS5 hands out its API; the raw
    // statement lives only for these three calls.
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db.raw(), "SELECT fts5(?1)", -1, &stmt, nullptr) != SQLITE_OK)
        throw Error(sqlite3_errcode(db.raw()), "FTS5 is not available in this SQLite");
    sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (!api) throw Error(SQLITE_ERROR, "FTS5 is not available in this SQLite");
    static fts5_tokenizer tokenizer = {create, destroy, tokenize};
    if (api->xCreateTokenizer(api, "engram", nullptr, &tokenizer, nullptr) != SQLITE_OK)
        throw Error(SQLITE_ERROR, "cannot register the engram tokenizer");
}

} // namespace engram::sql
