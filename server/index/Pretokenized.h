// Full-text terms computed ahead of the insert that needs them.
//
// Tokenizing (identifier splitting, stemming) is about half of what building
// the full-text index costs, and FTS5 calls the tokenizer on the thread that
// owns the connection. A bulk load therefore tokenizes each row on its
// reading threads and hands the terms to the "engram" tokenizer through a
// ReplayScope while that row is inserted: the tokenizer then emits the
// recorded terms instead of computing them. A column whose text is not the
// recorded one (or any call outside a scope) is tokenized as usual, so a
// replay can make an insert cheaper but never different.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace engram::sql {

// The terms of one column, exactly as text::tokenize emits them.
struct Pretokenized {
    struct Term {
        uint32_t offset = 0, size = 0; // into `terms`
        uint32_t begin = 0, end = 0;   // byte offsets into the column's text
        bool colocated = false;
    };
    std::string terms;
    std::vector<Term> list;

    static Pretokenized of(std::string_view text);
};

// One column of the row being inserted: its text as bound, and its terms.
struct ReplayColumn {
    std::string_view text;
    const Pretokenized* terms = nullptr;
};

// While alive, the tokenizer on this thread replays `columns` for the texts
// that match them, in order. Scopes do not nest.
class ReplayScope {
public:
    explicit ReplayScope(std::span<const ReplayColumn> columns);
    ~ReplayScope();
    ReplayScope(const ReplayScope&) = delete;
    ReplayScope& operator=(const ReplayScope&) = delete;
};

} // namespace engram::sql
