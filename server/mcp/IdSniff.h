// The MCP server's name for the request-id sniffer, which lives with the
// JSON-RPC front end both servers share (protocol/IdSniff.h).
#pragma once
#include "protocol/IdSniff.h"

namespace engram::mcp {

using protocol::sniffRequestId;

} // namespace engram::mcp
