// Normalisation for content hashes (see Content.h).
#include "text/Content.h"

#include "util/Hash.h"

namespace engram {

std::string normalizeContent(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool pendingSpace = false;
    for (char ch : text) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) out += ' ';
        pendingSpace = false;
        out += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : ch;
    }
    return out;
}

std::string contentHash(std::string_view text) {
    return sha256Hex(normalizeContent(text));
}

} // namespace engram
