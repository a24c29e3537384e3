// libFuzzer targets for every parser that reads bytes someone else wrote:
// the LSP framing, each operation's parameters, the MCP line channel, claim
// files, the secret scanner, each grammar's symbol extraction, the merge
// driver, the conflicted-file reader, store.conf and the contradiction rules
// (over two claim texts).
//
// One binary holds them all; ENGRAM_FUZZ_TARGET picks one (scripts/fuzz.sh
// sets it, with the target's seeds from fixtures/fuzz/<target>/). Beyond
// "does not crash under ASan and UBSan", each target checks a property the
// code promises, so a wrong answer is a finding too (abort()).
#include "engine/Engine.h"
#include "engine/Modality.h"
#include "mcp/IdSniff.h"
#include "mcp/LineChannel.h"
#include "ops/Operation.h"
#include "protocol/Framing.h"
#include "secrets/SecretScan.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/StoreConfig.h"
#include "syntax/Symbols.h"
#include "util/Error.h"

#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>

using namespace engram;
using json = nlohmann::json;

namespace {

[[noreturn]] void broken(const char* what) {
    std::fprintf(stderr, "property broken: %s\n", what);
    std::abort();
}
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) broken(#cond);                                                                \
    } while (0)

// ---- LSP framing -------------------------------------------------------------
// The decoder is a state machine over a byte stream: how the stream is cut
// into reads must not change what it decodes.
void framing(std::string_view data) {
    if (data.empty()) return;
    size_t step = size_t(uint8_t(data[0])) % 61 + 1;
    data.remove_prefix(1);
    std::vector<protocol::FrameEvent> whole, pieces;
    protocol::FrameDecoder a, b;
    a.feed(data, whole);
    for (size_t i = 0; i < data.size(); i += step)
        b.feed(data.substr(i, step), pieces);
    EXPECT(whole.size() == pieces.size());
    for (size_t i = 0; i < whole.size(); ++i) {
        EXPECT(whole[i].kind == pieces[i].kind);
        EXPECT(whole[i].text == pieces[i].text);
        if (whole[i].kind == protocol::FrameEvent::Message)
            EXPECT(whole[i].text.size() <= protocol::kMaxFrameBytes);
    }
    EXPECT(a.buffered() == b.buffered());
    // A decoded body re-encodes to a frame that decodes to itself.
    for (const auto& ev : whole) {
        if (ev.kind != protocol::FrameEvent::Message) continue;
        std::vector<protocol::FrameEvent> again;
        protocol::FrameDecoder c;
        c.feed(protocol::encodeFrame(ev.text), again);
        EXPECT(again.size() == 1 && again[0].text == ev.text);
    }
}

// ---- each operation's parameters ---------------------------------------------
// The first byte picks the operation; the rest is the params JSON. Parsing
// comes before the engine is bound, so a bind that throws marks "parsed";
// any exception but an EngramError (an InvalidParams naming the field)
// would reach the client as an internal error.
struct Bound {};
void operationParams(std::string_view data) {
    if (data.empty()) return;
    const auto& ops = ops::operations();
    const ops::Operation& op = ops[uint8_t(data[0]) % ops.size()];
    json params = json::parse(data.substr(1), nullptr, false);
    if (params.is_discarded()) return;
    ops::Call call;
    call.bind = []() -> Engine& { throw Bound{}; };
    call.defaultAgent = "fuzz";
    try {
        op.run(call, params);
    } catch (const Bound&) {
    } catch (const EngramError& e) {
        EXPECT(e.kind == ErrorKind::InvalidParams);
        EXPECT(std::strlen(e.what()) > 0);
    }
}

