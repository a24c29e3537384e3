// Delegation packets, contributions and review on the wire (README, "Delegation").
//
// The engine composes a packet as a plain struct; this layer gives it its
// JSON form and its identity: `packet_id` is the lower-case hex SHA-256 of
// the canonical JSON (keys sorted, no white space, UTF-8) of every field but
// packet_id, created_at and signature. The optional signature is Ed25519 by
// this machine's packet key over "engram-packet-v1\n<packet_id>\n<created_at>":
// the id covers the content and created_at is covered too, so a signed
// packet's lifetime cannot be stretched by editing its date.
//
// The delegate and verify_packet operations (ops/op/) call these.
#pragma once
#include "model/Requests.h"
#include "protocol/JsonRpc.h"

#include <functional>
#include <optional>
#include <string>

namespace engram::protocol {

inline constexpr const char* kPacketSchema = "engram.packet/1";
inline constexpr int64_t kDefaultPacketLifetime = 24 * 3600;

// The packet as JSON, without packet_id, created_at and signature.
json packetContent(const Packet& p);
// SHA-256 hex of the canonical JSON of `packet` minus packet_id, created_at
// and signature.
std::string packetId(const json& packet);
// What the signature signs.
std::string signedMessage(const std::string& packetId, const std::string& createdAt);
// What this machine says about a packet, asked only when needed (the
// engine answers; ops/op/ passes it in, so the wire does not depend on the
// engine): a signature with its packet key, that key, and the binding now.
struct PacketMachine {
    std::function<PacketSignature(const std::string& message)> sign;
    std::function<std::optional<std::string>()> publicKey; // none: no key yet
    std::function<PacketBinding()> binding;
};

// A composed packet's JSON, identified (packet_id, created_at) and, when
// asked, signed with this machine's key.
json packetJson(const PacketMachine& machine, const Packet& packet, bool sign);

struct VerifyPacketRequest {
    json packet; // the packet, or a whole delegate answer holding one
    int64_t lifetimeSeconds = kDefaultPacketLifetime;
};
// Recomputes the hash, checks the signature (against its public key, and
// says whether that is this machine's key: a foreign key fails), the binding
// (root, fingerprint, git HEAD) and the age. Never throws on a bad packet:
// each problem is a reason.
VerifyPacketResult verifyPacket(const PacketMachine& machine, const VerifyPacketRequest& req);

} // namespace engram::protocol
