// I/O fault injection: every write path run through the real binary with
// the n-th file-system call of a class failing (tests/fault/FaultShim.c),
// for every n the path makes. After each fault: the command either failed
// with a StorageError and left no trace, or succeeded and its act is there;
// no temporary file is left where claims are read, the audit chains verify,
// and the next write succeeds.
//
// ENGRAM_FAULT_TRACE=FILE writes a line per injection point (class, call,
// exit code, whether the act is visible, the path the failed call was on).

#include "Client.h"

#include "store/AuditLog.h"
#include "store/ClaimFile.h"
#include "support/EngramBinary.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_FaultTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

const char* kClasses[] = {"write", "fsync", "rename", "open", "mkdir", "link", "ftruncate"};
const char* kErrnos[] = {"ENOSPC", "EIO", "EROFS", "EACCES"};

// A word unique to one attempt, in letters only: the tokenizer splits
// digits off, and recall folds claims whose words are the same.
std::string wordFor(const std::string& name, int n) {
    std::string out = "zq" + name;
    do {
        out += char('a' + n % 26);
        n /= 26;
    } while (n > 0);
    return out + "x";
}

struct Fixture {
    TempDir root, home;
    int points = 0;
    Fixture() {
        copySampleWorkspace(root.path());
        ok({"remember", "a first claim so the store exists"});
    }
    CliResult run(std::vector<std::string> args, const std::vector<std::string>& env = {},
                  const std::string& in = "") {
        std::vector<std::string> full = {"--json", "--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        std::vector<std::string> e = {"ENGRAM_AGENT=test:fault"};
        e.insert(e.end(), env.begin(), env.end());
        return runCli(full, e, in);
    }
    json ok(std::vector<std::string> args, const std::string& in = "") {
        CliResult r = run(args, {}, in);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
    bool recalled(const std::string& token, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args = {"recall", token, "--limit", "50"};
        args.insert(args.end(), extra.begin(), extra.end());
        json got = ok(args); // the loop below must not range over a temporary's member
        for (auto& row : got["rows"])
            if (row["text"].get<std::string>().find(token) != std::string::npos) return true;
        return false;
    }
};

// What the store must look like whatever happened.
void checkStores(const Fixture& f) {
    for (std::string dir : {f.root.path() + "/.engram", f.home.path() + "/medulla"}) {
        if (!fs::exists(dir)) continue;
        auto audit = engram::AuditLog(dir + "/audit.log").verify();
        INFO(dir << ": audit entry " << audit.brokenAt << ": " << audit.problem);
        CHECK(audit.ok);
        for (const char* sub : {"/claims", "/history"}) {
            if (!fs::exists(dir + sub)) continue;
            for (auto& e : fs::directory_iterator(dir + sub)) {
                std::string name = e.path().filename();
                INFO(e.path());
                CHECK(name.find(".tmp-") == std::string::npos);
                if (std::string(sub) == "/claims" && name.ends_with(".md"))
                    CHECK_NOTHROW(engram::parseClaim(*slurp(e.path()), name.substr(0, 14)));
            }
        }
    }
}

struct WritePath {
    // What a fault may leave. Atomic: a refused act leaves no trace.
    // Unchanged: the act changes nothing a reader sees (a rebuild): the
    // state must hold whether it succeeded or not. Repeatable: set-up that
    // may stop half-way (init, the packet key): run again without the
    // fault, it completes.
    enum Kind { Atomic, Unchanged, Repeatable };
    // Runs without a fault; returns the command to run under one. `token`
    // is unique to the attempt.
    std::function<std::vector<std::string>(Fixture&, const std::string& token)> prepare;
    // Whether the act is visible now (through the CLI, as a client sees it).
    std::function<bool(Fixture&, const std::string& token)> applied;
    // Standard input of the faulted command, if it reads one.
    std::function<std::string(const std::string& token)> input = nullptr;
    Kind kind = Atomic;
};

// Every call position, or every k-th with --fault-stride k: the sanitized
// run of this suite takes every third (the plain build already tries them
// all; a stride of 3 still meets every errno, as 3 and 4 are coprime, and
// every path and call class).
using engram::test::faultStride;

void injectEverywhere(const WritePath& path, Fixture& f, const std::string& name) {
    int attempt = 0;
    for (const char* cls : kClasses) {
        for (int n = 1; n <= 400; n += faultStride()) {
            std::string token = wordFor(name, ++attempt);
            auto args = path.prepare(f, token);
            std::string report = f.home.path() + "/fault-report";
            fs::remove(report);
            const char* err = kErrnos[(n - 1) % 4];
            CliResult r = f.run(args,
                                {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM,
                                 std::string("ENGRAM_FAULT_CLASS=") + cls,
                                 "ENGRAM_FAULT_AT=" + std::to_string(n),
                                 std::string("ENGRAM_FAULT_ERRNO=") + err,
                                 "ENGRAM_FAULT_UNDER=" + f.root.path() + ":" + f.home.path(),
                                 "ENGRAM_FAULT_REPORT=" + report},
                                path.input ? path.input(token) : "");
            std::string said = slurp(report).value_or("");
            bool fired = said.find(" 1 ") != std::string::npos;
            INFO(name << ": " << cls << " call " << n << " fails with " << err << " (" << said
                      << ")"
                      << "\nexit " << r.exitCode << "\nstdout: " << r.out << "\nstderr: " << r.err);
            bool applied = path.applied(f, token);
            if (const char* trace = std::getenv("ENGRAM_FAULT_TRACE")) {
                std::ofstream t(trace, std::ios::app);
                std::string line = said;
                std::replace(line.begin(), line.end(), '\n', ' ');
                t << name << " " << cls << " " << n << " rc=" << r.exitCode
                  << " applied=" << applied << " " << line << "\n";
            }
            if (!fired) {
                // The path made fewer than n such calls: it ran clean.
                CHECK(r.exitCode == 0);
                CHECK(applied);
                break;
            }
            ++f.points;
            if (r.exitCode != 0) {
                json e = json::parse(r.out, nullptr, false);
                CHECK(e.is_object());
                // The kind, and what the file system said. The index's
                // failures say it in SQLite's words ("database or disk is
                // full"): its system errno is not reliable after its own
                // recovery steps (a rollback's calls overwrite it).
                if (e.is_object()) {
                    CHECK(e["data"]["kind"] == "StorageError");
                    if (!e["message"].get<std::string>().starts_with("index:"))
                        CHECK(e["data"]["errno"] == err);
                }
            }
            if (path.kind == WritePath::Unchanged) {
                CHECK(applied);
            } else if (path.kind == WritePath::Repeatable) {
                if (r.exitCode != 0) {
                    CliResult again = f.run(args, {}, path.input ? path.input(token) : "");
                    INFO("again: " << describe(again));
                    CHECK(again.exitCode == 0);
                }
                CHECK(path.applied(f, token));
            } else if (r.exitCode == 0) {
                CHECK(applied); // completed, then acknowledged
            } else {
                json e = json::parse(r.out, nullptr, false);
                CHECK(e.is_object());
                if (e.is_object()) CHECK(e["data"]["kind"] == "StorageError");
                CHECK_FALSE(applied); // refused: no trace
            }
            checkStores(f);
        }
    }
}

std::string idOf(const json& remembered) {
    return remembered["claim"]["id"];
}

} // namespace

TEST_CASE("faults: remember and supersede", "[e2e][fault]") {
    Fixture f;
    injectEverywhere({[](Fixture&, const std::string& t) {
                          return std::vector<std::string>{"remember", "claim " + t};
                      },
                      [](Fixture& fx, const std::string& t) { return fx.recalled(t); }},
                     f, "remember");
    injectEverywhere(
        {[](Fixture& fx, const std::string& t) {
             fx.ok({"remember", "first version", "--label", "l" + t});
             return std::vector<std::string>{"remember", "second " + t, "--label", "l" + t};
         },
         [](Fixture& fx, const std::string& t) { return fx.recalled(t); }},
        f, "supersede");
    WARN(f.points << " fault points");
    CHECK(f.points > 20);
}

TEST_CASE("faults: retract, learn and reverify", "[e2e][fault]") {
    Fixture f;
    std::map<std::string, std::string> ids;
    auto fresh = [&](Fixture& fx, const std::string& t) {
        ids[t] = idOf(
            fx.ok({"remember", "claim " + t, "--anchor", "src/auth.py#TokenValidator.validate"}));
        return ids[t];
    };
    auto get = [&](Fixture& fx, const std::string& t) { return fx.ok({"get", ids[t]})["claim"]; };
    injectEverywhere(
        {[&](Fixture& fx, const std::string& t) {
             return std::vector<std::string>{"retract", fresh(fx, t), "--reason", "gone"};
         },
         [&](Fixture& fx, const std::string& t) { return get(fx, t)["status"] == "retracted"; }},
        f, "retract");
    injectEverywhere(
        {[&](Fixture& fx, const std::string& t) {
             return std::vector<std::string>{"learn", fresh(fx, t), "correct"};
         },
         [&](Fixture& fx, const std::string& t) { return get(fx, t)["feedback"]["correct"] == 1; }},
        f, "learn");
    injectEverywhere(
        {[&](Fixture& fx, const std::string& t) {
             return std::vector<std::string>{"reverify", fresh(fx, t)};
         },
         [&](Fixture& fx, const std::string& t) { return get(fx, t).contains("verified"); }},
        f, "reverify");
    WARN(f.points << " fault points");
    CHECK(f.points > 20);
}

TEST_CASE("faults: promote, contribute, review and report", "[e2e][fault]") {
    Fixture f;
    std::map<std::string, std::string> ids;
    injectEverywhere(
        {[&](Fixture& fx, const std::string& t) {
             ids[t] = idOf(fx.ok({"remember", "claim " + t}));
             return std::vector<std::string>{"promote", ids[t], "--reason", "holds everywhere"};
         },
         [&](Fixture& fx, const std::string& t) {
             bool witness = fx.ok({"get", ids[t]})["claim"].contains("promoted_to");
             bool copy = fx.recalled(t, {"--tier", "medulla"});
             CHECK(witness == copy); // never one without the other
             return witness && copy;
         }},
        f, "promote");
    injectEverywhere({[&](Fixture&, const std::string&) {
                          return std::vector<std::string>{"contribute", "-"};
                      },
                      [&](Fixture& fx, const std::string& t) {
                          return fx.recalled(t, {"--include", "frontier"});
                      },
                      [](const std::string& t) { return "[{\"text\": \"a finding " + t + "\"}]"; }},
                     f, "contribute");
    std::map<std::string, std::string> contributions;
    injectEverywhere(
        {[&](Fixture& fx, const std::string& t) {
             json c = fx.ok({"contribute", "-"}, "[{\"text\": \"a reviewed finding " + t + "\"}]");
             return std::vector<std::string>{"review", c["items"][0]["contribution_id"], "accept",
                                             "--reason", "checked"};
         },
         [&](Fixture& fx, const std::string& t) { return fx.recalled(t); }},
        f, "review");
    injectEverywhere({[&](Fixture&, const std::string& t) {
                          return std::vector<std::string>{"report", "--class", "field_report",
                                                          "--what", "report " + t};
                      },
                      [&](Fixture& fx, const std::string& t) {
                          return fx.ok({"inbox"}).dump().find(t) != std::string::npos;
                      }},
                     f, "report");
    WARN(f.points << " fault points");
    CHECK(f.points > 20);
}

// The two failures first seen from outside, each found by the path its call
// is on: a claims-directory fsync or an audit append that fails after the
// claim file is in place. Both used to answer "failed" with the claim live.
TEST_CASE("faults: a write whose directory sync or audit append fails is refused and undone",
          "[e2e][fault]") {
    Fixture f;
    bool sawDir = false, sawAudit = false;
    // Only the claim files' syncs and the audit append count: the index's
    // syncs (SQLite checkpoints) vary in number from one write to the next,
    // which would move the two calls this test is about.
    std::string store = f.root.path() + "/.engram";
    for (int n = 1; n <= 20; ++n) {
        std::string token = wordFor("undo", n);
        std::string report = f.home.path() + "/fault-report";
        fs::remove(report);
        CliResult r =
            f.run({"remember", "claim " + token},
                  {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM, "ENGRAM_FAULT_CLASS=fsync",
                   "ENGRAM_FAULT_AT=" + std::to_string(n), "ENGRAM_FAULT_ERRNO=EIO",
                   "ENGRAM_FAULT_UNDER=" + store + "/claims:" + store + "/audit.log",
                   "ENGRAM_FAULT_REPORT=" + report});
        std::string said = slurp(report).value_or("");
        if (said.find(" 1 ") == std::string::npos) break;
        bool dir = said.ends_with("/.engram/claims\n"), audit = said.ends_with("/audit.log\n");
        if (!dir && !audit) {
            f.ok({"remember", "claim " + token}); // a clean write between points
            continue;
        }
        sawDir |= dir;
        sawAudit |= audit;
        INFO("fsync " << n << " on " << said << "stdout: " << r.out);
        CHECK(r.exitCode == 1);
        json e = r.parsed();
        CHECK(e["data"]["kind"] == "StorageError");
        CHECK(e["data"]["errno"] == "EIO");
        CHECK_FALSE(f.recalled(token));
        checkStores(f);
        // The fault is gone: the same write goes through.
        f.ok({"remember", "claim " + token});
        CHECK(f.recalled(token));
    }
    CHECK(sawDir);
    CHECK(sawAudit);
}

// A long-lived server meets the fault in the middle of a session: the write
// that met it is refused with a StorageError, nothing of it is served, and
// the same session's next write goes through.
TEST_CASE("faults: engram serve refuses the write that met a fault and keeps serving",
          "[e2e][fault]") {
    int refused = 0;
    for (int n = 1; n <= 12; ++n) {
        TempDir root, home;
        copySampleWorkspace(root.path());
        std::string report = home.path() + "/fault-report";
        Server server({home.path(),
                       {},
                       {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM, "ENGRAM_FAULT_CLASS=fsync",
                        "ENGRAM_FAULT_AT=" + std::to_string(n), "ENGRAM_FAULT_ERRNO=ENOSPC",
                        "ENGRAM_FAULT_UNDER=" + root.path(), "ENGRAM_FAULT_REPORT=" + report},
                       {}});
        server.initialize(root.path());
        std::string word = wordFor("serve", n);
        json first = server.request("engram/remember", rememberParams("claim " + word));
        json second = server.request("engram/remember", rememberParams("again " + word));
        INFO("fsync " << n << "\nfirst: " << first.dump() << "\nsecond: " << second.dump());
        REQUIRE(second.contains("result")); // one fault, then the disk is fine
        json rows = server.request("engram/recall", {{"query", word}})["result"]["rows"];
        std::string texts = rows.dump();
        if (first.contains("error")) {
            ++refused;
            CHECK(first["error"]["code"] == -32020);
            CHECK(first["error"]["data"]["kind"] == "StorageError");
            // SQLite does not always keep the errno behind its I/O errors.
            if (first["error"]["data"].contains("errno"))
                CHECK(first["error"]["data"]["errno"] == "ENOSPC");
            CHECK(texts.find("claim " + word) == std::string::npos);
        } else {
            CHECK(texts.find("claim " + word) != std::string::npos);
        }
        CHECK(texts.find("again " + word) != std::string::npos);
        CHECK(server.running());
    }
    CHECK(refused >= 3); // the claim file's, its directory's and the audit log's syncs
}

// A store on a read-only file system (a checkout mounted read-only, another
// user's clone): every write-side call under it fails with EROFS. It is read
// from a fresh clone's state (no index, no lock file): recall, status and
// check answer from its files; every write is refused with a StorageError
// naming the store, and nothing in it changes.
TEST_CASE("faults: a read-only store answers reads and refuses writes", "[e2e][fault]") {
    Fixture f;
    std::string id = idOf(f.ok({"remember", "the quokka cache is read after the token check"}));
    std::string store = f.root.path() + "/.engram";
    for (auto& e : fs::directory_iterator(store))
        if (e.path().filename().string().rfind("index.sqlite", 0) == 0 ||
            e.path().filename() == "lock")
            fs::remove(e.path());
    auto listing = [&] {
        std::vector<std::string> names;
        for (auto& e : fs::recursive_directory_iterator(store))
            names.push_back(e.path().string() + ":" +
                            (e.is_regular_file() ? std::to_string(e.file_size()) : "dir"));
        std::sort(names.begin(), names.end());
        return names;
    };
    auto before = listing();
    std::vector<std::string> readOnly = {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM,
                                         "ENGRAM_FAULT_CLASS=readonly",
                                         "ENGRAM_FAULT_UNDER=" + store};

    CliResult recall = f.run({"recall", "quokka"}, readOnly);
    INFO("recall: " << describe(recall));
    REQUIRE(recall.exitCode == 0);
    CHECK(contains(recall.out, "the quokka cache is read after the token check"));

    CliResult status = f.run({"status"}, readOnly);
    INFO("status: " << describe(status));
    REQUIRE(status.exitCode == 0);
    json project = status.parsed()["envelope"]["store"][0];
    CHECK(project["tier"] == "project");
    CHECK(project["exists"] == true);
    CHECK(project["index_ready"] == true);
    CHECK(project["claims"]["committed"] == 2);
    CHECK(project["read_only"] == true);

    CliResult check = f.run({"check"}, readOnly);
    INFO("check: " << describe(check));
    CHECK(check.exitCode == 0);

    for (std::vector<std::string> write :
         {std::vector<std::string>{"remember", "a claim nobody can keep"},
          std::vector<std::string>{"retract", id, "--reason", "r"},
          std::vector<std::string>{"learn", id, "correct"}}) {
        CliResult r = f.run(write, readOnly);
        INFO(write[0] << ": " << describe(r));
        CHECK(r.exitCode == 1);
        json e = r.parsed();
        CHECK(e["data"]["kind"] == "StorageError");
        CHECK(e["data"]["errno"] == "EROFS");
        CHECK(contains(e["message"].get<std::string>(), "cannot be written"));
    }
    CHECK(listing() == before);

    // engram serve on the same store: reads answer, the write is refused,
    // the session goes on.
    Server server({f.home.path(), {}, readOnly, {}});
    server.initialize(f.root.path());
    json refused = server.request("engram/remember", rememberParams("refused claim"));
    INFO(refused.dump());
    REQUIRE(refused.contains("error"));
    CHECK(refused["error"]["code"] == -32020);
    json rows = server.request("engram/recall", {{"query", "quokka"}})["result"]["rows"];
    CHECK(rows.dump().find("quokka cache") != std::string::npos);
    CHECK(server.running());
    CHECK(listing() == before);
}

// A rebuild of the index, the first write's set-up (init), the packet
// signing key and an instruction file's stamps (refused: no trace): a fault in a rebuild leaves the
// store answering as before; set-up and the key, stopped half-way, complete when run again, and a
// key is never left half-written (a signed packet verifies).
TEST_CASE("faults: reindex, init and the packet key", "[e2e][fault]") {
    Fixture f;
    std::string held = wordFor("held", 1);
    f.ok({"remember", "claim " + held, "--anchor", "src/auth.py#TokenValidator.validate"});
    WritePath reindex{
        [](Fixture&, const std::string&) { return std::vector<std::string>{"reindex"}; },
        [&](Fixture& fx, const std::string&) { return fx.recalled(held); }};
    reindex.kind = WritePath::Unchanged;
    injectEverywhere(reindex, f, "reindex");

    // init registers the merge driver in the clone's git config (git runs
    // under the fault too) and writes .engram/.gitattributes.
    REQUIRE(runGit(f.root.path(), {"init", "-q", "-b", "main"}).exitCode == 0);
    WritePath init{[](Fixture& fx, const std::string&) {
                       fs::remove(fx.root.path() + "/.engram/.gitattributes");
                       return std::vector<std::string>{"init"};
                   },
                   [](Fixture& fx, const std::string&) {
                       json again = fx.ok({"init"});
                       return fs::exists(fx.root.path() + "/.engram/.gitattributes") &&
                              again["attributes"] == true && again["driver"] == true;
                   }};
    init.kind = WritePath::Repeatable;
    injectEverywhere(init, f, "init");

    WritePath key{[](Fixture& fx, const std::string& t) {
                      fs::remove_all(fx.home.path() + "/keys");
                      return std::vector<std::string>{"delegate", "--task", "check " + t, "--sign"};
                  },
                  [](Fixture& fx, const std::string& t) {
                      json packet = fx.ok({"delegate", "--task", "verify " + t, "--sign"});
                      json verdict = fx.ok({"verify-packet", "-"}, packet.dump());
                      return verdict["valid"] == true;
                  }};
    key.kind = WritePath::Repeatable;
    injectEverywhere(key, f, "packet key");

    // An instruction file's stamps (a file of their own and an audit entry):
    // one new instruction file per attempt, so each leaves its own trace.
    WritePath stamp{
        [](Fixture& fx, const std::string& t) {
            fs::create_directories(fx.root.path() + "/docs/" + t);
            spew(fx.root.path() + "/docs/" + t + "/AGENTS.md",
                 "Use `src/auth.py#TokenValidator.validate`.\n");
            return std::vector<std::string>{"reverify", "--file", "docs/" + t + "/AGENTS.md"};
        },
        [](Fixture& fx, const std::string& t) {
            return fs::exists(fx.root.path() + "/.engram/verified/docs/" + t + "/AGENTS.md.stamps");
        }};
    injectEverywhere(stamp, f, "reverify --file");
    WARN(f.points << " fault points");
    CHECK(f.points > 10);
}

// A crash at every write-side call of a write, not only an error: the
// process kills itself just before its n-th write, fsync or rename under the
// store (the shim's ENGRAM_FAULT_KILL), for every n. After each, what the
// index answers (counts by status, anchor health, a file's anchors) equals
// what an index rebuilt from the files answers, and every claim file parses.
// A claim's index row and its anchors were once written as separate
// commits: a crash between them left a row no later stat would look at.
TEST_CASE("faults: a crash at any call of a write leaves an index that agrees with a rebuild",
          "[e2e][fault]") {
    Fixture f;
    auto view = [&] {
        json st = f.ok({"status"});
        json anchored = f.ok({"anchors", "src/auth.py"});
        std::vector<std::string> ids;
        for (auto& a : anchored["anchors"])
            ids.push_back(a["claim_id"].get<std::string>() + " " +
                          a["anchor_state"].get<std::string>());
        std::sort(ids.begin(), ids.end());
        return json{{"health", st["anchor_health"]},
                    {"claims", st["envelope"]["store"][0]["claims"]},
                    {"anchors", ids}};
    };
    int crashes = 0;
    for (const char* cls : {"write", "fsync", "rename"}) {
        for (int n = 1; n <= 200; n += faultStride()) {
            std::string token = wordFor(std::string("crash") + cls, n);
            f.ok({"remember", "first " + token, "--label", "l" + token, "--anchor",
                  "src/auth.py#TokenValidator.validate"});
            // A supersession (history file, claim file, index, audit) under the crash.
            CliResult r = f.run({"remember", "second " + token, "--label", "l" + token, "--anchor",
                                 "src/auth.py#ValidationResult"},
                                {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM,
                                 std::string("ENGRAM_FAULT_CLASS=") + cls,
                                 "ENGRAM_FAULT_AT=" + std::to_string(n), "ENGRAM_FAULT_KILL=1",
                                 "ENGRAM_FAULT_UNDER=" + f.root.path() + "/.engram"});
            if (r.exitCode == 0) break; // fewer than n such calls: it ran to the end
            INFO(cls << " call " << n << ": " << describe(r));
            REQUIRE(r.exitCode == 128 + 9);
            ++crashes;
            json synced = view();
            f.ok({"reindex"});
            json rebuilt = view();
            CHECK(synced == rebuilt);
            for (auto& e : fs::directory_iterator(f.root.path() + "/.engram/claims")) {
                std::string name = e.path().filename();
                if (name.ends_with(".md"))
                    CHECK_NOTHROW(engram::parseClaim(*slurp(e.path()), name.substr(0, 14)));
            }
        }
    }
    WARN(crashes << " crash points");
    CHECK(crashes > 10);
}

// A writer killed between creating its temporary file and renaming it
// leaves the temporary behind. It is never read as a claim; doctor names
// it, and reindex removes it once its writer is gone, but never the
// temporary of a writer that is still running.
TEST_CASE("faults: temporaries of crashed writers are named by doctor and swept by reindex",
          "[e2e][fault]") {
    Fixture f;
    std::string claims = f.root.path() + "/.engram/claims";
    CliResult crashed =
        f.run({"remember", "a claim whose writer dies before its rename"},
              {std::string("LD_PRELOAD=") + ENGRAM_FAULT_SHIM, "ENGRAM_FAULT_CLASS=rename",
               "ENGRAM_FAULT_AT=1", "ENGRAM_FAULT_KILL=1", "ENGRAM_FAULT_UNDER=" + claims});
    REQUIRE(crashed.exitCode != 0);
    std::vector<std::string> left;
    for (auto& e : fs::directory_iterator(claims))
        if (e.path().filename().string().find(".tmp-") != std::string::npos)
            left.push_back(e.path().string());
    REQUIRE(left.size() == 1);
    // Written a minute ago, as the sweep sees a crash some time later.
    auto minuteAgo = fs::file_time_type::clock::now() - std::chrono::minutes(1);
    fs::last_write_time(left[0], minuteAgo);
    // A writer that is running right now (this test's own pid): left alone.
    std::string live = claims + "/c-inflight0001.md.tmp-" + std::to_string(::getpid()) + "-1";
    spew(live, "---\nid: c-inflight0001\n---\nhalf");

    json doctor = f.run({"doctor"}).parsed();
    bool named = false;
    for (auto& c : doctor["checks"])
        if (contains(c.dump(), "1 left by interrupted writes")) named = true;
    CHECK(named);
    json re = f.ok({"reindex"});
    CHECK(re["reports"][0]["temporaries_removed"] == 1);
    CHECK_FALSE(fs::exists(left[0]));
    CHECK(fs::exists(live));
    CHECK_FALSE(f.recalled("dies before its rename"));
    CHECK(contains(f.run({"doctor"}).out, "none left by interrupted writes"));
}

} // namespace e2e_FaultTest
