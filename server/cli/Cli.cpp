// Subcommand dispatch for the `engram` binary.
#include "cli/Cli.h"

#include "cli/Args.h"
#include "cli/Check.h"
#include "cli/Render.h"
#include "engine/Engine.h"
#include "lsp/Log.h"
#include "lsp/LspServer.h"
#include "mcp/McpServer.h"
#include "mcp/Render.h"
#include "model/Error.h"
#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "store/AuditLog.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/Store.h"
#include "syntax/Languages.h"
#include "util/Fs.h"
#include "util/Paths.h"
#include "util/Process.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sodium.h>
#include <sstream>

namespace engram::cli {

using protocol::json;

namespace {

const char* kUsage = R"(engram: memory for coding agents, anchored to code.

usage: engram [--root DIR] [--home DIR] [--json] COMMAND [ARGS]

commands:
  serve [--stdio] [--log FILE]   run the LSP server on stdio (editors spawn this)
  mcp [--log FILE]               run the MCP server on stdio (agents spawn this); without
                                 --root or $ENGRAM_ROOT it binds to the client's roots when
                                 the client shares them, else to the discovered root
  remember TEXT...               record a claim (TEXT '-' reads standard input)
      [--label L] [--kind fact|decision|convention|gotcha|preference|todo]
      [--tag T]... [--confidence 0..1] [--agent NAME] [--tier project|medulla]
      [--anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH]...
      [--evidence TYPE:VALUE]... [--force-reason R]
  recall [QUERY...]              find claims [--tier project|medulla|all] [--path P] [--kind K]...
      [--include frontier|retracted|superseded]... [--limit N] [--max-chars N]
  get ID                         one claim with its history
  promote ID --reason R          copy a project claim into the medulla, your memory across
                                 projects [--agent NAME]
  retract ID --reason R          withdraw a claim [--agent NAME]
  learn ID VERDICT               record correct|wrong|partial [--note N] [--agent NAME]
  reverify ID                    re-stamp a claim's anchors after checking it against the
                                 changed code [--note N] [--agent NAME]
  delegate --task T               a bounded, content-addressed memory packet for a sub-agent
      [--path P]... [--symbol S]... [--max-items N] [--max-chars N] [--sign] [--agent NAME]
  contribute [FILE|-]            a sub-agent's findings (JSON: an array of items, or
      [--agent NAME] [--packet-id ID]   {"items": [...]}), stored as frontier claims for review;
                                 exit 1 when an item was refused (a secret)
  review ID accept|reject --reason R   accept or reject a contribution [--agent NAME]
  verify-packet FILE|-           check a packet's hash, signature, binding and age
      [--lifetime SECONDS]       (default 86400); exit 0 valid, 1 invalid
  status                         the bound root, stores, counts, anchor health and the inbox
  report --class C --what W      report memory that misled you (or anything about engram):
      C = memory_misdelivery (with --kind leak|false_absence|wrong_store_write|
      misattribution|vanished and --expected E) | field_report | answer (with
      --answers ID... and, to close them, --resolution confirmed|fixed|
      not_confirmed|duplicate|wont_fix); [--excerpt X] [--external] [--agent NAME];
      about the bound root (--root DIR), or --no-project (the medulla's inbox)
  inbox [--state S] [--all]      reports filed about this project with their states (open,
                                 in_progress, answered, external, answer); --all: every box
                                 on this machine and reports waiting for their project
  check [--format text|json|sarif] [--fail-on CODES] [--changed-since REF]
                                 memory diagnostics for CI: drifted, orphaned and moved
                                 anchors, stale claims, secrets in claim files, claim files
                                 that do not parse (project tier). Exit 0 when no finding
                                 matches --fail-on, 1 when one does, 2 on a usage or
                                 configuration error. CODES: comma-separated codes
                                 (engram.drifted, engram.orphaned, engram.moved,
                                 engram.conflict, engram.stale, engram.secret,
                                 engram.invalid, engram.unmerged) and/or
                                 severities (error, warning, information, hint: that
                                 severity and above), or 'none'. Default:
                                 engram.drifted,engram.orphaned,engram.secret,engram.invalid,
                                 engram.unmerged. --changed-since REF: only claims changed
                                 since the merge base of REF and HEAD, and claims anchored to
                                 files changed since then (a pull request).
                                 --json means --format json
  init                           prepare the workspace for a team: .engram/ with a
                                 .gitattributes naming engram's merge driver, and the driver
                                 registered in this clone's git config (once per clone)
  resolve ID [--take T]          settle a claim a merge left diverged or unmerged (git
                                 conflict markers): keep the merge rule's live version, or
                                 T = ours | theirs | VERSION; every other version goes to
                                 history [--agent NAME]
  merge-driver BASE OURS THEIRS [PATH]
                                 git's merge driver for claim files (registered by init;
                                 git runs it, people need not)
  reindex                        rebuild the indexes from the claim files
  doctor                         check grammars, stores, indexes and audit logs

global flags:
  --root DIR    workspace root (default: $ENGRAM_ROOT, else the nearest ancestor
                holding .engram/ or .git/, else the current directory)
  --home DIR    engram's home for the medulla (default: $ENGRAM_HOME, else
                $XDG_DATA_HOME/engram, else ~/.local/share/engram)
  --json        machine-readable output
  --version, --help

