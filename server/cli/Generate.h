// What the command line accepts, as one table, and what is generated from
// it: the shell completions and the man page. `engram --help`, the parser
// and these read the same table (the operations' own flags included), so a
// command or flag cannot be in one and missing from another.
#pragma once
#include "cli/Args.h"

#include <map>
#include <string>

namespace engram::cli {

struct CommandTable {
    FlagSpec global;
    std::map<std::string, FlagSpec> commands;
};

// Every command and its flags: engram's own (serve, mcp, check...) and each
// operation's (ops::Operation::cli).
CommandTable commandTable();

// A completion script for `shell` (bash, zsh or fish); UsageError for
// another shell.
std::string completionScript(const std::string& shell, const CommandTable& table);

// The man page (roff, section 1): `usage` (engram --help) is its body.
std::string manPage(const std::string& usage, const std::string& version);

} // namespace engram::cli
