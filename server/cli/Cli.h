// The `engram` command line: every operation as a subcommand, human output by
// default and `--json` for machines. Exit codes: 0 ok, 1 findings or a
// refusal, 2 usage or configuration error.
#pragma once

namespace engram::cli {

int run(int argc, char** argv);

} // namespace engram::cli