exit codes: 0 ok, 1 findings or refusal, 2 usage error
)";

struct Context {
    Args args;
    std::string root, rootSource, home;
    bool json = false;
};

std::string defaultHome() {
    if (const char* h = std::getenv("ENGRAM_HOME"); h && *h) return h;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/engram";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.local/share/engram";
    return "";
}

std::string defaultAgent() {
    if (const char* a = std::getenv("ENGRAM_AGENT"); a && *a) return a;
    const char* user = std::getenv("USER");
    return std::string("human:") + (user && *user ? user : "unknown");
}

Engine makeEngine(const Context& ctx) {
    return Engine({ctx.root, ctx.rootSource, ctx.home, 30, ENGRAM_VERSION});
}

template <class T>
T number(const std::string& flag, const std::string& v) {
    T out{};
    auto r = std::from_chars(v.data(), v.data() + v.size(), out);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size())
        throw UsageError(flag + ": '" + v + "' is not a number");
    return out;
}

// --anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH
AnchorSpec parseAnchorFlag(const std::string& v) {
    AnchorSpec a;
    if (auto hash = v.find('#'); hash != std::string::npos) {
        a.path = v.substr(0, hash);
        a.symbol = v.substr(hash + 1);
        if (a.path.empty() || a.symbol->empty()) throw UsageError("--anchor: expected PATH#SYMBOL");
        return a;
    }
    auto colon = v.rfind(':');
    if (colon != std::string::npos && colon + 1 < v.size()) {
        std::string spec = v.substr(colon + 1);
        bool numeric = spec.find_first_not_of("0123456789-") == std::string::npos;
        if (numeric) {
            a.path = v.substr(0, colon);
            auto dash = spec.find('-');
            if (dash == std::string::npos) {
                a.line = number<int>("--anchor", spec);
            } else {
                a.lines = std::make_pair(number<int>("--anchor", spec.substr(0, dash)),
                                         number<int>("--anchor", spec.substr(dash + 1)));
            }
            return a;
        }
    }
    a.path = v;
    return a;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (auto& p : parts)
        out += (out.empty() ? "" : " ") + p;
    return out;
}

int print(const Context& ctx, const json& j, const std::string& human) {
    if (ctx.json)
        std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    else
        std::cout << human;
    return 0;
}