// ---- the MCP line channel ------------------------------------------------------
// The channel hands on exactly the input's lines: each non-blank line within
// the limit (without its "\r"), each longer one as Oversized with its length
// and a head and tail cut from it, in order, whatever the input.
void mcpLines(std::string_view data) {
    constexpr size_t kMax = 256;
    if (data.size() > 60000) return; // the pipe buffer holds it all
    int p[2];
    if (::pipe(p) != 0) std::abort();
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(p[1], data.data() + off, data.size() - off);
        if (n <= 0) std::abort();
        off += size_t(n);
    }
    ::close(p[1]);
    int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    std::deque<mcp::LineEvent> events;
    {
        mcp::LineChannel ch(p[0], out, kMax);
        while (!ch.inputClosed())
            ch.pump(std::chrono::milliseconds(100), events);
    }
    ::close(p[0]);
    ::close(out);
    size_t next = 0, pos = 0;
    while (pos < data.size()) {
        size_t nl = data.find('\n', pos);
        if (nl == std::string_view::npos) nl = data.size();
        std::string_view line = data.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.size() > kMax) {
            EXPECT(next < events.size());
            const auto& ev = events[next++];
            EXPECT(ev.kind == mcp::LineEvent::Oversized && ev.bytes == line.size());
            EXPECT(line.substr(0, ev.text.size()) == ev.text);
            EXPECT(ev.tail.size() <= line.size() &&
                   line.substr(line.size() - ev.tail.size()) == ev.tail);
            auto id = mcp::sniffRequestId(ev.text, ev.tail);
            if (id) EXPECT(id->is_string() || id->is_number_integer());
            continue;
        }
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        EXPECT(next < events.size());
        const auto& ev = events[next++];
        EXPECT(ev.kind == mcp::LineEvent::Line && ev.text == line);
        (void)json::parse(ev.text, nullptr, false);
    }
    EXPECT(next == events.size());
}

// ---- claim files ------------------------------------------------------------------
// What parses serialises to a file that parses to the same claim.
void claimFile(std::string_view data) {
    Claim c;
    try {
        c = parseClaim(data, "c-fuzz");
    } catch (const ClaimFileError&) {
        return;
    }
    std::string once = serializeClaim(c);
    Claim again;
    try {
        again = parseClaim(once, "c-fuzz");
    } catch (const ClaimFileError& e) {
        std::fprintf(stderr, "re-parse: %s\n--- serialized ---\n%s\n---\n", e.what(), once.c_str());
        broken("a parsed claim serialises to a file that parses");
    }
    EXPECT(serializeClaim(again) == once);
}

// ---- the secret scanner --------------------------------------------------------------
void secretScan(std::string_view data) {
    std::vector<secrets::Hit> hits;
    try {
        hits = secrets::scan(data);
    } catch (const secrets::ScanFailure&) {
        return;
    }
    size_t prev = 0;
    for (const auto& h : hits) {
        EXPECT(h.begin < h.end && h.end <= data.size());
        EXPECT(h.begin >= prev);
        prev = h.begin;
        EXPECT(!h.rule.empty() && !h.description.empty());
    }
    std::string red = secrets::redact(data, hits);
    if (!hits.empty()) EXPECT(red.find("[REDACTED:") != std::string::npos);
}

// ---- symbol extraction -----------------------------------------------------------------
bool sameSymbols(const std::vector<syntax::Symbol>& a, const std::vector<syntax::Symbol>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto &x = a[i], &y = b[i];
        if (x.qualified != y.qualified || x.kind != y.kind || x.startByte != y.startByte ||
            x.endByte != y.endByte || x.hash != y.hash || x.tokenHash != y.tokenHash ||
            x.ordinal != y.ordinal)
            return false;
    }
    return true;
}

