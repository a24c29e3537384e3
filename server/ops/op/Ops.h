// The operations that live in a file of their own (server/ops/op/): each
// file holds, in a namespace named after the operation, its parameters and
// result (wire shapes declared once, protocol/Shape.h), its run, its text
// for a model and for a terminal, and its entry, operation().
// ops/Operations.cpp lists them in order.
#pragma once
#include "ops/Operation.h"
#include "ops/Schemas.h"
#include "ops/Terminal.h"
#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "protocol/Shape.h"

namespace engram::ops {

// Command-line pieces several operations share.
inline const Positional kIdWord{"id", "ID"};
inline const Flag kAgentFlag{"--agent", "agent"};
// --anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH, as an anchor.
json anchorFlag(const std::string& value);
// --evidence TYPE:VALUE, as evidence.
json evidenceFlag(const std::string& value);
// contribute [FILE|-]: an array of items, or {"items": [...], ...}.
void contributeInput(json& params, const std::vector<std::string>& words);
// verify-packet FILE|-: a packet, or a whole delegate answer.
void verifyPacketInput(json& params, const std::vector<std::string>& words);

// The fields several operations' parameters share.
template <class T>
constexpr auto idField(std::string T::*member) {
    return protocol::field("id", member, schema::kIdDoc, protocol::Filled::ByCaller,
                           schema::kIdPattern);
}
template <class T>
constexpr auto agentField(std::string T::*member) {
    return protocol::field("agent", member, schema::kAgentDoc, protocol::Filled::BySurface);
}

// The answer of get, reverify and resolve: the claim with its history, and
// for a terminal `lead` and the claim.
Outcome claimAnswer(const Call& call, const GetResult& r, const std::string& lead);

namespace status {
Operation operation();
// The status answer's JSON, and the confusion series' (engram/status over
// the LSP answers per folder with the same shape).
json toJson(const StatusResult& r);
json toJson(const std::vector<ConfusionWeek>& weeks);
} // namespace status
namespace anchors {
Operation operation();
}
namespace check {
Operation operation();
}
namespace contribute {
Operation operation();
// Its parameters as the engine takes them, and its answer's JSON (for tests).
ContributeRequest parse(const json& params);
json toJson(const ContributeResult& r);
} // namespace contribute
namespace delegate {
Operation operation();
// Its parameters as the engine takes them (for tests).
DelegateRequest parse(const json& params);
// What the engine says of this machine to a packet's identity: its key and
// its binding (protocol/Packet.h), for delegate and verify_packet.
protocol::PacketMachine machine(Engine& engine);
} // namespace delegate
namespace reindex {
Operation operation();
}
namespace verify_packet {
Operation operation();
}
namespace get {
Operation operation();
}
namespace inbox {
Operation operation();
}
namespace learn {
Operation operation();
}
namespace promote {
Operation operation();
}
namespace review {
Operation operation();
}
namespace recall {
Operation operation();
// Its parameters as the engine takes them, and its answer's JSON (for tests
// and for engram hook, which prints the same rows).
RecallRequest parse(const json& params);
json toJson(const RecallRow& row);
json toJson(const RecallResult& r);
} // namespace recall
namespace remember {
Operation operation();
// Its parameters as the engine takes them (tests read the parse).
RememberRequest parse(const json& params);
} // namespace remember
namespace report {
Operation operation();
}
namespace resolve {
Operation operation();
}
namespace retract {
Operation operation();
}
namespace reverify {
Operation operation();
}
namespace reverify_file {
Operation operation();
}

} // namespace engram::ops
