// The commands that move memory between machines through git (README,
// "Memory across machines and teams"): `engram team add|list`, `engram
// sync`, `engram medulla remote`. The engine's side is engine/GitStores.h;
// these parse the words, print, and give the exit code (0 done, 1 a store
// could not be synced, 2 a usage error).
#pragma once
#include <string>
#include <vector>

namespace engram::cli {

struct SyncCommand {
    std::string root; // the workspace (whose store.conf names its teams)
    std::string home; // $ENGRAM_HOME
    std::vector<std::string> words;
    bool json = false;
};

int cmdTeam(const SyncCommand& c);
int cmdSync(const SyncCommand& c);
int cmdMedulla(const SyncCommand& c);

} // namespace engram::cli
