// engram team, engram sync, engram medulla (cli/Sync.h).
#include "cli/Sync.h"

#include "cli/Args.h"
#include "engine/Engine.h"
#include "engine/GitStores.h"
#include "store/Store.h"
#include "util/Log.h"
#include "util/Time.h"

#include "protocol/Convert.h"
#include <iostream>

namespace engram::cli {

using protocol::json;

namespace {

json toJson(const SyncOutcome& o) {
    json j = {{"store", o.store},         {"reached", o.reached},     {"merge", o.merge},
              {"arrived", o.arrived},     {"committed", o.committed}, {"pushed", o.pushed},
              {"conflicts", o.conflicts}, {"diverged", o.diverged}};
    if (!o.error.empty()) j["error"] = o.error;
    return j;
}

std::string textOf(const SyncOutcome& o) {
    std::string out = o.store + ": ";
    if (!o.committed.empty())
        out += "committed " + std::to_string(o.committed.size()) + " act(s); ";
    if (o.reached) {
        out += o.merge.empty() ? std::string("fetched") : o.merge;
        if (!o.arrived.empty())
            out += ", " + std::to_string(o.arrived.size()) + " claim file(s) arrived";
        for (auto& p : o.pushed)
            out += "; pushed " + p;
    }
    if (!o.error.empty()) out += (o.reached ? "; " : "") + o.error;
    for (auto& c : o.conflicts)
        out += "\n   not merged: " + c;
    for (auto& d : o.diverged)
        out += "\n   diverged (both sides changed it; both versions kept): engram resolve " + d +
               " [--take VERSION]";
    return out + "\n";
}

// The workspace's own tiers read what arrived now, so the audit log
// records the arrivals at the sync (a server's index would find them at
// its next look anyway).
void recordArrivals(const SyncCommand& c) {
    if (c.root.empty() || !statFile(c.root + "/.engram/store.conf")) return;
    try {
        Engine engine({c.root, "sync", c.home, 30, ENGRAM_VERSION});
        engine.refresh();
    } catch (const std::exception& e) {
        std::cerr << "engram: the workspace's index was not refreshed: " << e.what() << "\n";
    }
}

} // namespace

int cmdTeam(const SyncCommand& c) {
    const auto& w = c.words;
    if (w.empty() || (w[0] != "add" && w[0] != "list"))
        throw UsageError("team: say add NAME URL, or list");
    if (w[0] == "add") {
        if (w.size() != 3) throw UsageError("team add: give NAME and URL");
        TeamAdded a = addTeam(c.home, w[1], w[2]);
        Store project(c.root + "/.engram", "project", "");
        bool named = false;
        for (auto& t : project.teams())
            named = named || t == w[1];
        if (c.json) {
            std::cout << json{{"team", "team:" + w[1]}, {"store", a.dir},     {"remote", a.remote},
                              {"created", a.created},   {"claims", a.claims}, {"named", named}}
                             .dump(2)
                      << "\n";
            return 0;
        }
        std::cout << "Added team:" << w[1] << " at " << a.dir << " (a clone of " << a.remote
                  << (a.created ? "; the repository was empty: a new team store was pushed" : "")
                  << "), " << a.claims << " claim file(s).\n";
        if (!named)
            std::cout << "This workspace reads it by default once its .engram/store.conf says "
                         "`teams: "
                      << w[1]
                      << "` (committed, so every clone agrees); until then, recall "
                         "--tier team:"
                      << w[1] << " reads it.\n";
        return 0;
    }
    if (w.size() != 1) throw UsageError("team list: takes no arguments");
    Store project(c.root + "/.engram", "project", "");
    json list = json::array();
    std::string text;
    std::vector<std::string> names = addedTeams(c.home);
    for (auto& t : project.teams())
        if (std::find(names.begin(), names.end(), t) == names.end()) names.push_back(t);
    for (auto& name : names) {
        const std::string dir = teamStoreDir(c.home, name);
        bool added = statFile(dir + "/store.conf").has_value();
        bool named = std::find(project.teams().begin(), project.teams().end(), name) !=
                     project.teams().end();
        SyncRecord r = added ? readSyncRecord(dir) : SyncRecord{};
        json j = {{"team", "team:" + name}, {"added", added}, {"named", named}, {"store", dir}};
        if (added) {
            j["remote"] = r.remote;
            j["last_sync"] = r.lastSync ? json(formatUtc(*r.lastSync)) : json(nullptr);
            j["pending"] = r.pending;
            if (!r.lastError.empty()) j["error"] = r.lastError;
        }
        list.push_back(j);
        text += "team:" + name + (named ? " (this workspace reads it)" : "") + "\n";
        if (!added) {
            text += "   not added on this machine: engram team add " + name + " URL\n";
            continue;
        }
        text +=
            "   " + dir + ", a clone of " + r.remote + "; last sync " + agoText(r.lastSync) + "\n";
        for (auto& p : r.pending)
            text += "   waiting to be pushed: " + p + "\n";
        if (!r.lastError.empty()) text += "   the last sync failed: " + r.lastError + "\n";
    }
    if (c.json)
        std::cout << json{{"teams", list}}.dump(2) << "\n";
    else
        std::cout << (text.empty() ? "No team stores: engram team add NAME URL\n" : text);
    return 0;
}

int cmdSync(const SyncCommand& c) {
    if (c.home.empty()) throw UsageError("sync: no engram home (ENGRAM_HOME or --home)");
    std::vector<std::string> names = c.words;
    if (names.empty()) {
        if (readSyncRecord(c.home + "/medulla").git) names.push_back("medulla");
        for (auto& t : addedTeams(c.home))
            names.push_back(t);
    }
    std::vector<SyncOutcome> outcomes;
    for (auto& n : names) {
        if (n == "medulla") {
            outcomes.push_back(syncStore(c.home + "/medulla", "medulla", true));
            continue;
        }
        std::string team = n.starts_with("team:") ? n.substr(5) : n;
        if (!statFile(teamStoreDir(c.home, team) + "/store.conf"))
            throw UsageError("sync: no team store '" + team +
                             "' on this machine (engram team list names them)");
        outcomes.push_back(syncStore(teamStoreDir(c.home, team), "team:" + team, false));
    }
    bool failed = false;
    for (auto& o : outcomes)
        failed = failed || !o.error.empty() || !o.diverged.empty();
    recordArrivals(c);
    if (c.json) {
        json list = json::array();
        for (auto& o : outcomes)
            list.push_back(toJson(o));
        std::cout << json{{"stores", list}}.dump(2) << "\n";
    } else if (outcomes.empty()) {
        std::cout << "Nothing to sync: no team store is added and the medulla has no remote "
                     "(engram team add NAME URL, engram medulla remote URL).\n";
    } else {
        for (auto& o : outcomes)
            std::cout << textOf(o);
    }
    return failed ? 1 : 0;
}

int cmdMedulla(const SyncCommand& c) {
    const auto& w = c.words;
    if (w.size() != 2 || w[0] != "remote") throw UsageError("medulla: say remote URL");
    SyncOutcome o = medullaRemote(c.home, w[1]);
    if (c.json)
        std::cout << toJson(o).dump(2) << "\n";
    else
        std::cout << "The medulla at " << c.home << "/medulla is now a clone of "
                  << redactRemote(w[1]) << ".\n"
                  << textOf(o);
    return o.error.empty() ? 0 : 1;
}

} // namespace engram::cli
