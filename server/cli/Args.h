// Command-line parsing: global flags, a command, its flags and positionals.
//
// Flags are declared per command so an unknown or misspelt flag is a usage
// error naming it (exit 2) rather than being read as text.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace engram::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct FlagSpec {
    std::set<std::string> valued;   // --flag VALUE (or --flag=VALUE)
    std::set<std::string> repeated; // valued flags that may repeat
    std::set<std::string> boolean;  // --flag
};

struct Args {
    std::string command;
    std::map<std::string, std::vector<std::string>> values;
    std::set<std::string> switches;
    std::vector<std::string> positionals;

    std::optional<std::string> get(const std::string& flag) const;
    std::vector<std::string> all(const std::string& flag) const;
    bool has(const std::string& flag) const { return switches.count(flag) > 0; }
};

// Global flags may come before or after the command.
Args parseArgs(int argc, char** argv, const std::map<std::string, FlagSpec>& commands,
               const FlagSpec& global);

} // namespace engram::cli
