// Team memory through git (ARCHITECTURE.md, "Team memory"): the merge driver's registration,
// resolving a claim a merge left diverged or unmerged, and what changed
// since a ref for pull-request checks.
#include "engine/Team.h"
#include "engine/Checks.h"
#include "engine/Engine.h"
#include "engine/Reports.h"
#include "engine/Tier.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/Registry.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Process.h"
#include "util/Time.h"

#include <unistd.h>

namespace engram {

namespace {

// What `.engram/.gitattributes` says. Paths in a .gitattributes file are
// relative to its directory, so the store can sit in any subdirectory.
const char* kAttributes = "# Written by engram: claim files are merged field by field by engram's\n"
                          "# merge driver (run `engram init` once per clone to register it).\n"
                          "claims/*.md merge=engram\n"
                          "history/*.md merge=engram\n";
const char* kInboxAttributes =
    "# Reports are appended, never edited: a merge keeps both sides' lines.\n"
    "inbox.jsonl merge=union\n";

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::optional<std::string> gitConfigGet(const std::string& root, const std::string& key) {
    auto r = runProcess({"git", "-C", root, "config", "--local", "--get", key}, 4096);
    if (!r || r->exitCode != 0) return std::nullopt;
    std::string v = r->out;
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
        v.pop_back();
    return v;
}

bool insideWorkTree(const std::string& root) {
    auto r = runProcess({"git", "-C", root, "rev-parse", "--is-inside-work-tree"}, 64);
    return r && r->exitCode == 0 && r->out.starts_with("true");
}

} // namespace

bool ensureInboxMerge(const std::string& storeDir) {
    const std::string path = storeDir + "/.gitattributes";
    auto have = readFile(path);
    if (have && have->find("inbox.jsonl merge=union") != std::string::npos) return false;
    // A file people wrote is extended, never replaced.
    std::string text = have ? *have + (have->empty() || have->ends_with("\n") ? "" : "\n") : "";
    makeDirs(storeDir);
    atomicWrite(path, text + kInboxAttributes);
    return true;
}

Team::Team(std::string root, std::string home, const Store& project)
    : root_(std::move(root))
    , home_(std::move(home))
    , project_(project) {}

std::vector<std::string> Team::ensureSetup() {
    // Once per engine, and only where git is: the first write in a
    // repository registers the merge driver, so a team's first parallel
    // branches already merge claim files field by field (ARCHITECTURE.md, "Team memory").
    if (checked_) return {};
    checked_ = true;
    // The files say whether this clone is set up: no process unless it is
    // not (a clone of a team's repository that never ran init). Whether the
    // registered driver's binary still exists is doctor's and init's to ask.
    auto g = findGit(root_);
    if (!g) return {};
    auto attrs = readFile(project_.dir() + "/.gitattributes");
    if (configNamesEngramDriver(*g) && attrs && attrs->find("merge=engram") != std::string::npos &&
        attrs->find("inbox.jsonl merge=union") != std::string::npos)
        return {};
    try {
        return setup(true).wrote;
    } catch (const std::exception& e) {
        // Memory works without the driver; doctor reports what is missing.
        logDropped("registering the merge driver", e);
        return {};
    }
}

void Team::registerProject() {
    if (registered_ || home_.empty() || !project_.exists()) return;
    // The registry is a convenience for tier all: failing to write it (a
    // read-only home) must not fail the call that served the store.
    try {
        Registry(home_).add(root_);
        registered_ = true;
    } catch (const std::exception& e) {
        logDropped("adding the project to the registry", e);
    }
}

// What git is told to run as the merge driver: `engram` when the engram on
// PATH is this binary (an install, or a build directory put on PATH), so a
// rebuild, an upgrade or a move keeps merges working; this binary's absolute
// path only when PATH would not find it (the one name that runs it now;
// setup and doctor say when that path is gone).
static std::string driverBinary() {
    std::string exe = selfExecutable();
    if (exe.empty()) return "engram";
    if (auto found = findOnPath("engram"); found && canonicalPath(*found) == canonicalPath(exe))
        return "engram";
    return shellQuote(exe);
}

MergeDriverConfig registerMergeDriver(const std::string& gitRoot, bool write) {
    MergeDriverConfig out;
    std::string want = driverBinary() + " merge-driver %O %A %B %P";
    out.command = gitConfigGet(gitRoot, "merge.engram.driver");
    // A driver registered by another engram binary that still exists is
    // kept: one clone may be shared by several installs.
    if (out.command) {
        const std::string& cmd = *out.command;
        std::string bin = cmd.substr(0, cmd.find(" merge-driver"));
        if (bin.size() >= 2 && bin.front() == '\'' && bin.back() == '\'')
            bin = bin.substr(1, bin.size() - 2);
        out.usable =
            cmd.find(" merge-driver ") != std::string::npos &&
            (bin == "engram" ? findOnPath("engram").has_value() : ::access(bin.c_str(), X_OK) == 0);
    }
    if (!out.usable && write) {
        auto a = runProcess({"git", "-C", gitRoot, "config", "--local", "merge.engram.name",
                             "engram claim files, merged field by field"},
                            4096);
        auto b = runProcess(
            {"git", "-C", gitRoot, "config", "--local", "merge.engram.driver", want}, 4096);
        if (a && b && a->exitCode == 0 && b->exitCode == 0) {
            out.command = want;
            out.usable = true;
            out.wrote = true;
        }
    }
    return out;
}

const char* claimAttributes() {
    return kAttributes;
}

TeamSetup Team::setup(bool write) {
    TeamSetup s;
    s.git = insideWorkTree(root_);
    if (!s.git) return s;
    const Store& store = project_;
    std::string attrPath = store.dir() + "/.gitattributes";
    auto attrs = readFile(attrPath);
    s.attributes = attrs && attrs->find("merge=engram") != std::string::npos;
    if (!s.attributes && write) {
        // A file people wrote is extended, never replaced.
        std::string text = attrs ? *attrs + (attrs->ends_with("\n") ? "" : "\n") + kAttributes
                                 : std::string(kAttributes);
        makeDirs(store.dir());
        atomicWrite(attrPath, text);
        ensureInboxMerge(store.dir());
        s.attributes = true;
        s.wrote.push_back(".engram/.gitattributes");
    } else if (s.attributes && write && ensureInboxMerge(store.dir())) {
        // A store from before reports: its inbox merges line by line too.
        s.wrote.push_back(".engram/.gitattributes (inbox.jsonl merge=union)");
    }
    auto driver = registerMergeDriver(root_, write);
    bool usable = driver.usable;
    std::optional<std::string> have = driver.command;
    if (driver.wrote) s.wrote.push_back("git config merge.engram.driver");
    s.driver = usable;
    if (usable) s.driverCommand = *have;
    if (!s.attributes || !s.driver)
        s.problem = std::string(!s.driver && have ? "the merge driver registered in git config (" +
                                                        *have + ") cannot be run"
                                : !s.driver ? "this clone's git config does not register "
                                              "engram's merge driver"
                                            : ".engram/.gitattributes does not name "
                                              "engram's merge driver") +
                    ": merges of claim files fall back to git's line merge (conflict "
                    "markers); run `engram init` in " +
                    root_;
    return s;
}

GetResult Engine::resolve(const std::string& id, const std::string& take,
                          const std::string& agent) {
    if (!Store::validId(id)) throw invalidField("id", "'" + id + "' is not a claim id");
    checkAgent(agent);
    // Every string a write is given is scanned (invariant 6), this one too:
    // it is quoted back in errors and in the audit log.
    if (!take.empty()) scanForSecrets("take", take);
    Tier& t = tiers_.locate(id);
    {
        auto lock = t.store->lock();
        Claim c = Tiers::loadForUpdate(t, id);
        if (!c.unmerged && c.diverged.empty())
            throw invalidField("id", "claim '" + id +
                                         "' has nothing to resolve: it is neither diverged nor "
                                         "unmerged");
        // While git's merge is in progress, its index holds the three
        // files themselves (stages 1, 2, 3): better than the markers, whose
        // sides git already mixed line by line.
        std::optional<std::string> stage[4];
        std::string sideOurs, sideTheirs;
        if (c.unmerged) {
            auto rel = relativeToRoot(opts_.root, t.store->claimPath(id));
            for (int i = 1; rel && i <= 3; ++i)
                if (auto r = runProcess(
                        {"git", "-C", opts_.root, "show", ":" + std::to_string(i) + ":./" + *rel});
                    r && r->exitCode == 0)
                    stage[i] = r->out;
            if (stage[2] && stage[3]) {
                try {
                    c = parseClaim(mergeClaimFiles(stage[1].value_or(""), *stage[2], *stage[3], id),
                                   id);
                    c.unmerged = true;
                    sideOurs = *stage[2];
                    sideTheirs = *stage[3];
                } catch (const ClaimFileError&) {
                    // A stage engram cannot read: the markers it is.
                }
            }
            if (sideOurs.empty()) {
                auto text = readFile(t.store->claimPath(id), nullptr, {kMaxClaimFileBytes, false})
                                .value_or("");
                if (auto sides = splitConflict(text)) {
                    sideOurs = sides->ours;
                    sideTheirs = sides->theirs;
                }
            }
        }
        std::vector<Claim> heads = claimHeads(c);
        size_t chosen = 0; // the merge rule's live version
        std::string how = "the merge rule";
        if (take == "ours" || take == "theirs") {
            if (!c.unmerged)
                throw invalidField("take", "'" + take +
                                               "' names a side of git's conflict markers; this "
                                               "claim has none (give a version instead)");
            Claim side = parseClaim(take == "ours" ? sideOurs : sideTheirs, id);
            std::string key = versionKey(side);
            chosen = heads.size();
            for (size_t i = 0; i < heads.size(); ++i)
                if (versionKey(heads[i]) == key && heads[i].status == side.status) chosen = i;
            if (chosen == heads.size()) {
                // The side's version was merged with the other's (one version
                // changed in place on both): take the side as it was.
                heads.push_back(side);
                chosen = heads.size() - 1;
            }
            how = take;
        } else if (!take.empty()) {
            std::string want = take.starts_with("v") ? take.substr(1) : take;
            std::vector<size_t> match;
            for (size_t i = 0; i < heads.size(); ++i) {
                std::string key = versionKey(heads[i]);
                if (std::to_string(heads[i].version) == want || key.starts_with(want))
                    match.push_back(i);
            }
            std::string list;
            for (auto& h : heads)
                list += (list.empty() ? "" : ", ") + versionKey(h).substr(0, 10) + " (" +
                        std::string(toString(h.status)) + ")";
            if (match.empty())
                throw invalidField("take", "'" + take + "' names none of the versions: " + list);
            if (match.size() > 1)
                throw invalidField(
                    "take", "'" + take + "' names more than one version; give the key: " + list);
            chosen = match[0];
            how = "chosen";
        }

        std::string kept;
        Claim out = heads[chosen];
        if (heads.size() > 1) {
            // Every version is kept in history; the chosen one continues as
            // a new version after the highest, so versions only grow.
            int top = 0;
            for (auto& h : heads)
                top = std::max(top, h.version);
            for (size_t i = 0; i < heads.size(); ++i) {
                Claim h = heads[i];
                if (h.status == ClaimStatus::Committed) h.status = ClaimStatus::Superseded;
                t.store->writeHistory(h);
                if (i != chosen)
                    kept += (kept.empty() ? "" : ", ") + std::string("v") +
                            std::to_string(heads[i].version);
            }
            out.version = top + 1;
            out.supersedes = heads[chosen].id + "@" + std::to_string(heads[chosen].version);
        }
        out.diverged.clear();
        out.unmerged = false;
        out.updated = nowUnix();
        Tiers::commit(t, out, "resolve", agent,
                      "kept v" + std::to_string(heads[chosen].version) + " (" + how + ")" +
                          (kept.empty() ? "" : "; to history: " + kept) +
                          (c.unmerged ? "; removed git conflict markers" : ""));
    }
    return get(id);
}

std::set<std::string> Team::changedSince(const std::string& ref) const {
    if (ref.empty() || ref.starts_with("-"))
        throw invalidField("changed_since", "'" + ref + "' is not a git ref");
    if (!insideWorkTree(root_))
        throw invalidField("changed_since", root_ + " is not inside a git work tree");
    auto base = runProcess({"git", "-C", root_, "merge-base", ref, "HEAD"}, 4096);
    if (!base || base->exitCode != 0)
        throw invalidField("changed_since",
                           "git cannot find a merge base of '" + ref + "' and HEAD" +
                               (base && !base->err.empty()
                                    ? ": " + base->err.substr(0, base->err.find('\n'))
                                    : std::string()));
    std::string commit = base->out.substr(0, base->out.find('\n'));
    // From the merge base to the working tree: what this branch changed,
    // committed or not, and not what the target branch did meanwhile.
    // --relative names paths from the root, as anchors are.
    auto diff = runProcess({"git", "-C", root_, "diff", "-z", "--name-only", "--relative",
                            "--no-renames", commit, "--"});
    if (!diff || diff->exitCode != 0)
        throw invalidField("changed_since", "git diff against '" + ref + "' failed");
    std::set<std::string> out;
    auto collect = [&](const std::string& nulSeparated) {
        size_t pos = 0;
        while (pos < nulSeparated.size()) {
            size_t end = nulSeparated.find('\0', pos);
            if (end == std::string::npos) end = nulSeparated.size();
            if (end > pos) out.insert(nulSeparated.substr(pos, end - pos));
            pos = end + 1;
        }
    };
    collect(diff->out);
    // New files not yet added are changes too.
    if (auto untracked =
            runProcess({"git", "-C", root_, "ls-files", "-z", "--others", "--exclude-standard"});
        untracked && untracked->exitCode == 0)
        collect(untracked->out);
    return out;
}

} // namespace engram