int cmdRemember(const Context& ctx) {
    RememberRequest r;
    if (ctx.args.positionals.size() == 1 && ctx.args.positionals[0] == "-") {
        r.text.assign(std::istreambuf_iterator<char>(std::cin), {});
    } else {
        r.text = joined(ctx.args.positionals);
    }
    if (r.text.empty()) throw UsageError("remember: give the claim text (or '-' to read stdin)");
    r.label = ctx.args.get("--label");
    r.kind = ctx.args.get("--kind");
    r.tags = ctx.args.all("--tag");
    if (auto c = ctx.args.get("--confidence")) r.confidence = number<double>("--confidence", *c);
    r.agent = ctx.args.get("--agent").value_or(defaultAgent());
    for (auto& a : ctx.args.all("--anchor"))
        r.anchors.push_back(parseAnchorFlag(a));
    for (auto& e : ctx.args.all("--evidence")) {
        auto colon = e.find(':');
        if (colon == std::string::npos) throw UsageError("--evidence: expected TYPE:VALUE");
        r.evidence.push_back({e.substr(0, colon), e.substr(colon + 1)});
    }
    r.tier = ctx.args.get("--tier").value_or("project");
    r.forceReason = ctx.args.get("--force-reason").value_or("");
    Engine engine = makeEngine(ctx);
    auto result = engine.remember(r);
    return print(ctx, protocol::toJson(result), renderRemember(result));
}

int cmdRecall(const Context& ctx) {
    RecallRequest r;
    if (!ctx.args.positionals.empty()) r.query = joined(ctx.args.positionals);
    r.tier = ctx.args.get("--tier");
    r.path = ctx.args.get("--path");
    r.kinds = ctx.args.all("--kind");
    for (auto& k : r.kinds)
        if (!isKnownKind(k)) throw UsageError("--kind: unknown kind '" + k + "'");
    for (auto& s : ctx.args.all("--include")) {
        auto st = parseStatus(s);
        if (!st || *st == ClaimStatus::Committed)
            throw UsageError("--include: must be frontier, retracted or superseded");
        r.include.push_back(*st);
    }
    if (auto l = ctx.args.get("--limit")) r.limit = number<int>("--limit", *l);
    if (auto m = ctx.args.get("--max-chars")) r.maxChars = number<int>("--max-chars", *m);
    Engine engine = makeEngine(ctx);
    auto result = engine.recall(r);
    print(ctx, protocol::toJson(result), renderRecall(result));
    return 0;
}

std::string oneId(const Context& ctx, const char* cmd) {
    if (ctx.args.positionals.empty()) throw UsageError(std::string(cmd) + ": give a claim id");
    return ctx.args.positionals[0];
}

int cmdGet(const Context& ctx) {
    Engine engine = makeEngine(ctx);
    auto r = engine.get(oneId(ctx, "get"));
    return print(ctx, protocol::toJson(r), renderGet(r));
}

int cmdRetract(const Context& ctx) {
    auto reason = ctx.args.get("--reason");
    if (!reason) throw UsageError("retract: --reason is required");
    Engine engine = makeEngine(ctx);
    auto c = engine.retract(oneId(ctx, "retract"), ctx.args.get("--agent").value_or(defaultAgent()),
                            *reason);
    return print(ctx, {{"claim", protocol::toJson(c)}}, "Retracted: " + renderClaimLine(c) + "\n");
}

int cmdLearn(const Context& ctx) {
    if (ctx.args.positionals.size() < 2 && !ctx.args.get("--verdict"))
        throw UsageError("learn: give a claim id and a verdict (correct, wrong or partial)");
    std::string verdict =
        ctx.args.get("--verdict")
            .value_or(ctx.args.positionals.size() > 1 ? ctx.args.positionals[1] : "");
    Engine engine = makeEngine(ctx);
    auto r =
        engine.learn(oneId(ctx, "learn"), verdict, ctx.args.get("--agent").value_or(defaultAgent()),
                     ctx.args.get("--note").value_or(""));
    auto& f = r.claim.feedback;
    return print(ctx, protocol::toJson(r),
                 "Recorded '" + verdict + "' for " + r.claim.id + ": " + std::to_string(f.correct) +
                     " correct, " + std::to_string(f.wrong) + " wrong, " +
                     std::to_string(f.partial) + " partial" +
                     (f.contested() ? " (contested)" : "") + "\n");
}

int cmdPromote(const Context& ctx) {
    auto reason = ctx.args.get("--reason");
    if (!reason)
        throw UsageError("promote: --reason is required (why it holds beyond this project)");
    Engine engine = makeEngine(ctx);
    auto r = engine.promote(
        {oneId(ctx, "promote"), ctx.args.get("--agent").value_or(defaultAgent()), *reason});
    return print(ctx, protocol::toJson(r), renderPromote(r));
}

