// Human-readable rendering of engine results for the terminal.
#pragma once
#include "engine/Requests.h"
#include "index/Index.h"

#include <string>

namespace engram::cli {

std::string renderClaimLine(const Claim& c);
std::string renderRecall(const RecallResult& r);
std::string renderGet(const GetResult& r);
std::string renderStatus(const StatusResult& r);
std::string renderRemember(const RememberResult& r);

} // namespace engram::cli
