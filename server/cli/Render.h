// Human-readable rendering of engine results for the terminal.
#pragma once
#include "engine/Requests.h"
#include "index/Index.h"
#include "protocol/JsonRpc.h"

#include <string>

namespace engram::cli {

std::string renderClaimLine(const Claim& c);
std::string renderRecall(const RecallResult& r);
std::string renderGet(const GetResult& r);
std::string renderStatus(const StatusResult& r);
std::string renderRemember(const RememberResult& r);
std::string renderPromote(const PromoteResult& r);
// A delegation packet (its JSON form, which carries packet_id and signature).
std::string renderPacket(const protocol::json& packet);
std::string renderContribute(const ContributeResult& r);
std::string renderReview(const ReviewResult& r);
std::string renderVerifyPacket(const VerifyPacketResult& r);

} // namespace engram::cli