int cmdReverify(const Context& ctx) {
    Engine engine = makeEngine(ctx);
    auto r =
        engine.reverify(oneId(ctx, "reverify"), ctx.args.get("--agent").value_or(defaultAgent()),
                        ctx.args.get("--note").value_or(""));
    return print(ctx, protocol::toJson(r), "Re-verified: " + renderGet(r));
}

std::string readInput(const std::string& what, const std::string& file) {
    if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UsageError(what + ": cannot read '" + file + "'");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

json parseInput(const std::string& what, const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw UsageError(what + ": the input is not valid JSON");
    return j;
}

int cmdDelegate(const Context& ctx) {
    DelegateRequest r;
    r.task = ctx.args.get("--task").value_or(joined(ctx.args.positionals));
    if (r.task.empty()) throw UsageError("delegate: give the task (--task T)");
    r.agent = ctx.args.get("--agent").value_or(defaultAgent());
    r.paths = ctx.args.all("--path");
    r.symbols = ctx.args.all("--symbol");
    if (auto n = ctx.args.get("--max-items")) r.maxItems = number<int>("--max-items", *n);
    if (auto n = ctx.args.get("--max-chars")) r.maxChars = number<int>("--max-chars", *n);
    r.sign = ctx.args.has("--sign");
    Engine engine = makeEngine(ctx);
    json answer = protocol::delegate(engine, r);
    return print(ctx, answer, renderPacket(answer["packet"]));
}

int cmdContribute(const Context& ctx) {
    std::string file = ctx.args.positionals.empty() ? "-" : ctx.args.positionals[0];
    json in = parseInput("contribute", readInput("contribute", file));
    json params = in.is_array() ? json{{"items", in}} : in;
    if (!params.is_object())
        throw UsageError("contribute: expected an array of items or an object");
    params["agent"] = ctx.args.get("--agent").value_or(
        params.contains("agent") && params["agent"].is_string() ? params["agent"].get<std::string>()
                                                                : defaultAgent());
    if (auto id = ctx.args.get("--packet-id")) params["packet_id"] = *id;
    Engine engine = makeEngine(ctx);
    auto r = engine.contribute(protocol::parseContribute(params));
    print(ctx, protocol::toJson(r), renderContribute(r));
    return r.refused > 0 ? 1 : 0;
}

int cmdReview(const Context& ctx) {
    if (ctx.args.positionals.size() != 2)
        throw UsageError("review: give a contribution id and accept or reject");
    auto reason = ctx.args.get("--reason");
    if (!reason) throw UsageError("review: --reason is required");
    Engine engine = makeEngine(ctx);
    auto r = engine.review({ctx.args.positionals[0], ctx.args.positionals[1],
                            ctx.args.get("--agent").value_or(defaultAgent()), *reason});
    return print(ctx, protocol::toJson(r), renderReview(r));
}

int cmdVerifyPacket(const Context& ctx) {
    if (ctx.args.positionals.size() != 1)
        throw UsageError("verify-packet: give the packet file (or '-' for standard input)");
    json packet = parseInput("verify-packet", readInput("verify-packet", ctx.args.positionals[0]));
    protocol::VerifyPacketRequest req;
    req.packet = std::move(packet);
    if (auto l = ctx.args.get("--lifetime")) {
        req.lifetimeSeconds = number<int64_t>("--lifetime", *l);
        if (req.lifetimeSeconds < 1) throw UsageError("--lifetime: must be positive");
    }
    Engine engine = makeEngine(ctx);
    auto r = protocol::verifyPacket(engine, req);
    print(ctx, protocol::toJson(r), renderVerifyPacket(r));
    return r.valid ? 0 : 1;
}

// The confusion rate, a line per ISO week (engram doctor).
std::string renderConfusion(const std::vector<ConfusionWeek>& weeks) {
    std::string out = "confusion rate by ISO week (confirmed misdelivery reports per 1,000 "
                      "recalls served):\n";
    if (weeks.empty()) return out + "  no recalls or reports counted yet\n";
    for (auto& w : weeks) {
        char rate[32] = "-";
        if (w.perThousand) std::snprintf(rate, sizeof rate, "%.2f", *w.perThousand);
        out += "  " + w.week + ": " + std::to_string(w.confirmed) + " confirmed, " +
               std::to_string(w.recalls) + " recalls, " + std::to_string(w.liveClaims) +
               " live claims, rate " + rate + "\n";
    }
    return out;
}

int cmdStatus(const Context& ctx) {
    Engine engine = makeEngine(ctx);
    auto r = engine.status();
    json j = protocol::toJson(r);
    if (ctx.json) j["confusion"] = protocol::toJson(engine.confusionSeries());
    return print(ctx, j, renderStatus(r));
}

// Reports and the inbox render as the MCP tools do: one text for both.
int cmdReport(const Context& ctx) {
    if (!ctx.args.positionals.empty())
        throw UsageError("report: unexpected argument '" + ctx.args.positionals[0] +
                         "' (say what happened with --what)");
    ReportRequest r;
    r.reportClass = ctx.args.get("--class").value_or("");
    if (r.reportClass.empty()) throw UsageError("report: --class is required");
    r.kind = ctx.args.get("--kind").value_or("");
    r.what = ctx.args.get("--what").value_or("");
    if (r.what.empty()) throw UsageError("report: --what is required (what happened)");
    r.expected = ctx.args.get("--expected").value_or("");
    r.excerpt = ctx.args.get("--excerpt").value_or("");
    r.agent = ctx.args.get("--agent").value_or(defaultAgent());
    r.answers = ctx.args.all("--answers");
    r.external = ctx.args.has("--external");
    r.resolution = ctx.args.get("--resolution").value_or("");
    // The report concerns the bound root (--root chooses it) unless it is
    // about no project.
    if (ctx.args.has("--no-project")) r.root = "none";
    Engine engine = makeEngine(ctx);
    json j = protocol::toJson(engine.report(r));
    return print(ctx, j, mcp::render::report(j));
}

int cmdInbox(const Context& ctx) {
    InboxRequest r;
    r.state = ctx.args.get("--state");
    r.all = ctx.args.has("--all");
    Engine engine = makeEngine(ctx);
    json j = protocol::toJson(engine.inbox(r));
    return print(ctx, j, mcp::render::inbox(j));
}

int cmdCheck(const Context& ctx) {
    if (!ctx.args.positionals.empty())
        throw UsageError("check: unexpected argument '" + ctx.args.positionals[0] + "'");
    CheckOptions opts;
    if (auto f = ctx.args.get("--format"))
        opts.format = *f;
    else if (ctx.json)
        opts.format = "json";
    if (auto f = ctx.args.get("--fail-on")) opts.failOn = *f;
    if (auto r = ctx.args.get("--changed-since")) {
        if (r->empty() || (*r)[0] == '-')
            throw UsageError("--changed-since: '" + *r + "' is not a git ref");
        opts.changedSince = *r;
    }
    parseFailOn(opts.failOn); // usage errors before any work
    Engine engine = makeEngine(ctx);
    try {
        return runCheck(engine, opts);
    } catch (const UsageError&) {
        throw;
    } catch (const std::exception& e) {
        // Exit 1 means findings; a check that could not run is exit 2.
        std::cerr << "engram check: could not complete: " << e.what() << "\n";
        return 2;
    }
}

int cmdInit(const Context& ctx) {
    if (!ctx.args.positionals.empty())
        throw UsageError("init: unexpected argument '" + ctx.args.positionals[0] + "'");
    Engine engine = makeEngine(ctx);
    Store(engine.projectDir(), "project", "").ensureLayout();
    auto s = engine.teamSetup(true);
    std::string human = "engram store: " + engine.projectDir() + "\n";
    if (!s.git)
        human += "not a git repository: memory works; run engram init again once the "
                 "workspace is in git to set up the merge driver\n";
    else if (s.problem.empty())
        human += (s.wrote.empty() ? std::string("already set up: ")
                                  : "wrote " + joined(s.wrote) + "; ") +
                 "claim files merge with " + s.driverCommand +
                 "\ncommit .engram/ (with its .gitattributes); each teammate runs engram init "
                 "once in their clone\n";
    else
        human += s.problem + "\n";
    json wrote = json::array();
    for (auto& w : s.wrote)
        wrote.push_back(w);
    print(ctx,
          {{"store", engine.projectDir()},
           {"git", s.git},
           {"attributes", s.attributes},
           {"driver", s.driver},
           {"driver_command", s.driverCommand},
           {"wrote", wrote},
           {"problem", s.problem}},
          human);
    return !s.git || s.problem.empty() ? 0 : 1;
}

int cmdResolve(const Context& ctx) {
    Engine engine = makeEngine(ctx);
    auto r = engine.resolve(oneId(ctx, "resolve"), ctx.args.get("--take").value_or(""),
                            ctx.args.get("--agent").value_or(defaultAgent()));
    return print(ctx, protocol::toJson(r), "Resolved: " + renderGet(r));
}

// git runs this with the ancestor's, ours and theirs' temporary files and
// the path; the merged claim goes into OURS. Exit 0: merged; anything else
// tells git the file is conflicted.
int cmdMergeDriver(const Context& ctx) {
    auto& p = ctx.args.positionals;
    if (p.size() < 3 || p.size() > 4)
        throw UsageError("merge-driver: give BASE OURS THEIRS [PATH] (git passes %O %A %B %P)");
    std::string path = p.size() == 4 ? p[3] : p[1];
    std::string name = path.substr(path.find_last_of('/') + 1);
    // claims/<id>.md, or history/<id>.v<N>[.<digest>].md
    size_t cut = name.ends_with(".md") ? name.size() - 3 : name.size();
    if (path.find("history/") != std::string::npos && name.find(".v") != std::string::npos)
        cut = name.find(".v");
    std::string id = name.substr(0, cut);
    if (!Store::validId(id)) id.clear();
    auto base = readFile(p[0]), ours = readFile(p[1]), theirs = readFile(p[2]);
    if (!ours || !theirs) {
        std::cerr << "engram merge-driver: cannot read " << (!ours ? p[1] : p[2]) << "\n";
        return 2;
    }
    try {
        std::string merged = mergeClaimFiles(base.value_or(""), *ours, *theirs, id);
        atomicWrite(p[1], merged);
        return 0;
    } catch (const ClaimFileError& e) {
        // A side engram cannot read (a hand edit gone wrong): git's own line
        // merge, so a person sees the conflict; engram reads the markers.
        std::cerr << "engram merge-driver: " << path << ": " << e.what()
                  << "; falling back to git's line merge\n";
        auto r = runProcess(
            {"git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", p[1], p[0], p[2]});
        return r && r->exitCode == 0 ? 0 : 1;
    }
}

int cmdReindex(const Context& ctx) {
    Engine engine = makeEngine(ctx);
    json reports = json::array();
    std::string human;
    for (auto& r : engine.reindex()) {
        reports.push_back(protocol::toJson(r));
        human += "reindexed: " + std::to_string(r.added) + " claims, " + std::to_string(r.broken) +
                 " broken files\n";
    }
    if (reports.empty()) human = "no stores to index\n";
    return print(ctx, {{"reports", reports}}, human);
}

int cmdDoctor(const Context& ctx) {
    json checks = json::array();
    std::string human;
    bool ok = true;
    auto check = [&](const std::string& name, bool pass, const std::string& detail) {
        checks.push_back({{"check", name}, {"ok", pass}, {"detail", detail}});
        human += std::string(pass ? "ok   " : "FAIL ") + name + ": " + detail + "\n";
        ok &= pass;
    };
    static const std::map<std::string, std::string> samples = {
        {"python", "def f():\n    return 1\n"},
        {"javascript", "function f() { return 1; }\n"},
        {"typescript", "function f(): number { return 1; }\n"},
        {"tsx", "const A = () => <div/>;\n"},
        {"c", "int f(void) { return 1; }\n"},
        {"cpp", "namespace n { int f() { return 1; } }\n"},
        {"go", "package p\nfunc F() int { return 1 }\n"},
        {"rust", "fn f() -> i32 { 1 }\n"},
        {"java", "class A { int f() { return 1; } }\n"},
    };
    for (auto& lang : syntax::languages()) {
        auto it = samples.find(lang.name);
        auto kind =
            it == samples.end() ? std::nullopt : syntax::parseRootKind(lang.name, it->second);
        check("grammar " + lang.name, kind.has_value(),
              kind ? "parses (ABI " + std::to_string(lang.abiVersion) + ", root " + *kind + ")"
                   : "does not parse its sample");
    }
    Engine engine = makeEngine(ctx);
    auto st = engine.status();
    for (auto& s : st.envelope.stores) {
        check(s.tier + " store", s.error.empty(),
              !s.exists         ? s.path + " does not exist yet"
              : s.error.empty() ? s.path + ": " + std::to_string(s.committed) + " live claims"
                                : s.error);
        if (s.exists) {
            auto v = AuditLog(s.path + "/audit.log").verify();
            check(s.tier + " audit log", v.ok,
                  v.ok ? std::to_string(v.entries) + " entries, chain intact"
                       : "entry " + std::to_string(v.brokenAt) + ": " + v.problem);
        }
    }
    check("store.conf", engine.configErrors().empty(),
          engine.configErrors().empty() ? "no problems" : engine.configErrors().front());
    check("claim files", st.brokenFiles.empty(),
          st.brokenFiles.empty() ? "all parse" : std::to_string(st.brokenFiles.size()) + " broken");
    // Reports waiting for a project that is not on this machine: not a
    // failure (they are filed when it appears), but named.
    auto pending = engine.pendingReports();
    std::string waiting;
    for (auto& [root, n] : pending)
        waiting += (waiting.empty() ? "" : "; ") + std::to_string(n) +
                   (n == 1 ? " report waits for " : " reports wait for ") + root;
    check("reports pending", true, waiting.empty() ? "none" : waiting);
    auto confusion = engine.confusionSeries();
    // A clone that never ran `engram init` merges claim files line by line.
    if (auto team = engine.teamSetup(false); team.git)
        check("git merge driver", team.problem.empty(),
              team.problem.empty() ? "claim files merge with " + team.driverCommand : team.problem);
    human += renderConfusion(confusion);
    print(ctx, {{"ok", ok}, {"checks", checks}, {"confusion", protocol::toJson(confusion)}}, human);
    return ok ? 0 : 1;
}

} // namespace

