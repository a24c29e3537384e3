// The Catch2 runner shared by every test binary, with one option of ours:
// `--engram-binary PATH` runs the end-to-end tests against another build of
// engram (the sanitized one, see scripts/test.sh) without compiling them twice.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/EngramBinary.h"

namespace engram::test {

std::string& engramBinaryOverride() {
    static std::string path;
    return path;
}

int& faultStride() {
    static int k = 1;
    return k;
}

} // namespace engram::test

int main(int argc, char* argv[]) {
    Catch::Session session;
    auto cli = session.cli() |
               Catch::clara::Opt(engram::test::engramBinaryOverride(), "path")["--engram-binary"](
                   "the engram binary the end-to-end tests run") |
               Catch::clara::Opt(engram::test::faultStride(), "k")["--fault-stride"](
                   "try every k-th call position in the fault tests");
    session.cli(cli);
    if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
    if (engram::test::faultStride() < 1) engram::test::faultStride() = 1;
    return session.run();
}
