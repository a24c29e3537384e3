// The JSON form of packets, their identity and signature, and the
// contribution and review messages (see Packet.h).
#include "protocol/Packet.h"

#include "protocol/Convert.h"
#include "util/Hash.h"
#include "util/Time.h"

#include <sodium.h>

namespace engram::protocol {

namespace {

json orUnknown(const std::string& s) {
    return s.empty() ? json("unknown") : json(s);
}

json nullIfEmpty(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

// Parallel to an item's anchors: where each one's code is now, or null.
json currentList(const std::vector<AnchorPlace>& places) {
    json out = json::array();
    for (auto& p : places)
        out.push_back(currentJson(p));
    return out;
}

json toJson(const PacketItem& it) {
    json j = {{"id", it.id},
              {"version", it.version},
              {"label", nullIfEmpty(it.label)},
              {"text", it.text},
              {"kind", orUnknown(it.kind)},
              {"tier", it.tier},
              {"origin", orUnknown(it.origin)},
              {"source_agent", orUnknown(it.sourceAgent)},
              {"created", it.created ? json(formatUtc(*it.created)) : json("unknown")},
              {"age_days", it.ageDays ? json(*it.ageDays) : json("unknown")},
              {"stale", it.stale ? json(*it.stale) : json("unknown")},
              {"anchor_state", it.anchorState},
              {"anchors", it.anchors},
              {"current", currentList(it.places)},
              {"confidence", it.confidence ? json(*it.confidence) : json("unknown")},
              {"score", it.score},
              {"why", it.why},
              {"provenance", it.provenance}};
    if (it.unverified) j["unverified"] = true;
    if (!it.nearDuplicates.empty()) j["near_duplicates"] = it.nearDuplicates;
    if (!it.contributionId.empty()) {
        j["contribution_id"] = it.contributionId;
        j["contributed_by"] = orUnknown(it.contributedBy);
        j["accepted_by"] = orUnknown(it.acceptedBy);
    }
    return j;
}

// Canonical bytes: nlohmann's objects keep their keys sorted, dump() without
// an indent has no white space, and strings are written as UTF-8.
std::string canonical(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool isHex(const std::string& s, size_t n) {
    if (s.size() != n) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::vector<unsigned char> fromHex(const std::string& hex) {
    std::vector<unsigned char> out(hex.size() / 2);
    size_t len = 0;
    sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &len, nullptr);
    out.resize(len);
    return out;
}

std::string str(const json& j, const char* key) {
    if (!j.is_object()) return "";
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

json packetContent(const Packet& p) {
    json items = json::array();
    for (auto& it : p.items)
        items.push_back(toJson(it));
    json gaps = json::object();
    for (auto& g : p.honestGaps)
        gaps[g.reason] = {{"count", g.count}, {"ids", g.ids}};
    json git = nullptr;
    if (p.binding.git)
        git = {{"head", nullIfEmpty(p.binding.head)},
               {"branch", nullIfEmpty(p.binding.branch)},
               {"dirty", p.binding.dirty ? json(*p.binding.dirty) : json("unknown")}};
    json out = {{"schema", p.schema},
                {"request",
                 {{"task", p.request.task},
                  {"agent", p.request.agent},
                  {"paths", p.request.paths},
                  {"symbols", p.request.symbols}}},
                {"binding",
                 {{"root", p.binding.root}, {"fingerprint", p.binding.fingerprint}, {"git", git}}},
                {"as_of", p.asOf},
                {"stale_days", p.staleDays},
                {"items", std::move(items)},
                {"honest_gaps", std::move(gaps)},
                {"limits", {{"max_items", p.maxItems}, {"max_chars", p.maxChars}}},
                {"metrics",
                 {{"candidates", p.metrics.candidates},
                  {"eligible", p.metrics.eligible},
                  {"included", p.metrics.included},
                  {"below_floor", p.metrics.belowFloor},
                  {"chars", p.metrics.chars},
                  {"budget_exhausted", p.metrics.budgetExhausted},
                  {"why", p.metrics.budgetWhy}}},
                {"non_claims", p.nonClaims},
                {"instructions", p.instructions}};
    if (!p.instructionFiles.empty()) {
        json paragraphs = json::array();
        for (auto& h : p.instructionFiles)
            paragraphs.push_back(toJson(h));
        out["instruction_files"] = std::move(paragraphs);
    }
    return out;
}

std::string packetId(const json& packet) {
    json content = packet;
    if (content.is_object()) {
        content.erase("packet_id");
        content.erase("created_at");
        content.erase("signature");
    }
    return sha256Hex(canonical(content));
}

std::string signedMessage(const std::string& id, const std::string& createdAt) {
    return "engram-packet-v1\n" + id + "\n" + createdAt;
}

json packetJson(const PacketMachine& machine, const Packet& p, bool sign) {
    json packet = packetContent(p);
    std::string id = packetId(packet);
    std::string created = formatUtc(p.createdAt);
    packet["packet_id"] = id;
    packet["created_at"] = created;
    if (sign) {
        PacketSignature s = machine.sign(signedMessage(id, created));
        packet["signature"] = {{"algorithm", s.algorithm},
                               {"public_key", s.publicKey},
                               {"value", s.value},
                               {"signs", "engram-packet-v1\\n<packet_id>\\n<created_at>"}};
    }
    return packet;
}

VerifyPacketResult verifyPacket(const PacketMachine& machine, const VerifyPacketRequest& req) {
    VerifyPacketResult out;
    const json* pp = &req.packet;
    // A whole delegate answer is accepted too: its packet is what is checked.
    if (pp->is_object() && !pp->contains("schema") && pp->contains("packet")) pp = &(*pp)["packet"];
    const json& p = *pp;
    auto fail = [&](std::string reason) { out.reasons.push_back(std::move(reason)); };
    if (!p.is_object()) {
        fail("packet: expected an object");
        return out;
    }

    if (str(p, "schema") != kPacketSchema)
        fail(std::string("schema: expected '") + kPacketSchema + "'");

    // The hash: recomputed over the content, whatever the packet claims.
    out.packetId = packetId(p);
    std::string claimed = str(p, "packet_id");
    if (claimed.empty())
        fail("packet_id: missing");
    else if (claimed != out.packetId)
        fail("packet_id: does not match the packet's content (recomputed " + out.packetId +
             "): a field was changed after the packet was composed");

    // The signature, when there is one.
    std::string created = str(p, "created_at");
    if (auto it = p.find("signature"); it != p.end() && !it->is_null()) {
        const json& s = *it;
        std::string alg = str(s, "algorithm"), pub = str(s, "public_key"), sig = str(s, "value");
        if (!s.is_object())
            fail("signature: expected an object");
        else if (alg != "ed25519")
            fail("signature.algorithm: expected 'ed25519'");
        else if (!isHex(pub, 2 * crypto_sign_PUBLICKEYBYTES))
            fail("signature.public_key: expected " +
                 std::to_string(2 * crypto_sign_PUBLICKEYBYTES) + " lower-case hex digits");
        else if (!isHex(sig, 2 * crypto_sign_BYTES))
            fail("signature.value: expected " + std::to_string(2 * crypto_sign_BYTES) +
                 " lower-case hex digits");
        else {
            auto pk = fromHex(pub), sg = fromHex(sig);
            std::string msg = signedMessage(claimed, created);
            if (crypto_sign_verify_detached(sg.data(),
                                            reinterpret_cast<const unsigned char*>(msg.data()),
                                            msg.size(), pk.data()) != 0)
                fail("signature.value: does not verify against signature.public_key for this "
                     "packet_id and created_at (one of them was changed, or another key signed)");
            auto mine = machine.publicKey();
            out.signedByThisMachine = mine && *mine == pub;
            if (!*out.signedByThisMachine)
                fail("signature.public_key: " + pub.substr(0, 16) +
                     "... is not this machine's packet key" +
                     (mine ? " (" + mine->substr(0, 16) + "...)" : " (this machine has none)"));
        }
    }

    // The binding: the same workspace, at the same commit.
    const json* binding = p.contains("binding") ? &p["binding"] : nullptr;
    if (!binding || !binding->is_object()) {
        fail("binding: missing");
    } else {
        PacketBinding now = machine.binding();
        std::string root = str(*binding, "root");
        if (root != now.root)
            fail("binding.root: the packet was composed for '" + root + "', this engram serves '" +
                 now.root + "'");
        if (str(*binding, "fingerprint") != now.fingerprint)
            fail("binding.fingerprint: '" + str(*binding, "fingerprint") +
                 "' is not this root's fingerprint '" + now.fingerprint + "'");
        auto git = binding->find("git");
        if (git != binding->end() && git->is_object()) {
            std::string head = str(*git, "head");
            if (!now.git)
                fail("binding.git: the packet was composed in a git work tree; " + now.root +
                     " is no longer one");
            else if (head != now.head)
                fail("binding.git.head: the packet was composed at " +
                     (head.empty() ? std::string("an unborn HEAD") : head) + ", HEAD is now " +
                     (now.head.empty() ? std::string("unborn") : now.head));
        }
    }

    // The age, against the lifetime.
    auto when = parseUtc(created);
    if (created.empty() || !when || created.size() != 20) {
        fail("created_at: missing or not a UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)");
    } else {
        int64_t age = nowUnix() - *when;
        out.ageSeconds = age;
        if (age < -300)
            fail("created_at: " + created + " is in the future");
        else if (age > req.lifetimeSeconds)
            fail("created_at: the packet is " + humanAge(age) + " old (" + std::to_string(age) +
                 " s), past its lifetime of " + std::to_string(req.lifetimeSeconds) + " s");
    }
    out.valid = out.reasons.empty();
    return out;
}

} // namespace engram::protocol