// Every symbol lies inside the text and is found by its written name; an
// edit to an open document gives the symbols a fresh parse gives. A
// document's first extraction is extractSymbols' parse and walk (a unit
// test holds them equal): the text is parsed once for both, not twice.
void symbols(const std::string& language, std::string_view data) {
    FuzzedDataProvider in(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    uint32_t at = in.ConsumeIntegral<uint16_t>();
    uint32_t cut = in.ConsumeIntegral<uint8_t>();
    std::string insert = in.ConsumeRandomLengthString(64);
    std::string text = in.ConsumeRemainingBytesAsString();
    syntax::Document doc(language, text);
    const auto& syms = doc.symbols(); // read before the edit below changes them
    for (size_t i = 0; i < syms.size(); ++i) {
        const auto& s = syms[i];
        if (!(s.startByte <= s.endByte && s.endByte <= text.size()))
            std::fprintf(stderr, "%s %s [%u, %u) in %zu bytes\n", s.kind.c_str(),
                         s.qualified.c_str(), s.startByte, s.endByte, text.size());
        EXPECT(s.startByte <= s.endByte && s.endByte <= text.size());
        EXPECT(s.startLine <= s.endLine);
        EXPECT(s.hash.size() == 32 && s.tokenHash.size() == 16);
        if (!s.qualified.empty()) {
            auto found = syntax::resolveSymbol(syms, syntax::writtenName(s));
            EXPECT(std::find(found.begin(), found.end(), i) != found.end());
        }
    }
    at = text.empty() ? 0 : at % uint32_t(text.size() + 1);
    doc.edit(at, at + cut, insert);
    EXPECT(sameSymbols(doc.symbols(), doc.walkAfresh()));
}

// ---- the merge driver and conflicted files -------------------------------------------------
// The merge is symmetric and its output parses; a refusal is a ClaimFileError.
void merge(std::string_view data) {
    FuzzedDataProvider in(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    std::string base = in.ConsumeRandomLengthString(4096);
    std::string ours = in.ConsumeRandomLengthString(4096);
    std::string theirs = in.ConsumeRemainingBytesAsString();
    std::string a, b;
    try {
        a = mergeClaimFiles(base, ours, theirs, "c-fuzz");
    } catch (const ClaimFileError&) {
        return;
    }
    b = mergeClaimFiles(base, theirs, ours, "c-fuzz");
    EXPECT(a == b);
    // Where a side is unchanged, git's answer is the other side as it is.
    if (ours != theirs && ours != base && theirs != base) (void)parseClaim(a, "c-fuzz");
}

void conflicted(std::string_view data) {
    std::optional<ConflictSides> sides;
    try {
        sides = splitConflict(data);
    } catch (const ClaimFileError&) {
        return;
    }
    if (!sides) return;
    EXPECT(sides->firstLine >= 1);
    EXPECT(sides->ours.size() <= data.size() && sides->theirs.size() <= data.size());
}

// ---- store.conf
// ----------------------------------------------------------------------------------
void storeConfig(std::string_view data) {
    StoreConfig c = parseStoreConfig(data);
    for (const auto& e : c.errors)
        EXPECT(e.rfind("store.conf", 0) == 0);
    for (const auto& [ext, lang] : c.languageMap)
        EXPECT(ext.size() >= 2 && ext[0] == '.');
    if (c.name) EXPECT(!c.name->empty());
}

// ---- contradiction rules ---------------------------------------------------------------
// Two claim texts, cut at the first tab. Contradiction is symmetric: each
// rule finds one in a against b exactly when it finds one in b against a,
// and contradicts() names a rule that did.
void contradictions(std::string_view data) {
    size_t tab = data.find('\t');
    std::string_view a = data.substr(0, tab);
    std::string_view b = tab == std::string_view::npos ? std::string_view{} : data.substr(tab + 1);
    std::vector<std::string_view> fired;
    for (const auto& r : contradictionRules()) {
        bool ab = r.test(a, b).has_value();
        EXPECT(ab == r.test(b, a).has_value());
        if (ab) fired.push_back(r.name);
    }
    auto m = contradicts(a, b);
    EXPECT(m.has_value() == !fired.empty());
    if (m) EXPECT(std::find(fired.begin(), fired.end(), m->rule) != fired.end());
}

using Target = std::function<void(std::string_view)>;

std::map<std::string, Target> targets() {
    std::map<std::string, Target> t = {
        {"framing", framing},
        {"operation-params", operationParams},
        {"mcp-lines", mcpLines},
        {"claim-file", claimFile},
        {"secret-scan", secretScan},
        {"merge", merge},
        {"conflicted", conflicted},
        {"store-conf", storeConfig},
        {"contradictions", contradictions},
    };
    for (const char* lang :
         {"python", "javascript", "typescript", "tsx", "c", "cpp", "go", "rust", "java"})
        t["symbols-" + std::string(lang)] = [l = std::string(lang)](std::string_view d) {
            symbols(l, d);
        };
    return t;
}

Target chosen;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    auto all = targets();
    const char* name = std::getenv("ENGRAM_FUZZ_TARGET");
    if (name && std::string_view(name) == "list") {
        for (const auto& [n, _] : all)
            std::printf("%s\n", n.c_str());
        std::exit(0);
    }
    if (name && std::string_view(name) == "operations") { // operation-params' first byte
        for (const auto& op : ops::operations())
            std::printf("%s\n", op.name);
        std::exit(0);
    }
    auto it = name ? all.find(name) : all.end();
    if (it == all.end()) {
        std::fprintf(stderr, "set ENGRAM_FUZZ_TARGET to one of:");
        for (const auto& [n, _] : all)
            std::fprintf(stderr, " %s", n.c_str());
        std::fprintf(stderr, "\n");
        std::exit(2);
    }
    chosen = it->second;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    chosen(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
