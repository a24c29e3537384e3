// Which engram binary the end-to-end tests spawn: the one built beside them
// unless `--engram-binary PATH` named another (support/CatchMain.cpp).
#pragma once
#include <string>

namespace engram::test {

// Empty when the command line named none.
std::string& engramBinaryOverride();

} // namespace engram::test