int run(int argc, char** argv) {
    if (sodium_init() < 0) {
        std::cerr << "engram: libsodium failed to initialise\n";
        return 2;
    }
    FlagSpec global{{"--root", "--home"}, {}, {"--json", "--help", "--version"}};
    std::map<std::string, FlagSpec> commands = {
        {"serve", {{"--log"}, {}, {"--stdio"}}},
        {"mcp", {{"--log"}, {}, {}}},
        {"remember",
         {{"--label", "--kind", "--confidence", "--agent", "--tier", "--force-reason"},
          {"--tag", "--anchor", "--evidence"},
          {}}},
        {"recall", {{"--tier", "--path", "--limit", "--max-chars"}, {"--kind", "--include"}, {}}},
        {"get", {}},
        {"retract", {{"--reason", "--agent"}, {}, {}}},
        {"learn", {{"--verdict", "--note", "--agent"}, {}, {}}},
        {"reverify", {{"--note", "--agent"}, {}, {}}},
        {"promote", {{"--reason", "--agent"}, {}, {}}},
        {"delegate",
         {{"--task", "--agent", "--max-items", "--max-chars"}, {"--path", "--symbol"}, {"--sign"}}},
        {"contribute", {{"--agent", "--packet-id"}, {}, {}}},
        {"review", {{"--reason", "--agent"}, {}, {}}},
        {"verify-packet", {{"--lifetime"}, {}, {}}},
        {"status", {}},
        {"report",
         {{"--class", "--kind", "--what", "--expected", "--excerpt", "--agent", "--resolution"},
          {"--answers"},
          {"--external", "--no-project"}}},
        {"inbox", {{"--state"}, {}, {"--all"}}},
        {"check", {{"--format", "--fail-on", "--changed-since"}, {}, {}}},
        {"init", {}},
        {"resolve", {{"--take", "--agent"}, {}, {}}},
        {"merge-driver", {}},
        {"reindex", {}},
        {"doctor", {}},
        {"help", {}},
    };
    Context ctx;
    try {
        ctx.args = parseArgs(argc, argv, commands, global);
    } catch (const UsageError& e) {
        std::cerr << "engram: " << e.what() << "\n(see engram --help)\n";
        return 2;
    }
    if (ctx.args.has("--version")) {
        std::cout << "engram " << ENGRAM_VERSION << "\n";
        return 0;
    }
    if (ctx.args.has("--help") || ctx.args.command == "help") {
        std::cout << kUsage;
        return 0;
    }
    if (ctx.args.command.empty()) {
        std::cerr << kUsage;
        return 2;
    }
    ctx.json = ctx.args.has("--json");
    if (auto r = ctx.args.get("--root")) {
        ctx.root = canonicalPath(*r);
        ctx.rootSource = "--root";
    } else if (const char* env = std::getenv("ENGRAM_ROOT"); env && *env) {
        ctx.root = canonicalPath(env);
        ctx.rootSource = "ENGRAM_ROOT";
    } else {
        ctx.root = discoverRoot(currentDir());
        ctx.rootSource = "discovered";
    }
    ctx.home = ctx.args.get("--home").value_or(defaultHome());
    if (!ctx.home.empty()) ctx.home = canonicalPath(ctx.home);

    try {
        const std::string& c = ctx.args.command;
        if (c == "serve") {
            if (!openLog(ctx.args.get("--log").value_or(""))) {
                std::cerr << "engram: cannot open log file " << *ctx.args.get("--log") << "\n";
                return 2;
            }
            LspServer server({ctx.root, ctx.rootSource, ctx.home, ENGRAM_VERSION});
            return server.run();
        }
        if (c == "mcp") {
            if (!openLog(ctx.args.get("--log").value_or(""))) {
                std::cerr << "engram: cannot open log file " << *ctx.args.get("--log") << "\n";
                return 2;
            }
            mcp::McpServer server({ctx.root, ctx.rootSource, ctx.home, ENGRAM_VERSION});
            return server.run();
        }
        if (c == "remember") return cmdRemember(ctx);
        if (c == "recall") return cmdRecall(ctx);
        if (c == "get") return cmdGet(ctx);
        if (c == "retract") return cmdRetract(ctx);
        if (c == "learn") return cmdLearn(ctx);
        if (c == "reverify") return cmdReverify(ctx);
        if (c == "promote") return cmdPromote(ctx);
        if (c == "delegate") return cmdDelegate(ctx);
        if (c == "contribute") return cmdContribute(ctx);
        if (c == "review") return cmdReview(ctx);
        if (c == "verify-packet") return cmdVerifyPacket(ctx);
        if (c == "status") return cmdStatus(ctx);
        if (c == "report") return cmdReport(ctx);
        if (c == "inbox") return cmdInbox(ctx);
        if (c == "check") return cmdCheck(ctx);
        if (c == "reindex") return cmdReindex(ctx);
        if (c == "init") return cmdInit(ctx);
        if (c == "resolve") return cmdResolve(ctx);
        if (c == "merge-driver") return cmdMergeDriver(ctx);
        if (c == "doctor") return cmdDoctor(ctx);
    } catch (const UsageError& e) {
        std::cerr << "engram: " << e.what() << "\n";
        return 2;
    } catch (const EngramError& e) {
        if (ctx.json) {
            std::cout << protocol::errorReply(nullptr, e)["error"].dump(2) << "\n";
        } else {
            std::cerr << "engram: " << toString(e.kind) << ": " << e.what() << "\n";
        }
        return e.kind == ErrorKind::InvalidParams ? 2 : 1;
    } catch (const std::exception& e) {
        std::cerr << "engram: internal error: " << e.what() << "\n";
        return 1;
    }
    return 2;
}

} // namespace engram::cli
