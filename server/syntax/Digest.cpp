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

namespace engram::syntax::detail {

void digestSymbols(std::string_view stream, const std::vector<std::pair<size_t, size_t>>& ranges,
                   const std::vector<size_t>& parents,
                   const std::vector<std::pair<size_t, size_t>>& names,
                   std::vector<Symbol>& symbols) {
    const size_t n = symbols.size();
    using Digest = std::array<unsigned char, crypto_hash_sha256_BYTES>;
    std::vector<Digest> hashD(n), shapeD(n);
    std::vector<std::vector<size_t>> children(n);
    for (size_t i = 0; i < n; ++i)
        if (parents[i] != kNoSpan) children[parents[i]].push_back(i);
    auto data = [&](size_t at) {
        return reinterpret_cast<const unsigned char*>(stream.data() + at);
    };
    // Tags beyond the walk's own (Walk.cpp), so they cannot be confused with items.
    const unsigned char placeholder = 0x10, child = 0x11;

    for (size_t i = n; i-- > 0;) {
        auto [begin, end] = ranges[i];
        auto [nameBegin, nameEnd] = names[i];
        crypto_hash_sha256_state st;
        crypto_hash_sha256_init(&st);
        size_t pos = begin;
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
            if (!nameDone && nameBegin < ranges[c].first) feedName();
            feedTo(ranges[c].first);
            crypto_hash_sha256_update(&st, &child, 1);
            const Digest& d = symbols[c].name == symbols[i].name ? shapeD[c] : hashD[c];
            crypto_hash_sha256_update(&st, d.data(), d.size());
            pos = ranges[c].second;
        }
        if (!nameDone) feedName();
        feedTo(end);
        crypto_hash_sha256_final(&st, shapeD[i].data());

        crypto_hash_sha256_init(&st);
        crypto_hash_sha256_update(&st, shapeD[i].data(), shapeD[i].size());
        if (nameBegin != kNoSpan)
            crypto_hash_sha256_update(&st, data(nameBegin), nameEnd - nameBegin);
        else
            crypto_hash_sha256_update(
                &st, reinterpret_cast<const unsigned char*>(symbols[i].name.data()),
                symbols[i].name.size());
        crypto_hash_sha256_final(&st, hashD[i].data());

        symbols[i].hash = toHex(hashD[i].data(), 16);
        symbols[i].shapeHash = toHex(shapeD[i].data(), 16);
    }
}

} // namespace engram::syntax::detail
