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

} // namespace engram::test

int main(int argc, char* argv[]) {
    Catch::Session session;
    auto cli = session.cli() |
               Catch::clara::Opt(engram::test::engramBinaryOverride(), "path")["--engram-binary"](
                   "the engram binary the end-to-end tests run");
    session.cli(cli);
    if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
    return session.run();
}
