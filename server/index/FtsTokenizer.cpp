// The "engram" FTS5 tokenizer: the index and the ranker share one tokenizer.
//
// Documents are split by text::tokenize (identifier splitting, stemming, stop
// words). Queries are handed over already tokenized by the same function, so
// in query mode the tokenizer passes terms through verbatim: stemming twice
// would not be idempotent and would miss terms.
#include "index/Sqlite.h"
#include "text/Tokenize.h"

#include <sqlite3.h>

namespace engram::sql {
namespace {

struct Tok {
    int unused = 0;
};

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
    int rc = SQLITE_OK;
    text::tokenize(in, [&](const text::Token& t) {
        if (rc != SQLITE_OK) return;
        rc = emit(ctx, t.colocated ? FTS5_TOKEN_COLOCATED : 0, t.term.data(), int(t.term.size()),
                  int(t.begin), int(t.end));
    });
    return rc;
}

} // namespace

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
