// The symbols' digests over the walk's item stream.
//
// Post-order over the symbols (a nested symbol has a larger index than its
// encloser): each symbol hashes its own items, with every nested symbol
// replaced by that symbol's digest, so the stream is hashed about once
// however deep the nesting, and a class's digest still covers its methods.
//
// shapeHash is taken first: the items with the symbol's defining name, and
// the text of every leaf that spells the name, replaced by a placeholder. A
// nested symbol contributes its hash, unless it spells the name (a
// constructor, a method returning its class), in which case its items are
// hashed again with the name masked. So renaming a function together with
// its recursive calls, or a class together with its constructors and
// self-references, keeps the shape: that is how a renamed anchor is found.
// hash is the digest of the shape digest, the name's items and the name: a
// rename changes it, and so does any other change of the items. Both are
// SHA-256 (Sha256.h), cut to 16 bytes (32 hex chars).
#include "syntax/Sha256.h"
#include "syntax/SyntaxInternal.h"
#include "util/Hash.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace engram::syntax::detail {

namespace {

// Tags beyond the walk's own (Walk.cpp), so they cannot be confused with items.
constexpr unsigned char kPlaceholder = 0x10, kChild = 0x11, kMaskedChild = 0x12;

// Feeds the source bytes [from, to) the way the token digest sees them:
// without comments (the sorted spans in `comments`, from *next on), white
// space, line continuations, quotes, commas and semicolons. What is left
// is the code's words and operators, whatever a recovering parser made of
// them.
void feedText(Sha256& h, std::string_view src, size_t from, size_t to,
              const std::vector<std::pair<uint32_t, uint32_t>>& comments, size_t& next) {
    unsigned char buf[256];
    size_t n = 0;
    auto flush = [&] {
        h.add(buf, n);
        n = 0;
    };
    size_t i = from;
    while (i < to) {
        while (next < comments.size() && comments[next].second <= i)
            ++next;
        if (next < comments.size() && comments[next].first <= i) {
            i = comments[next].second;
            continue;
        }
        char c = src[i++];
        switch (c) {
        case ' ':
        case '\t':
        case '\n':
        case '\r':
        case '\f':
        case '\v':
        case '\\': // only before a line break does it survive as code; see below
        case ',':
        case ';':
        case '\'':
        case '"':
        case '`':
            if (c == '\\' && i < to && src[i] != '\n' && src[i] != '\r') break;
            continue;
        default:
            break;
        }
        buf[n++] = (unsigned char)c;
        if (n == sizeof buf) flush();
    }
    flush();
}

} // namespace

