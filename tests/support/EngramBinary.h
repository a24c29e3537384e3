// Which engram binary the end-to-end tests spawn: the one built beside them
// unless `--engram-binary PATH` named another (support/CatchMain.cpp), and
// how densely the fault tests probe it.
#pragma once
#include <string>

namespace engram::test {

// Empty when the command line named none.
std::string& engramBinaryOverride();

// `--fault-stride K`: the fault-injection tests try every K-th call position
// (default 1, every one). The sanitized run takes a stride of 3.
int& faultStride();

} // namespace engram::test
