// The command line's text for operation results: what a person at a shell
// reads (short lines, ages and states), where ops/Render writes for a model.
// These read the typed results; the operations (ops/Operations.cpp) call
// them only when the CLI asks for text.
#pragma once
#include "index/Index.h"
#include "model/Requests.h"
#include "protocol/JsonRpc.h"

#include <string>

namespace engram::ops::terminal {

std::string claimLine(const Claim& c);
std::string recall(const RecallResult& r);
std::string get(const GetResult& r);
std::string status(const StatusResult& r);
std::string remember(const RememberResult& r);
std::string promote(const PromoteResult& r);
// `verdict` as given: the result carries the counts, not the verdict.
// A delegation packet (its JSON form, which carries packet_id and signature).
std::string packet(const protocol::json& packet);
std::string contribute(const ContributeResult& r);
std::string verifyPacket(const VerifyPacketResult& r);

} // namespace engram::ops::terminal
