// Entropy: the high-entropy-token rule, long random-looking tokens that no vendor rule names,
// and the public values that look just as random (digests, public keys, content ids).
//
// Random base62/base64 is told from words by its character classes, its Shannon entropy and
// how often it changes class; what remains are public values cited every day, each recognised
// by its label or its own structure so that none of them is refused as a secret.
#include "secrets/Chars.h"
#include "secrets/Rules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

namespace engram::secrets {

using namespace chars;

namespace {

// Host, path and fragment parts of URLs: long path segments are routinely random-looking
// (commit ids, slugs) and fragments hold client-side state (a playground's compressed code);
// neither is a credential. Userinfo ("user:pass@") and query values stay scannable, and a
// token named in a fragment ("#access_token=...") is still a password-assignment.
std::vector<Span> urlHostPaths(std::string_view t) {
    std::vector<Span> ranges;
    std::size_t pos = 0;
    while ((pos = t.find("://", pos)) != npos) {
        std::size_t schemeStart = pos;
        const std::size_t limit = pos > 32 ? pos - 32 : 0;
        while (schemeStart > limit && (isAlnum(t[schemeStart - 1]) || t[schemeStart - 1] == '+' ||
                                       t[schemeStart - 1] == '.' || t[schemeStart - 1] == '-'))
            --schemeStart;
        if (schemeStart == pos || !isAlpha(t[schemeStart])) {
            pos += 3;
            continue;
        }
        const std::size_t authority = pos + 3;
        const std::size_t end = runEnd(t, authority, [](char c) {
            return !isSpace(c) && !isQuote(c) && c != '<' && c != '>' && c != '?' && c != '#';
        });
        const std::size_t authorityEnd =
            runEnd(t.substr(0, end), authority, [](char c) { return c != '/'; });
        const std::size_t at = t.substr(authority, authorityEnd - authority).rfind('@');
        ranges.push_back({at == npos ? schemeStart : authority + at + 1, end});
        const auto inUrl = [](char c) {
            return !isSpace(c) && !isQuote(c) && c != '<' && c != '>';
        };
        std::size_t next = end;
        const std::size_t fragment =
            runEnd(t, end, [&](char c) { return inUrl(c) && c != '#'; }); // past the query
        if (fragment < t.size() && t[fragment] == '#') {
            next = runEnd(t, fragment, inUrl);
            ranges.push_back({fragment, next});
        }
        pos = std::max(next, pos + 3);
    }
    return ranges;
}

// Identifiers and paths are made of words: split at separators, case humps and digit runs,
// their segments average well over 3 characters ("TokenValidator_validate_expired_tokens"),
// while random base62/base64 changes class every 1-2 characters.
bool isIdentifierLike(std::string_view run) {
    std::size_t letters = 0;
    std::size_t segments = 0;
    std::size_t i = 0;
    while (i < run.size()) {
        if (isTokenSymbol(run[i])) {
            ++i;
            continue;
        }
        const std::size_t pieceEnd = runEnd(run, i, isAlnum);
        const std::string_view piece = run.substr(i, pieceEnd - i);
        if (piece.size() >= 7 && isAllHex(piece)) { // a commit id inside a path
            letters += piece.size();
            ++segments;
            i = pieceEnd;
            continue;
        }
        while (i < pieceEnd) {
            std::size_t j = i;
            if (isDigit(run[i])) {
                j = runEnd(run.substr(0, pieceEnd), i, isDigit);
            } else if (isLower(run[i])) {
                j = runEnd(run.substr(0, pieceEnd), i, isLower);
            } else {
                j = runEnd(run.substr(0, pieceEnd), i, isUpper);
                if (j < pieceEnd && isLower(run[j])) {
                    // "HTTPServer": the last capital starts the next word.
                    if (j - i > 1) {
                        ++segments;
                        letters += j - 1 - i;
                        i = j - 1;
                    }
                    j = runEnd(run.substr(0, pieceEnd), j, isLower);
                }
            }
            ++segments;
            letters += j - i;
            i = j;
        }
    }
    return segments > 0 && letters >= 3 * segments;
}

double shannonEntropy(std::string_view s) {
    std::array<std::uint32_t, 256> counts{};
    for (unsigned char c : s)
        ++counts[c];
    double h = 0.0;
    const double n = static_cast<double>(s.size());
    for (std::uint32_t count : counts) {
        if (count == 0) continue;
        const double p = count / n;
        h -= p * std::log2(p);
    }
    return h;
}

// A base64 blob in the SSH wire format of a public key ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5..."):
// a 4-byte length, then the key type name. Authorized-keys lines and known_hosts cite them.
bool isSshPublicKeyBlob(std::string_view run) {
    constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (run.size() < 16 || !run.starts_with("AAAA")) return false;
    std::array<unsigned char, 12> bytes{};
    for (std::size_t i = 0; i < 16; i += 4) {
        std::uint32_t group = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const std::size_t v = kAlphabet.find(run[i + k]);
            if (v == npos) return false;
            group = group << 6 | static_cast<std::uint32_t>(v);
        }
        bytes[i / 4 * 3] = static_cast<unsigned char>(group >> 16);
        bytes[i / 4 * 3 + 1] = static_cast<unsigned char>(group >> 8);
        bytes[i / 4 * 3 + 2] = static_cast<unsigned char>(group);
    }
    const std::uint32_t nameLength = std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 |
                                     std::uint32_t{bytes[2]} << 8 | bytes[3];
    const std::string_view name(reinterpret_cast<const char*>(bytes.data()) + 4, 8);
    return nameLength >= 7 && nameLength <= 64 &&
           (name.starts_with("ssh-") || name.starts_with("ecdsa-") || name.starts_with("sk-"));
}

// An absolute path under a well-known root ("/nix/store/<hash>-openssl-3", "/tmp/tmp.Xk2...",
// "/Users/alice/..."): the random part names a file, it does not open anything.
bool isAbsolutePath(std::string_view run) {
    for (std::string_view root : {"/bin/", "/dev/", "/etc/", "/home/", "/lib/", "/mnt/", "/nix/",
                                  "/opt/", "/private/", "/proc/", "/root/", "/run/", "/srv/",
                                  "/sys/", "/tmp/", "/usr/", "/var/", "/Users/", "/Volumes/"})
        if (run.starts_with(root)) return true;
    return false;
}

// An IPFS content id (CIDv0): "Qm" and 44 base58 characters, a hash of public content.
bool isIpfsCid(std::string_view run) {
    return run.size() == 46 && run.starts_with("Qm") &&
           std::all_of(run.begin(), run.end(), [](char c) {
               return isAlnum(c) && c != '0' && c != 'O' && c != 'I' && c != 'l';
           });
}

// The run starting at begin is a labelled public value: a digest after its algorithm ("h1:" in
// go.sum, "sha256:" in pip and Docker), a data: URI's payload, or the value of a setting named
// for a public or derived value ("PublicKey = ...", "\"checksum\": \"...\"").
bool isLabelledPublicValue(std::string_view t, std::size_t begin) {
    if (begin >= 8 && t.substr(begin - 8, 8) == ";base64,") return true;
    // Walk back over the separator: quotes and blanks, one ':' or '=', quotes and blanks.
    std::size_t i = begin;
    const auto skipQuotesAndBlanks = [&] {
        while (i > 0 && begin - i < 8 && (isQuote(t[i - 1]) || isBlank(t[i - 1])))
            --i;
    };
    skipQuotesAndBlanks();
    if (i == 0 || (t[i - 1] != ':' && t[i - 1] != '=')) return false;
    const bool tight = i == begin; // "h1:<digest>", nothing between label and value
    --i;
    skipQuotesAndBlanks();
    const std::size_t nameEnd = i;
    while (i > 0 && nameEnd - i < 40 &&
           (isAlnum(t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '-' || t[i - 1] == '.'))
        --i;
    std::string name;
    for (char c : t.substr(i, nameEnd - i))
        name += toLower(c);
    if (tight) {
        for (std::string_view algo : {"h1", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
                                      "sha3-256", "sha3-512", "blake2b", "blake2s", "blake3"})
            if (name == algo) return true;
    }
    for (std::string_view word :
         {"public", "pubkey", "hash", "digest", "checksum", "integrity", "fingerprint"})
        if (name.find(word) != npos) return true;
    return false;
}

bool looksLikeToken(std::string_view run) {
    constexpr std::size_t kMinLength = 32;
    if (run.size() < kMinLength) return false;
    bool lower = false, upper = false, digit = false, symbol = false;
    for (char c : run) {
        lower |= isLower(c);
        upper |= isUpper(c);
        digit |= isDigit(c);
        symbol |= isTokenSymbol(c);
    }
    if (int(lower) + int(upper) + int(digit) + int(symbol) < 3) return false;
    // Hex digests, git ids and UUIDs: agents cite them all the time and they are not secrets.
    if (std::all_of(run.begin(), run.end(), [](char c) { return isHex(c) || c == '-'; }))
        return false;
    // Subresource-integrity hashes from lock files ("sha512-<base64>") are public digests.
    for (std::string_view sri : {"sha1-", "sha256-", "sha384-", "sha512-"})
        if (run.starts_with(sri)) return false;
    // Keys issued to be published: Stripe's publishable keys, Mailgun's validation key.
    for (std::string_view published : {"pk_live_", "pk_test_", "pubkey-"})
        if (run.starts_with(published)) return false;
    // "0x" and hex: an address or a transaction hash, cited like commit ids.
    if (run.starts_with("0x") && isAllHex(run.substr(2))) return false;
    if (isIpfsCid(run) || isSshPublicKeyBlob(run) || isAbsolutePath(run)) return false;
    // Documentation marks its sample keys ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").
    if (containsIgnoreCase(run, "example")) return false;
    if (isIdentifierLike(run)) return false;
    return shannonEntropy(run) >= 4.0;
}

void considerRun(std::string_view t, std::size_t begin, std::size_t end,
                 const std::vector<Span>& urls, std::size_t& url, Candidates& out) {
    if (end - begin < 32) return;
    while (url < urls.size() && urls[url].second <= begin)
        ++url;
    if (url < urls.size() && urls[url].first <= begin) return;
    if (looksLikeToken(t.substr(begin, end - begin)) && !isLabelledPublicValue(t, begin))
        out.push_back({Rule::HighEntropyToken, begin, end});
}

} // namespace

void scanHighEntropy(std::string_view t, Candidates& out) {
    const std::vector<Span> urls = urlHostPaths(t);
    std::size_t url = 0;
    std::size_t i = 0;
    while (i < t.size()) {
        if (!isTokenChar(t[i])) {
            ++i;
            continue;
        }
        const std::size_t end = runEnd(t, i, isTokenChar);
        // '=' inside a run separates "name=value"; only trailing '=' is base64 padding.
        std::size_t begin = i;
        std::size_t j = i;
        while (j < end) {
            if (t[j] != '=') {
                ++j;
                continue;
            }
            const std::size_t eqEnd = runEnd(t.substr(0, end), j, [](char c) { return c == '='; });
            if (eqEnd < end) {
                considerRun(t, begin, j, urls, url, out);
                begin = eqEnd;
            }
            j = eqEnd;
        }
        considerRun(t, begin, end, urls, url, out);
        i = end;
    }
}

} // namespace engram::secrets
