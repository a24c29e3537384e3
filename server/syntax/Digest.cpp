// The symbols' digests over the walk's item stream.
//
// Post-order over the symbols (a nested symbol has a larger index than its
// encloser): each symbol hashes its own items once, with every nested symbol
// replaced by that symbol's digest, so the stream is hashed once however deep
// the nesting, and a class's digest still covers its methods.
//
// shapeHash is taken first: the items with the symbol's defining name
// replaced by a placeholder, and a nested symbol of the same name (a
// constructor) contributing its shape rather than its hash, so renaming a
// class together with its constructors keeps the class's shape. hash is the
// digest of the shape digest and the name's items: it changes whenever
// either does. Both are SHA-256 (libsodium), cut to 16 bytes (32 hex chars).
#include "syntax/SyntaxInternal.h"
#include "util/Hash.h"

#include <array>
#include <sodium.h>
#include <tuple>

namespace engram::syntax::detail {

void digestSymbols(std::string_view stream, std::vector<SymbolRecord>& records,
                   std::vector<Symbol>& symbols) {
    static_assert(std::tuple_size_v<Digest> == crypto_hash_sha256_BYTES);
    const size_t n = symbols.size();
    std::vector<std::vector<size_t>> children(n);
    for (size_t i = 0; i < n; ++i)
        if (records[i].parent != kNoSpan) children[records[i].parent].push_back(i);
    auto data = [&](size_t at) {
        return reinterpret_cast<const unsigned char*>(stream.data() + at);
    };
    // Tags beyond the walk's own (Walk.cpp), so they cannot be confused with items.
    const unsigned char placeholder = 0x10, child = 0x11;

    for (size_t i = n; i-- > 0;) {
        SymbolRecord& r = records[i];
        if (r.known) continue; // taken over with its digests from an earlier walk
        const size_t nameBegin = r.nameBegin, nameEnd = r.nameEnd;
        crypto_hash_sha256_state st;
        crypto_hash_sha256_init(&st);
        size_t pos = r.streamBegin;
        auto feedTo = [&](size_t upto) {
            if (upto > pos) crypto_hash_sha256_update(&st, data(pos), upto - pos);
        };
        bool nameDone = nameBegin == kNoSpan;
        auto feedName = [&] {
            feedTo(nameBegin);
            crypto_hash_sha256_update(&st, &placeholder, 1);
            pos = nameEnd;
            nameDone = true;
        };
        for (size_t c : children[i]) {
            const SymbolRecord& rc = records[c];
            if (!nameDone && nameBegin < rc.streamBegin) feedName();
            feedTo(rc.streamBegin);
            crypto_hash_sha256_update(&st, &child, 1);
            const Digest& d = symbols[c].name == symbols[i].name ? rc.shape : rc.hash;
            crypto_hash_sha256_update(&st, d.data(), d.size());
            pos = rc.streamEnd;
        }
        if (!nameDone) feedName();
        feedTo(r.streamEnd);
        crypto_hash_sha256_final(&st, r.shape.data());

        crypto_hash_sha256_init(&st);
        crypto_hash_sha256_update(&st, r.shape.data(), r.shape.size());
        if (nameBegin != kNoSpan)
            crypto_hash_sha256_update(&st, data(nameBegin), nameEnd - nameBegin);
        else
            crypto_hash_sha256_update(
                &st, reinterpret_cast<const unsigned char*>(symbols[i].name.data()),
                symbols[i].name.size());
        crypto_hash_sha256_final(&st, r.hash.data());

        symbols[i].hash = toHex(r.hash.data(), 16);
        symbols[i].shapeHash = toHex(r.shape.data(), 16);
    }
}

} // namespace engram::syntax::detail
