// The operations that live in a file of their own (server/ops/op/): each
// file holds an operation's parameters and result (declared once as wire
// shapes, protocol/Shape.h), its run, its text for a model and for a
// terminal, and its table entry. ops/Operations.cpp lists them in order.
#pragma once
#include "ops/Operation.h"

namespace engram::ops {

// Command-line pieces several operations share.
inline const Positional kIdWord{"id", "ID"};
inline const Flag kAgentFlag{"--agent", "agent"};

Operation getOperation();
Operation reverifyOperation();
Operation reverifyFileOperation();
Operation retractOperation();
Operation learnOperation();
Operation resolveOperation();
Operation reportOperation();

} // namespace engram::ops
