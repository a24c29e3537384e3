// SHA-256 for the symbol digests (Digest.cpp), with the x86 SHA extensions
// where the processor has them.
//
// Why not libsodium alone: its SHA-256 is portable C, and hashing every
// definition four ways (hash, shape, head, tokens) costs about a sixth of a
// file's parse time with it; the SHA instructions do the same work several
// times faster. The digests are SHA-256 either way, byte for byte (stored
// anchors depend on them): without the extensions, libsodium computes them
// as before.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sodium.h>

namespace engram::syntax::detail {

class Sha256 {
public:
    Sha256();
    void add(const void* p, size_t n) {
        if (n == 0) return;
        if (!kAccelerated) {
            crypto_hash_sha256_update(&portable_, static_cast<const unsigned char*>(p), n);
        } else if (n < sizeof block_ && used_ + n < sizeof block_) { // most items are small
            std::memcpy(block_ + used_, p, n);
            used_ += n;
        } else {
            addAccelerated(static_cast<const unsigned char*>(p), n);
        }
    }
    void add(unsigned char tag) { add(&tag, 1); }
    std::array<unsigned char, 32> finish();

    // Whether the SHA extensions are used (decided once, at start-up).
    static const bool kAccelerated;

private:
    void addAccelerated(const unsigned char* p, size_t n);

    // The accelerated state: the chaining value, the bytes of the block not
    // yet compressed (always fewer than 64), and the message length.
    uint32_t state_[8];
    unsigned char block_[64];
    size_t used_ = 0;
    uint64_t length_ = 0; // bytes compressed so far
    crypto_hash_sha256_state portable_;
};

} // namespace engram::syntax::detail
