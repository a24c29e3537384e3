// `engram setup AGENT`: engram wired into an agent's own configuration (the
// MCP server and the session-start and prompt hooks), at project scope (files
// in the workspace, committed for the team) or user scope (files in $HOME).
//
// Each agent is a recipe of entries in JSON files. Applying one merges
// engram's entries into what the file holds and touches nothing else;
// applying it again changes nothing; --remove takes out exactly engram's
// entries (a file left holding nothing is removed). A file engram cannot
// edit faithfully (not JSON, or JSON with comments, which a rewrite would
// lose) is refused with the reason and left as it was.
#pragma once
#include <string>
#include <vector>

namespace engram::cli {

struct SetupRequest {
    std::string agent;             // empty with list
    std::string scope = "project"; // project | user
    std::string root, home;        // the workspace root; $HOME
    bool list = false, check = false, dryRun = false, remove = false;
};

// What was done or found, for a person; exit 0 (done, or wired), 1 (a
// check found it missing, or a file was refused), 2 (a usage error).
struct SetupResult {
    int exitCode = 0;
    std::string text;
};

SetupResult runSetup(const SetupRequest& req);

// For doctor: per agent whose user configuration exists on this machine,
// one line saying whether engram is wired and where.
std::vector<std::pair<std::string, std::string>> agentsWired(const std::string& root,
                                                             const std::string& home);

} // namespace engram::cli
