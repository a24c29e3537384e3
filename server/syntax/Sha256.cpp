// SHA-256 (FIPS 180-4) on the x86 SHA extensions, libsodium elsewhere.
//
// The SHA extensions run two rounds per SHA256RNDS2 over the state split
// into two registers, {A, B, E, F} and {C, D, G, H} (A in the highest
// lane), and extend the message schedule four words at a time with
// SHA256MSG1 (W[t-16] + sigma0(W[t-15])) and SHA256MSG2 (+ sigma1(W[t-2]),
// after W[t-7] is added in between). Everything around the compression
// (buffering, padding, the length) is plain code below.
#include "syntax/Sha256.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define ENGRAM_SHA_X86 1
#endif

namespace engram::syntax::detail {

namespace {

constexpr uint32_t kInitial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

#ifdef ENGRAM_SHA_X86

alignas(16) constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

bool hasShaExtensions() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool sha = b & (1u << 29);
    return ssse3 && sse41 && sha;
}

__attribute__((target("sha,sse4.1,ssse3"))) void
compress(uint32_t state[8], const unsigned char* data, size_t blocks) {
    // Each 32-bit word of the message is big-endian.
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    // {A, B, C, D} and {E, F, G, H} (A in the lowest lane) to {A, B, E, F}
    // and {C, D, G, H} (A and C in the highest).
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0xB1);
    __m128i cdgh =
        _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4)), 0x1B);
    __m128i abef = _mm_alignr_epi8(t, cdgh, 8);
    cdgh = _mm_blend_epi16(cdgh, t, 0xF0);

    for (; blocks > 0; --blocks, data += 64) {
        const __m128i abefBefore = abef, cdghBefore = cdgh;
        // w[g & 3] holds the schedule's words 4g..4g+3 once group g is done;
        // before, the words of group g-4.
        __m128i w[4];
        for (int g = 0; g < 16; ++g) {
            __m128i words;
            if (g < 4) {
                words = _mm_shuffle_epi8(
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)), byteSwap);
            } else {
                __m128i s = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                s = _mm_add_epi32(s, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(s, w[(g + 3) & 3]);
            }
            w[g & 3] = words;
            const __m128i wk = _mm_add_epi32(
                words, _mm_load_si128(reinterpret_cast<const __m128i*>(kRound + 4 * g)));
            // Two rounds on the low two lanes, two on the high ones; the
            // registers swap roles each time.
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
        }
        abef = _mm_add_epi32(abef, abefBefore);
        cdgh = _mm_add_epi32(cdgh, cdghBefore);
    }

    // Back to {A, B, C, D} and {E, F, G, H}.
    t = _mm_shuffle_epi32(abef, 0x1B);
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(t, cdgh, 0xF0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(cdgh, t, 8));
}

#else

bool hasShaExtensions() {
    return false;
}

void compress(uint32_t*, const unsigned char*, size_t) {}

#endif

} // namespace

const bool Sha256::kAccelerated = hasShaExtensions();

Sha256::Sha256() {
    if (kAccelerated)
        std::copy(std::begin(kInitial), std::end(kInitial), state_);
    else
        crypto_hash_sha256_init(&portable_);
}

void Sha256::addAccelerated(const unsigned char* p, size_t n) {
    if (used_ > 0) {
        const size_t take = std::min(n, sizeof block_ - used_);
        std::memcpy(block_ + used_, p, take);
        used_ += take;
        p += take;
        n -= take;
        if (used_ < sizeof block_) return;
        compress(state_, block_, 1);
        length_ += sizeof block_;
        used_ = 0;
    }
    const size_t blocks = n / 64;
    if (blocks > 0) {
        compress(state_, p, blocks);
        length_ += blocks * 64;
        p += blocks * 64;
        n -= blocks * 64;
    }
    std::memcpy(block_, p, n);
    used_ = n;
}

std::array<unsigned char, 32> Sha256::finish() {
    std::array<unsigned char, 32> digest;
    if (!kAccelerated) {
        crypto_hash_sha256_final(&portable_, digest.data());
        return digest;
    }
    // The padding: a 1 bit, zeros, and the message length in bits, big-endian,
    // in the last 8 bytes of a block.
    const uint64_t bits = (length_ + used_) * 8;
    block_[used_++] = 0x80;
    if (used_ > 56) {
        std::fill(block_ + used_, block_ + 64, 0);
        compress(state_, block_, 1);
        used_ = 0;
    }
    std::fill(block_ + used_, block_ + 56, 0);
    for (int i = 0; i < 8; ++i)
        block_[56 + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    compress(state_, block_, 1);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j)
            digest[size_t(4 * i + j)] = static_cast<unsigned char>(state_[i] >> (24 - 8 * j));
    return digest;
}

} // namespace engram::syntax::detail