void digestSymbols(Extraction& x, std::string_view src) {
    static_assert(std::tuple_size_v<Digest> == crypto_hash_sha256_BYTES);
    auto& symbols = x.symbols;
    auto& records = x.records;
    const std::string& stream = x.stream;
    const size_t n = symbols.size();
    std::vector<std::vector<size_t>> children(n);
    struct Mask {
        size_t begin, end;
        unsigned char which; // Occurrence::which; kName for the defining name
        bool operator<(const Mask& o) const { return begin < o.begin; }
    };
    constexpr unsigned char kName = 0xff;
    std::vector<std::vector<Mask>> named(n); // occurrences by owner, in stream order
    for (size_t i = 0; i < n; ++i)
        if (records[i].parent != kNoSpan) children[records[i].parent].push_back(i);
    for (const Occurrence& o : x.occurrences)
        if (!records[o.owner].known) named[o.owner].push_back({o.begin, o.end, o.which});

    // Feeds stream[from, to) with the spans in `masks` (sorted, starting at
    // or after *next) replaced by a placeholder saying which name it was;
    // *next moves past them.
    auto feedMasked = [&](Sha256& h, size_t from, size_t to, const std::vector<Mask>& masks,
                          size_t& next) {
        while (next < masks.size() && masks[next].begin < to) {
            const Mask& m = masks[next++];
            if (m.begin < from) continue; // inside a span masked already (the defining name)
            h.add(stream.data() + from, m.begin - from);
            const unsigned char placeholder[2] = {kPlaceholder, m.which};
            h.add(placeholder, 2);
            from = m.end;
        }
        if (to > from) h.add(stream.data() + from, to - from);
    };
    auto anyIn = [](const std::vector<Mask>& spans, size_t b, size_t e) {
        auto it = std::lower_bound(spans.begin(), spans.end(), Mask{b, 0, 0});
        return it != spans.end() && it->begin < e;
    };

    for (size_t i = n; i-- > 0;) {
        SymbolRecord& r = records[i];
        if (r.known) continue; // taken over with its digests from an earlier walk
        // What the shape leaves out: the defining name's items, and the text
        // of every other leaf spelling the name.
        std::vector<Mask> masks;
        masks.reserve(named[i].size() + 1);
        if (r.nameBegin != kNoSpan) masks.push_back({r.nameBegin, r.nameEnd, kName});
        for (auto& span : named[i])
            masks.push_back(span);
        std::stable_sort(masks.begin(), masks.end());

        Sha256 shape;
        size_t pos = r.streamBegin, next = 0;
        for (size_t c : children[i]) {
            const SymbolRecord& rc = records[c];
            feedMasked(shape, pos, rc.streamBegin, masks, next);
            if (anyIn(named[i], rc.streamBegin, rc.streamEnd)) {
                // The child spells this symbol's name (a constructor, a
                // method returning its class): its items are hashed again
                // with the name masked, so the rename leaves the shape be.
                Sha256 m;
                size_t at = next;
                feedMasked(m, rc.streamBegin, rc.streamEnd, masks, at);
                Digest d = m.finish();
                shape.add(kMaskedChild);
                shape.add(d.data(), d.size());
            } else {
                shape.add(kChild);
                shape.add(rc.hash.data(), rc.hash.size());
            }
            while (next < masks.size() && masks[next].begin < rc.streamEnd)
                ++next;
            pos = rc.streamEnd;
        }
        feedMasked(shape, pos, r.streamEnd, masks, next);
        r.shape = shape.finish();

        // The hash: the shape plus what it masked (the name's items, the name,
        // and each qualifier name a placeholder stands for), so it changes
        // with any item of the definition. Only the qualifier names actually
        // masked count: a method that never spells its class keeps its hash
        // when the class is renamed, and so the class keeps its shape.
        Sha256 hash;
        hash.add(r.shape.data(), r.shape.size());
        if (r.nameBegin != kNoSpan) hash.add(stream.data() + r.nameBegin, r.nameEnd - r.nameBegin);
        hash.add(kPlaceholder);
        hash.add(symbols[i].name.data(), symbols[i].name.size());
        std::vector<unsigned char> used;
        for (const Mask& m : masks)
            if (m.which != kName && m.which != 0) used.push_back(m.which);
        if (!used.empty()) {
            std::sort(used.begin(), used.end());
            used.erase(std::unique(used.begin(), used.end()), used.end());
            auto parts = components(symbols[i].qualified);
            for (unsigned char w : used) {
                std::string_view part = w < parts.size() ? parts[w - 1] : std::string_view{};
                const unsigned char head[2] = {kPlaceholder, w};
                hash.add(head, 2);
                hash.add(part.data(), part.size());
                hash.add(kPlaceholder);
            }
        }
        r.hash = hash.finish();

        // The head: the items outside the body, the name's left out (twins
        // share it anyway, and a rename should not look like a new head).
        Sha256 head;
        std::vector<std::pair<size_t, size_t>> cut;
        if (r.nameBegin != kNoSpan) cut.push_back({r.nameBegin, r.nameEnd});
        if (r.bodyBegin != kNoSpan) cut.push_back({r.bodyBegin, r.bodyEnd});
        std::sort(cut.begin(), cut.end());
        size_t from = r.streamBegin;
        for (auto [b, e] : cut) {
            if (b < from) continue;
            head.add(stream.data() + from, b - from);
            head.add(kPlaceholder);
            from = e;
        }
        if (r.streamEnd > from) head.add(stream.data() + from, r.streamEnd - from);
        r.head = head.finish();

        // The tokens: the source text, nested symbols by their own digest.
        Sha256 tokens;
        size_t at = symbols[i].startByte;
        size_t comment =
            size_t(std::lower_bound(x.comments.begin(), x.comments.end(),
                                    std::pair<uint32_t, uint32_t>{symbols[i].startByte, 0}) -
                   x.comments.begin());
        for (size_t c : children[i]) {
            feedText(tokens, src, at, symbols[c].startByte, x.comments, comment);
            tokens.add(kChild);
            tokens.add(records[c].tokens.data(), records[c].tokens.size());
            at = symbols[c].endByte;
        }
        feedText(tokens, src, at, symbols[i].endByte, x.comments, comment);
        r.tokens = tokens.finish();

        symbols[i].hash = toHex(r.hash.data(), 16);
        symbols[i].shapeHash = toHex(r.shape.data(), 16);
        symbols[i].headHash = toHex(r.head.data(), 8);
        symbols[i].tokenHash = toHex(r.tokens.data(), 8);
    }
}

} // namespace engram::syntax::detail
