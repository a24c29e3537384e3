// Team stores and a medulla with a remote: clones, sync and proposal
// branches (engine/GitStores.h).
#include "engine/GitStores.h"

#include "engine/Team.h"
#include "secrets/SecretScan.h"
#include "store/ClaimFile.h"
#include "store/Store.h"
#include "store/StoreConfig.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Lines.h"
#include "util/Paths.h"
#include "util/Process.h"
#include "util/Time.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace engram {

namespace {

// The files of a store git carries; the rest is derived or local.
const char* const kStorePaths[] = {"claims",         "history",    "store.conf",
                                   ".gitattributes", ".gitignore", "inbox.jsonl"};

std::string lines(const std::string& s) {
    return trimRight(s);
}

// git with no prompt: engram runs without a terminal to ask on, so a
// credential git cannot find fails the call instead of hanging it.
// Credentials are git's own (credential helpers, the SSH agent).
std::vector<std::string> gitArgs(const std::string& dir, std::vector<std::string> args,
                                 const std::string& indexFile = {}) {
    std::vector<std::string> out = {"env", "GIT_TERMINAL_PROMPT=0"};
    if (!std::getenv("GIT_SSH_COMMAND")) out.push_back("GIT_SSH_COMMAND=ssh -o BatchMode=yes");
    if (!indexFile.empty()) out.push_back("GIT_INDEX_FILE=" + indexFile);
    out.insert(out.end(), {"git", "-C", dir});
    out.insert(out.end(), args.begin(), args.end());
    return out;
}

struct GitRun {
    bool ok = false;
    std::string out;
    std::string err; // redacted
};

GitRun git(const std::string& dir, std::vector<std::string> args,
           const std::string& indexFile = {}) {
    auto r = runProcess(gitArgs(dir, std::move(args), indexFile));
    if (!r) return {false, "", "git cannot be run (is it installed?)"};
    return {r->exitCode == 0, r->out, secrets::redacted(trimRight(r->err))};
}

// Commits need an author; a machine with none configured still syncs.
// git's options to put first: asked once per command that commits.
std::vector<std::string> identity(const std::string& dir) {
    if (!lines(git(dir, {"config", "--get", "user.email"}).out).empty()) return {};
    return {"-c", "user.name=engram", "-c", "user.email=engram@localhost"};
}

// `head` then `tail`: git's options before its subcommand, or a command's
// arguments before the paths it takes.
std::vector<std::string> joined(std::vector<std::string> head,
                                const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

bool passwordIn(const std::string& url) {
    auto scheme = url.find("://");
    if (scheme == std::string::npos) return false;
    auto at = url.find('@', scheme + 3);
    auto slash = url.find('/', scheme + 3);
    if (at == std::string::npos || (slash != std::string::npos && slash < at)) return false;
    return url.substr(scheme + 3, at - scheme - 3).find(':') != std::string::npos;
}

// A remote as git is to be given it: never an option (a URL starting with
// '-' would be read as one), a local path made absolute (git runs in
// another directory), and never with a password in it.
std::string checkedRemote(const std::string& field, const std::string& url) {
    if (url.empty()) throw invalidField(field, "must not be empty");
    if (url[0] == '-') throw invalidField(field, "must not start with '-'");
    if (passwordIn(url) || secrets::redacted(url) != url)
        throw invalidField(field,
                           "the URL holds a password or token: git would keep it in the clone's "
                           "config and engram would have to hide it everywhere; give the URL "
                           "without it and let git's credential helper or the SSH agent supply "
                           "it");
    if (url.find("://") == std::string::npos && statEntry(url)) return canonicalPath(url);
    return url;
}

std::string branchOf(const std::string& dir) {
    return lines(git(dir, {"symbolic-ref", "--short", "HEAD"}).out);
}

std::string gitDirOf(const std::string& dir) {
    auto g = findGit(dir);
    return g ? g->gitDir : dir + "/.git";
}

std::string recordPath(const std::string& dir) {
    return gitDirOf(dir) + "/engram-sync";
}

// What is ours and not on the remote: proposal branches, and for a store
// whose branch engram pushes, commits ahead of origin's.
struct Pending {
    std::vector<std::string> branches; // engram/* proposal branches
    std::string main;                  // the branch checked out, when engram pushes it
    int64_t ahead = 0;                 // its commits origin lacks
    // As the sync record and the answers say it.
    std::vector<std::string> said() const {
        std::vector<std::string> out = branches;
        if (ahead > 0) out.push_back(std::to_string(ahead) + " commit(s) on " + main);
        return out;
    }
};

Pending pendingOf(const std::string& dir, bool pushMain) {
    Pending out;
    auto g = findGit(dir);
    if (!g) return out;
    auto refs =
        git(dir, {"for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/engram/"});
    forEachLine(refs.out, [&](std::string_view l, int) {
        auto sp = l.find(' ');
        if (sp == std::string_view::npos) return;
        std::string name(l.substr(0, sp)), id(l.substr(sp + 1));
        if (resolveRef(*g, "refs/remotes/origin/" + name) != id) out.branches.push_back(name);
    });
    if (pushMain) {
        std::string b = branchOf(dir);
        if (!b.empty() && !resolveRef(*g, "refs/heads/" + b).empty()) {
            bool upstream = !resolveRef(*g, "refs/remotes/origin/" + b).empty();
            auto n =
                git(dir, {"rev-list", "--count", upstream ? "origin/" + b + "..HEAD" : "HEAD"});
            std::string count = lines(n.out);
            if (n.ok && !count.empty() && count.size() < 10 &&
                count.find_first_not_of("0123456789") == std::string::npos) {
                out.main = b;
                out.ahead = std::stoll(count);
            }
        }
    }
    return out;
}

void writeRecord(const std::string& dir, const SyncRecord& r) {
    std::string text = "# engram sync: what the last sync of this store saw\n";
    if (!r.remote.empty()) text += "remote " + r.remote + "\n";
    if (r.lastSync) text += "last_sync " + std::to_string(*r.lastSync) + "\n";
    if (r.lastTry) text += "last_try " + std::to_string(*r.lastTry) + "\n";
    if (!r.lastError.empty()) {
        std::string e = r.lastError.substr(0, 400);
        std::replace(e.begin(), e.end(), '\n', ' ');
        text += "error " + e + "\n";
    }
    for (auto& p : r.pending)
        text += "pending " + p + "\n";
    atomicWrite(recordPath(dir), text);
}

std::string originUrl(const std::string& dir) {
    return redactRemote(lines(git(dir, {"remote", "get-url", "origin"}).out));
}

// A claim file's act, as a commit message names it.
std::string actOf(const std::string& dir, const std::string& path, char change) {
    std::string id = path.substr(path.find('/') + 1);
    id = id.substr(0, id.size() - 3);
    if (change == 'D') return "removed " + id;
    auto text = readFile(dir + "/" + path);
    if (!text) return "changed " + id;
    try {
        Claim c = parseClaim(*text, id);
        std::string what = c.status == ClaimStatus::Retracted ? "retract"
                           : c.promoted > 0 && c.version == 1 ? "promote"
                           : c.version > 1                    ? "supersede"
                                                              : "remember";
        return what + " " + id + (c.label.empty() ? "" : " (" + c.label + ")");
    } catch (const std::exception&) {
        return "changed " + id;
    }
}

// Commits engram's own writes to the store's files; the acts named in the
// message. Empty when there was nothing to commit.
std::vector<std::string> commitLocal(const std::string& dir, const std::vector<std::string>& who,
                                     std::string& error) {
    std::vector<std::string> paths;
    for (auto* p : kStorePaths)
        if (statEntry(dir + "/" + p)) paths.push_back(p);
    if (paths.empty()) return {};
    auto add = git(dir, joined({"add", "-A", "--"}, paths));
    if (!add.ok) {
        error = "git add: " + add.err;
        return {};
    }
    auto st = git(dir, {"diff", "--cached", "--name-status", "--no-renames"});
    std::vector<std::string> acts;
    size_t others = 0;
    forEachLine(st.out, [&](std::string_view l, int) {
        auto tab = l.find('\t');
        if (tab == std::string_view::npos) return;
        std::string path(l.substr(tab + 1));
        if (path.starts_with("claims/") && path.ends_with(".md"))
            acts.push_back(actOf(dir, path, l[0]));
        else
            ++others;
    });
    if (acts.empty() && others == 0) return {};
    std::string message = "engram: ";
    for (size_t i = 0; i < acts.size() && i < 20; ++i)
        message += (i ? ", " : "") + acts[i];
    if (acts.size() > 20) message += " and " + std::to_string(acts.size() - 20) + " more";
    if (acts.empty()) message += "the store's settings and history";
    auto commit = git(dir, joined(who, {"commit", "-q", "--no-verify", "-m", message}));
    if (!commit.ok) {
        error = "git commit: " + commit.err;
        return {};
    }
    if (acts.empty()) acts.push_back("the store's settings and history");
    return acts;
}

int64_t claimFiles(const std::string& dir) {
    int64_t n = 0;
    for (auto& f : listFiles(dir + "/claims"))
        if (f.ends_with(".md")) ++n;
    return n;
}

// The layout of a new store in a clone, with the files git needs to keep
// its empty directories and merge its claims.
void layOut(const std::string& dir, const std::string& tier, const std::string& name) {
    Store(dir, tier, name).ensureLayout();
    for (auto* d : {"/claims/.keep", "/history/.keep"})
        if (!statEntry(dir + d)) atomicWrite(dir + d, "");
    auto attrs = readFile(dir + "/.gitattributes");
    if (!attrs || attrs->find("merge=engram") == std::string::npos)
        atomicWrite(dir + "/.gitattributes",
                    (attrs ? *attrs + (attrs->ends_with("\n") || attrs->empty() ? "" : "\n")
                           : std::string()) +
                        claimAttributes());
    // A store made before sync existed ignores less than it should.
    auto ignore = readFile(dir + "/.gitignore");
    if (ignore && ignore->find("index.sqlite") == std::string::npos)
        atomicWrite(dir + "/.gitignore",
                    *ignore + "index.sqlite\nindex.sqlite-*\naudit.log\nlock\n");
}

} // namespace

std::string teamStoreDir(const std::string& home, const std::string& name) {
    return home + "/teams/" + name;
}

std::vector<std::string> addedTeams(const std::string& home) {
    std::vector<std::string> out;
    if (home.empty()) return out;
    for (auto& name : listFiles(home + "/teams"))
        if (validTeamName(name) && statFile(home + "/teams/" + name + "/store.conf"))
            out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
}

std::string redactRemote(const std::string& url) {
    std::string out = url;
    if (passwordIn(out)) {
        auto scheme = out.find("://");
        auto at = out.find('@', scheme + 3);
        out = out.substr(0, scheme + 3) + "***" + out.substr(at);
    }
    return secrets::redacted(out);
}

SyncRecord readSyncRecord(const std::string& storeDir) {
    SyncRecord r;
    auto g = findGit(storeDir);
    // Only a clone whose top is the store: a project store inside its
    // repository is not synced by engram.
    if (!g || parentDir(g->commonDir) != storeDir) return r;
    r.git = true;
    auto text = readFile(g->gitDir + "/engram-sync", nullptr, {64 * 1024, false});
    if (!text) return r;
    forEachLine(*text, [&](std::string_view l, int) {
        auto sp = l.find(' ');
        if (sp == std::string_view::npos || l[0] == '#') return;
        std::string key(l.substr(0, sp)), value(l.substr(sp + 1));
        auto number = [&]() -> std::optional<int64_t> {
            if (value.empty() || value.size() > 18 ||
                value.find_first_not_of("0123456789") != std::string::npos)
                return std::nullopt;
            return std::stoll(value);
        };
        if (key == "remote") r.remote = redactRemote(value);
        if (key == "last_sync") r.lastSync = number();
        if (key == "last_try") r.lastTry = number();
        if (key == "error") r.lastError = secrets::redacted(value);
        if (key == "pending") r.pending.push_back(value);
    });
    return r;
}

SyncOutcome syncStore(const std::string& dir, const std::string& label, bool pushMain) {
    SyncOutcome out;
    out.store = label;
    SyncRecord record = readSyncRecord(dir);
    if (!record.git) {
        out.error = label + " (" + dir + ") is not a git clone of its own";
        return out;
    }
    record.remote = originUrl(dir);
    record.lastTry = nowUnix();
    // Merges need the driver registered in this clone, for this engram (a
    // home copied from another machine names a binary that is not here).
    registerMergeDriver(dir, true);
    const std::vector<std::string> who = identity(dir);
    std::optional<Pending> pending; // known after the pushes
    auto finish = [&] {
        record.lastError = out.error;
        record.pending = (pending ? *pending : pendingOf(dir, pushMain)).said();
        writeRecord(dir, record);
        return out;
    };
    if (pushMain) out.committed = commitLocal(dir, who, out.error);
    if (!out.error.empty()) return finish();

    auto fetch = git(dir, {"fetch", "-q", "--prune", "origin"});
    if (!fetch.ok) {
        out.error = "the remote could not be reached (" + fetch.err +
                    "); answers come from the local clone";
        return finish();
    }
    out.reached = true;
    record.lastSync = nowUnix();

    const std::string branch = branchOf(dir);
    auto g = findGit(dir);
    const std::string upstream = "origin/" + branch;
    if (!branch.empty() && g && !resolveRef(*g, "refs/remotes/" + upstream).empty()) {
        std::string before = resolveRef(*g, "refs/heads/" + branch);
        // Unrelated histories are allowed: a medulla given a remote starts
        // a history of its own, and merges with the one another machine
        // pushed; claim ids never collide, so the union is what is wanted.
        auto merge =
            git(dir,
                joined(who, {"merge", "-q", "--no-edit", "--allow-unrelated-histories", upstream}));
        if (!merge.ok) {
            auto unmerged = git(dir, {"diff", "--name-only", "--diff-filter=U"});
            forEachLine(unmerged.out, [&](std::string_view f, int) {
                if (!f.empty()) out.conflicts.emplace_back(f);
            });
            git(dir, {"merge", "--abort"});
            out.error = "the merge with " + upstream + " stopped (" +
                        (out.conflicts.empty() ? merge.err
                                               : std::to_string(out.conflicts.size()) +
                                                     " file(s) git could not merge") +
                        "); nothing was merged: resolve it in " + dir + " with git, then sync";
            return finish();
        }
        std::string after = resolveRef(*g, "refs/heads/" + branch);
        if (before == after)
            out.merge = "up to date";
        else {
            out.merge =
                after == resolveRef(*g, "refs/remotes/" + upstream) ? "fast-forward" : "merged";
            auto changed =
                git(dir, before.empty() ? std::vector<std::string>{"ls-files", "claims"}
                                        : std::vector<std::string>{"diff", "--name-only", before,
                                                                   after, "--", "claims"});
            forEachLine(changed.out, [&](std::string_view f, int) {
                if (f.ends_with(".md")) out.arrived.emplace_back(f);
            });
            for (auto& f : out.arrived) {
                std::string id = f.substr(7, f.size() - 10);
                auto text = readFile(dir + "/" + f);
                try {
                    if (text && !parseClaim(*text, id).diverged.empty()) out.diverged.push_back(id);
                } catch (const std::exception&) {
                    // A broken file is the index's to report (engram.invalid).
                }
            }
        }
    } else {
        out.merge = "up to date";
    }

    // Push: the branch checked out only where engram owns it (a medulla),
    // and the proposal branches not yet on the remote. A push updates
    // origin's remote-tracking ref itself, so what is left is known without
    // another fetch.
    pending = pendingOf(dir, pushMain);
    std::vector<std::string> refs = pending->branches;
    if (pending->ahead > 0) refs.push_back(pending->main);
    for (auto& ref : refs) {
        auto push = git(dir, {"push", "-q", "origin", "refs/heads/" + ref + ":refs/heads/" + ref});
        if (!push.ok) {
            out.error = "could not push " + ref + " (" + push.err + ")";
            break;
        }
        out.pushed.push_back(ref);
        if (ref == pending->main && pending->ahead > 0)
            pending->ahead = 0;
        else
            std::erase(pending->branches, ref);
    }
    return finish();
}

TeamAdded addTeam(const std::string& home, const std::string& name, const std::string& url) {
    if (home.empty())
        throw EngramError(ErrorKind::NotBound, "no engram home: ENGRAM_HOME is not set (--home)");
    if (!validTeamName(name))
        throw invalidField("name", "'" + secrets::redacted(name.substr(0, 60)) +
                                       "' is not a team name (lower-case letters, digits, '-' "
                                       "and '_', at most 40)");
    const std::string remote = checkedRemote("url", url);
    TeamAdded added;
    added.dir = teamStoreDir(home, name);
    added.remote = redactRemote(url);
    if (statEntry(added.dir))
        throw invalidField("name", "team store '" + name + "' is already added at " + added.dir +
                                       "; engram sync updates it");
    makeDirs(home + "/teams");
    auto gone = [&](const std::string& why) {
        std::error_code ec;
        std::filesystem::remove_all(added.dir, ec);
        return EngramError(ErrorKind::InvalidParams, why, {{"field", std::string("url")}});
    };
    auto clone = runProcess(gitArgs(home + "/teams", {"clone", "-q", "--", remote, name}));
    if (!clone || clone->exitCode != 0)
        throw gone("could not clone " + added.remote + ": " +
                   (clone ? secrets::redacted(trimRight(clone->err)) : "git cannot be run"));
    const std::string& dir = added.dir;
    if (auto conf = readFile(dir + "/store.conf")) {
        auto parsed = parseStoreConfig(*conf);
        if (parsed.name && *parsed.name != name)
            throw gone("the repository's store is named '" + *parsed.name +
                       "' (its store.conf): add it under that name");
    }
    bool born = !lines(git(dir, {"rev-parse", "--verify", "-q", "HEAD"}).out).empty();
    if (born && !statEntry(dir + "/store.conf"))
        throw gone("the repository at " + added.remote +
                   " holds no engram store (no store.conf at its top): a team store is a "
                   "repository of its own");
    registerMergeDriver(dir, true);
    if (!born) {
        layOut(dir, "team", name);
        // store.conf names the store, so every clone agrees on it.
        atomicWrite(dir + "/store.conf", "# engram team store\nname: " + name + "\n");
        auto add = git(dir, {"add", "-A", "--", "."});
        auto commit = git(dir, joined(identity(dir), {"commit", "-q", "--no-verify", "-m",
                                                      "engram: a new team store '" + name + "'"}));
        if (!add.ok || !commit.ok)
            throw gone("could not commit the new store: " + (add.ok ? commit.err : add.err));
        added.created = true;
        std::string branch = branchOf(dir);
        auto push =
            git(dir, {"push", "-q", "origin", "refs/heads/" + branch + ":refs/heads/" + branch});
        if (!push.ok)
            throw gone("could not push the new store to " + added.remote + ": " + push.err);
    }
    SyncRecord r;
    r.git = true;
    r.remote = added.remote;
    r.lastSync = r.lastTry = nowUnix();
    writeRecord(dir, r);
    added.claims = claimFiles(dir);
    return added;
}

SyncOutcome medullaRemote(const std::string& home, const std::string& url) {
    if (home.empty())
        throw EngramError(ErrorKind::NotBound, "no medulla: ENGRAM_HOME is not set (--home)");
    const std::string remote = checkedRemote("url", url);
    const std::string dir = home + "/medulla";
    makeDirs(dir);
    auto g = findGit(dir);
    if (!g || parentDir(g->commonDir) != dir) {
        auto init = git(dir, {"init", "-q"});
        if (!init.ok) throw EngramError(ErrorKind::Storage, "git init in " + dir + ": " + init.err);
    }
    layOut(dir, "medulla", "medulla");
    registerMergeDriver(dir, true);
    bool hasOrigin = git(dir, {"remote", "get-url", "origin"}).ok;
    auto set = git(dir, {"remote", hasOrigin ? "set-url" : "add", "--", "origin", remote});
    if (!set.ok) throw invalidField("url", "git remote: " + set.err);
    // A medulla's first sync starts from what the remote's default branch
    // is called, so two machines' histories meet on one branch.
    auto head = git(dir, {"ls-remote", "--symref", "origin", "HEAD"});
    if (head.ok && head.out.starts_with("ref: refs/heads/")) {
        std::string b = head.out.substr(16, head.out.find('\t') - 16);
        if (lines(git(dir, {"rev-parse", "--verify", "-q", "HEAD"}).out).empty() &&
            validTeamName(b))
            git(dir, {"symbolic-ref", "HEAD", "refs/heads/" + b});
    }
    return syncStore(dir, "medulla", true);
}

void proposeOnBranch(const std::string& dir, const std::string& branch,
                     const std::vector<std::pair<std::string, std::string>>& files,
                     const std::string& message) {
    auto g = findGit(dir);
    if (!g) throw EngramError(ErrorKind::Storage, dir + " is not a git clone");
    std::string base = lines(git(dir, {"rev-parse", "--verify", "-q", "HEAD"}).out);
    if (base.empty())
        throw EngramError(ErrorKind::Storage, "the team store at " + dir +
                                                  " has no commit to branch from: run engram sync");
    if (!resolveRef(*g, "refs/heads/" + branch).empty())
        throw invalidField("id", "branch " + branch +
                                     " already exists: this change is proposed (delete the "
                                     "branch to propose it again)");
    const std::string tag = std::to_string(::getpid());
    const std::string blobFile = g->gitDir + "/engram-proposal-" + tag;
    const std::string indexFile = g->gitDir + "/engram-index-" + tag;
    struct Cleanup {
        std::string a, b;
        ~Cleanup() {
            removeFile(a);
            removeFile(b);
        }
    } cleanup{blobFile, indexFile};
    auto fail = [&](const std::string& step, const GitRun& r) {
        return EngramError(ErrorKind::Storage,
                           "could not write the proposal branch (" + step + "): " + r.err);
    };
    auto read = git(dir, {"read-tree", base}, indexFile);
    if (!read.ok) throw fail("read-tree", read);
    for (auto& [path, bytes] : files) {
        atomicWrite(blobFile, bytes);
        auto blob = git(dir, {"hash-object", "-w", blobFile});
        if (!blob.ok) throw fail("hash-object", blob);
        auto update = git(
            dir, {"update-index", "--add", "--cacheinfo", "100644," + lines(blob.out) + "," + path},
            indexFile);
        if (!update.ok) throw fail("update-index", update);
    }
    auto tree = git(dir, {"write-tree"}, indexFile);
    if (!tree.ok) throw fail("write-tree", tree);
    auto commit = git(
        dir, joined(identity(dir), {"commit-tree", lines(tree.out), "-p", base, "-m", message}));
    if (!commit.ok) throw fail("commit-tree", commit);
    auto ref =
        git(dir, {"update-ref", "refs/heads/" + branch, lines(commit.out), std::string(40, '0')});
    if (!ref.ok) throw fail("update-ref", ref);
    SyncRecord r = readSyncRecord(dir);
    r.pending = pendingOf(dir, false).said();
    writeRecord(dir, r);
}

} // namespace engram
