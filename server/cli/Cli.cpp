// Subcommand dispatch for the `engram` binary.
#include "cli/Cli.h"

#include "cli/Args.h"
#include "cli/BuildInfo.h"
#include "cli/Check.h"
#include "cli/Generate.h"
#include "cli/Setup.h"
#include "cli/Sync.h"
#include "engine/Engine.h"
#include "engine/Team.h"
#include "index/Index.h"
#include "lsp/LspServer.h"
#include "mcp/McpServer.h"
#include "ops/Hook.h"
#include "ops/Operation.h"
#include "ops/Terminal.h"
#include "ops/op/Ops.h"
#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "secrets/SecretScan.h"
#include "store/AuditLog.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/Store.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Process.h"
#include "util/Progress.h"
#include "util/Time.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <poll.h>
#include <sodium.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace engram::cli {

using protocol::json;

namespace {

// `engram --help`: the operations' own lines (ops/Operations.cpp) between
// these two parts.
const char* kUsageHead = R"(engram: memory for coding agents, anchored to code.

usage: engram [--root DIR] [--home DIR] [--json] COMMAND [ARGS]

commands:
  serve [--stdio] [--log FILE]   run the LSP server on stdio (editors spawn this)
  mcp [--log FILE]               run the MCP server on stdio (agents spawn this); without
      [--structured]             --root or $ENGRAM_ROOT it binds to the client's roots when
      [--output-schemas]         the client shares them, else to the discovered root;
                                 results are text written for a model unless --structured
                                 adds the JSON (structuredContent); --output-schemas also
                                 lists each tool's output schema in tools/list (else
                                 engram://schema/{tool} has them)
)";

const char* kUsageTail =
    R"(  check [--format text|json|sarif] [--fail-on CODES] [--changed-since REF] [--max-findings N]
                                 memory diagnostics for CI: drifted, orphaned and moved
                                 anchors, stale claims, secrets in claim files, claim files
                                 that do not parse (project tier). Exit 0 when no finding
                                 matches --fail-on, 1 when one does, 2 on a usage or
                                 configuration error. CODES: comma-separated codes
                                 (engram.drifted, engram.orphaned, engram.moved,
                                 engram.conflict, engram.stale, engram.secret,
                                 engram.invalid, engram.unmerged, engram.dangling,
                                 engram.unjudged) and/or
                                 severities (error, warning, information, hint: that
                                 severity and above), or 'none'. Default:
                                 engram.drifted,engram.orphaned,engram.secret,engram.invalid,
                                 engram.unmerged. --changed-since REF: only claims changed
                                 since the merge base of REF and HEAD, and claims anchored to
                                 files changed since then (a pull request).
                                 --max-findings N: list at most N (default 1000; 0 lists
                                 all); counts and the exit code cover every finding.
                                 --json means --format json
  init                           prepare the workspace for a team: .engram/ with a
                                 .gitattributes naming engram's merge driver, and the driver
                                 registered in this clone's git config (once per clone);
                                 builds the code index instruction files are judged with;
                                 after an upgrade, re-stamps anchors of earlier digest
                                 rules whose code git shows unchanged (a recorded act)
  merge-driver BASE OURS THEIRS [PATH]
                                 git's merge driver for claim files (registered by init;
                                 git runs it, people need not)
  hook [--event session-start|prompt] [--format auto|claude|cursor|text] [--max-chars N]
       [--prompt TEXT] [--floor strict|loose|none] [--repeat]
                                 for an agent harness's session-start and prompt hooks: a
                                 bounded memory slice (at most N bytes, default 8000) for
                                 the harness to add to the agent's context: the claims that
                                 clear the relevance floor (strict by default; loose: a
                                 packet's, more answers and more noise; none: rank
                                 alone fills the slice), each once per
                                 session (the harness's session id) unless it changed or
                                 --repeat.
                                 Reads the harness's JSON on stdin (event, prompt, cwd,
                                 session); prints Claude Code's hookSpecificOutput JSON
                                 (also Codex, VS Code, Gemini CLI), Cursor's, or text.
                                 Exit 1 on errors, never 2 (a harness reads 2 as "block
                                 the prompt")
  team add NAME URL | team list  a team store: memory shared by a team's repositories, a
                                 clone of URL under $ENGRAM_HOME/teams/NAME (a new store is
                                 pushed to an empty repository). A workspace reads the teams
                                 its committed .engram/store.conf names (teams: NAME, ...);
                                 others only when a recall's tier is team:NAME or all
  sync [NAME...]                 for the medulla (with a remote) and each team store: commit
                                 engram's own writes (the medulla's), fetch, merge with
                                 engram's merge driver, push what is ours (the medulla's
                                 branch, proposal branches). Answers never wait on this;
                                 offline, they come from the local clone and say how old it
                                 is. Exit 1 when a store could not be synced
  medulla remote URL             keep the medulla in a git repository of your own, so every
                                 machine you work on shares it (its claims are committed and
                                 merged with what the repository holds)
  reindex                        rebuild the indexes from the claim files
  doctor                         check grammars, stores, indexes and audit logs
  setup AGENT [--scope project|user] [--check] [--dry-run] [--remove]
       | setup --list
                                 wire engram into an agent (claude-code, codex, copilot,
                                 cursor, gemini, vscode):
                                 its MCP server and hooks, merged into the agent's own
                                 files at project (default) or user scope, nothing else
                                 touched; again changes nothing; --check: is it wired and
                                 does the binary it names exist; --dry-run: the diff;
                                 --remove: engram's entries out again
  completions bash|zsh|fish      print a shell completion script (installed with engram)
  man                            print this manual as a man page (roff)

global flags:
  --root DIR    workspace root (default: $ENGRAM_ROOT, else the nearest ancestor
                holding .engram/ or .git/, else the current directory)
  --home DIR    engram's home for the medulla (default: $ENGRAM_HOME, else
                $XDG_DATA_HOME/engram, else ~/.local/share/engram)
  --json        machine-readable output
  --version, --help

exit codes: 0 ok, 1 findings or refusal, 2 usage error
)";

std::string usage() {
    std::string out = kUsageHead;
    for (auto& op : ops::operations())
        if (!op.cli.name.empty()) out += op.cli.help;
    return out + kUsageTail;
}

struct Context {
    Args args;
    std::string root, rootSource, home;
    bool json = false;
};

// Progress of long work on standard error while this command runs, when a
// person watches it: standard error is a terminal and --json was not given.
struct Meter {
    progress::TerminalMeter meter;
    progress::Scope scope;
    explicit Meter(const std::string& label)
        : meter(label, stderr)
        , scope([this](const std::string& what, int64_t done, int64_t total, int64_t bytes) {
            meter(what, done, total, bytes);
        }) {}
};

std::unique_ptr<Meter> progressOn(const Context& ctx, const std::string& label) {
    if (ctx.json || !::isatty(STDERR_FILENO)) return nullptr;
    return std::make_unique<Meter>(label);
}

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

EngineOptions engineOptions(const Context& ctx) {
    return {ctx.root, ctx.rootSource, ctx.home, 30, ENGRAM_VERSION};
}

Engine makeEngine(const Context& ctx) {
    return Engine(engineOptions(ctx));
}

template <class T>
T number(const std::string& flag, const std::string& v) {
    T out{};
    auto r = std::from_chars(v.data(), v.data() + v.size(), out);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size())
        throw UsageError(flag + ": '" + v + "' is not a number");
    return out;
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

// ---- operations (ops/Operations.cpp) --------------------------------------
// The words and flags become the operation's JSON parameters, which the
// same parser as on the wire then judges; its complaints are told back in
// terms of the flag or word they came from.

std::string readStdin() {
    return std::string(std::istreambuf_iterator<char>(std::cin), {});
}

void applyFlag(json& params, const ops::Flag& f, const Args& args) {
    using K = ops::FlagKind;
    auto value = [&](const std::string& v) -> json { return f.convert ? f.convert(v) : json(v); };
    switch (f.kind) {
    case K::Switch:
        if (args.has(f.name)) params[f.param] = f.value;
        return;
    case K::Texts:
        if (auto all = args.all(f.name); !all.empty()) {
            json list = json::array();
            for (auto& v : all)
                list.push_back(value(v));
            params[f.param] = std::move(list);
        }
        return;
    case K::Integer:
        if (auto v = args.get(f.name)) params[f.param] = number<int64_t>(f.name, *v);
        return;
    case K::Number:
        if (auto v = args.get(f.name)) params[f.param] = number<double>(f.name, *v);
        return;
    case K::Text:
        if (auto v = args.get(f.name)) params[f.param] = value(*v);
        return;
    }
}

json operationParams(const ops::Command& cmd, const Args& args) {
    json params = cmd.preset.is_object() ? cmd.preset : json::object();
    const auto& words = args.positionals;
    if (cmd.input) {
        cmd.input(params, words);
    } else {
        size_t used = 0;
        for (auto& p : cmd.positionals) {
            if (used >= words.size()) break;
            if (!p.rest) {
                params[p.param] = words[used++];
                continue;
            }
            std::vector<std::string> rest(words.begin() + long(used), words.end());
            params[p.param] = rest.size() == 1 && rest[0] == "-" ? readStdin() : joined(rest);
            used = words.size();
        }
        if (used < words.size())
            throw UsageError(std::string(cmd.name) + ": unexpected argument '" + words[used] + "'");
    }
    for (auto& f : cmd.flags)
        applyFlag(params, f, args);
    return params;
}

// The word or flag a parameter path ("kinds[1]", "anchors[0].path") came
// from: "--kind", "ID", "VERDICT (or --verdict)".
std::string sourceOf(const ops::Command& cmd, const std::string& field) {
    std::string param = field.substr(0, field.find_first_of(".["));
    std::string word, flag;
    for (auto& p : cmd.positionals)
        if (param == p.param) word = p.display;
    for (auto& f : cmd.flags)
        if (param == f.param) flag = f.name;
    if (!word.empty() && !flag.empty()) return word + " (or " + flag + ")";
    return word.empty() ? flag : word;
}

int runOperation(const Context& ctx, const ops::Operation& op) {
    const ops::Command& cmd = op.cli;
    try {
        json params = operationParams(cmd, ctx.args);
        std::optional<Engine> engine;
        ops::Call call;
        call.bind = [&]() -> Engine& {
            if (!engine) engine.emplace(engineOptions(ctx));
            return *engine;
        };
        call.defaultAgent = defaultAgent();
        call.terminal = !ctx.json;
        auto meter = progressOn(ctx, cmd.name);
        ops::Outcome out = op.run(call, params);
        meter.reset(); // its last line before the answer
        print(ctx, out.value, out.text ? *out.text : op.render(out.value));
        return out.refused ? 1 : 0;
    } catch (const EngramError& e) {
        if (e.kind != ErrorKind::InvalidParams) throw;
        for (auto& [key, value] : e.details) {
            const auto* field = std::get_if<std::string>(&value);
            if (key != "field" || !field) continue;
            std::string source = sourceOf(cmd, *field);
            std::string message = e.what();
            if (source.empty() || message.rfind(*field + ": ", 0) != 0) break;
            // Still InvalidParams (as JSON under --json), in the CLI's terms.
            std::string problem = message.substr(field->size() + 2);
            bool phrase = problem.rfind("is ", 0) == 0 || problem.rfind("must ", 0) == 0;
            throw EngramError(
                ErrorKind::InvalidParams,
                std::string(cmd.name) + ": " + source + (phrase ? " " : ": ") + problem, e.details);
        }
        throw;
    }
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

// Standard input up to `max` bytes, or what came before it went quiet for
// `quietMs` (a harness writes its JSON and closes; a terminal or a pipe held
// open by a parent must not hang a hook). Nothing is read from a terminal.
std::string readHookStdin(size_t max, int quietMs) {
    std::string out;
    if (isatty(STDIN_FILENO)) return out;
    char buf[65536];
    for (;;) {
        pollfd p{STDIN_FILENO, POLLIN, 0};
        int r = poll(&p, 1, quietMs);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, size_t(n));
        if (out.size() > max)
            throw invalidField("stdin", "is larger than " + std::to_string(max) + " bytes");
    }
    return out;
}

int cmdHook(Context ctx) {
    // Every failure exits 1: harnesses read exit 2 as "block this prompt",
    // and a memory hook must never stop an agent.
    try {
        if (!ctx.args.positionals.empty())
            throw UsageError("hook: unexpected argument '" + ctx.args.positionals[0] + "'");
        std::string format = ctx.args.get("--format").value_or("auto");
        if (format != "auto" && format != "claude" && format != "cursor" && format != "text")
            throw UsageError("--format: '" + format + "' is not one of auto, claude, cursor, text");
        size_t maxChars = ops::kHookDefaultChars;
        if (auto m = ctx.args.get("--max-chars")) {
            auto n = number<int64_t>("--max-chars", *m);
            if (n < int64_t(ops::kHookMinChars) || n > int64_t(ops::kHookMaxChars))
                throw UsageError("--max-chars: " + *m + " is not between " +
                                 std::to_string(ops::kHookMinChars) + " and " +
                                 std::to_string(ops::kHookMaxChars));
            maxChars = size_t(n);
        }
        ops::HookInput in = ops::parseHookInput(readHookStdin(size_t(1) << 20, 2000));
        if (auto e = ctx.args.get("--event")) {
            in.event = ops::hookEvent(*e);
            if (in.event.empty())
                throw UsageError("--event: '" + *e + "' is not session-start or prompt");
        }
        if (auto p = ctx.args.get("--prompt")) in.prompt = *p;
        if (auto f = ctx.args.get("--floor")) {
            if (*f != "strict" && *f != "loose" && *f != "none")
                throw UsageError("--floor: '" + *f + "' is not strict, loose or none");
            in.looseFloor = *f == "loose";
            in.noFloor = *f == "none";
        }
        // The harness says where the agent works (a worktree, a subdirectory);
        // an explicit --root or $ENGRAM_ROOT still wins.
        struct stat st {};
        if (ctx.rootSource == "discovered" && !in.cwd.empty() && ::stat(in.cwd.c_str(), &st) == 0 &&
            S_ISDIR(st.st_mode))
            ctx.root = discoverRoot(canonicalPath(in.cwd));
        // It runs on every prompt: a large store whose claims directory is
        // as last known is answered from its index without a stat of every
        // claim file, as a server answers (claims served are still checked
        // against their files); the sweep for files rewritten in place is
        // left to the next server or command.
        EngineOptions options = engineOptions(ctx);
        options.backgroundReconcile = true;
        options.sweepOnOpen = false;
        Engine engine(options);
        // The claims given per session live beside the medulla; without a
        // home (or with --repeat) every prompt gets every relevant claim.
        std::string sessions = options.home.empty() || ctx.args.has("--repeat")
                                   ? ""
                                   : joinPath(options.home, "hook-sessions");
        std::string context = ops::hookContext(engine, in, maxChars, sessions);
        std::cout << ops::hookOutput(in, format, context);
        std::cout.flush();
        return 0;
    } catch (const UsageError& e) {
        std::cerr << "engram hook: " << e.what() << "\n";
    } catch (const EngramError& e) {
        std::cerr << "engram hook: " << toString(e.kind) << ": " << e.what() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "engram hook: internal error: " << e.what() << "\n";
    }
    return 1;
}

int cmdCheck(const Context& ctx) {
    if (!ctx.args.positionals.empty())
        throw UsageError("check: unexpected argument '" + ctx.args.positionals[0] + "'");
    CheckOptions opts;
    if (auto f = ctx.args.get("--format"))
        opts.format = *f;
    else if (ctx.json)
        opts.format = "json";
    if (auto f = ctx.args.get("--fail-on")) {
        opts.failOn = *f;
        opts.failOnGiven = true;
    }
    if (auto r = ctx.args.get("--changed-since")) {
        if (r->empty() || (*r)[0] == '-')
            throw UsageError("--changed-since: '" + *r + "' is not a git ref");
        opts.changedSince = *r;
    }
    if (auto m = ctx.args.get("--max-findings")) {
        if (m->empty() || m->size() > 9 || m->find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--max-findings: '" + *m +
                             "' is not a whole number (0 lists every finding)");
        opts.maxFindings = std::stoll(*m);
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
    // The code index instruction files' names are looked up in, built once
    // here so that recall and the hook (which never walk the workspace)
    // judge them from the start.
    auto meter = progressOn(ctx, "init");
    auto code = engine.indexCode([](size_t done, size_t total) {
        progress::report("source files", int64_t(done), int64_t(total));
    });
    meter.reset();
    human += "code index: " + std::to_string(code.files) + " source files, " +
             std::to_string(code.parsed) + " parsed\n";
    // And what git says of the instruction files' lines, asked once here and
    // kept, so recall and the hook judge their references without git.
    engine.scanInstructions();
    // After an upgrade: anchors stamped by earlier digest rules that git
    // shows unchanged are stamped again with today's (a recorded act each).
    auto r = engine.restamp();
    // And the anchors' health, counted once here and kept per file in the
    // index, so a server's first status and the session-start hook read it
    // rather than checking every anchor.
    (void)engine.status(std::nullopt, false);
    if (r.restamped)
        human += "re-stamped " + std::to_string(r.restamped) + " anchor(s) of " +
                 std::to_string(r.claims) +
                 " claim(s) stamped by an earlier engram's digest rules, their code unchanged "
                 "since (audit: restamp); commit .engram/\n";
    if (r.drifted)
        human += std::to_string(r.drifted) +
                 " anchor(s) stamped by earlier digest rules changed since: engram check lists "
                 "them\n";
    if (r.unjudged)
        human += std::to_string(r.unjudged) +
                 " anchor(s) stamped by earlier digest rules could not be re-derived from git: "
                 "engram check says why\n";
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
           {"problem", s.problem},
           {"code_index", {{"files", code.files}, {"parsed", code.parsed}}},
           {"restamp",
            {{"restamped", r.restamped},
             {"claims", r.claims},
             {"drifted", r.drifted},
             {"unjudged", r.unjudged}}}},
          human);
    return !s.git || s.problem.empty() ? 0 : 1;
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

int cmdSetup(const Context& ctx) {
    SetupRequest req;
    req.list = ctx.args.has("--list");
    if (!req.list) {
        if (ctx.args.positionals.size() != 1)
            throw UsageError("setup: name one agent (engram setup --list shows them)");
        req.agent = ctx.args.positionals[0];
    }
    req.scope = ctx.args.get("--scope").value_or("project");
    req.root = ctx.root;
    if (const char* h = std::getenv("HOME")) req.home = h;
    req.check = ctx.args.has("--check");
    req.dryRun = ctx.args.has("--dry-run");
    req.remove = ctx.args.has("--remove");
    if (req.check && (req.remove || req.dryRun))
        throw UsageError("setup: --check goes alone (not with --remove or --dry-run)");
    auto r = runSetup(req);
    (r.exitCode == 2 ? std::cerr : std::cout) << r.text;
    return r.exitCode;
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
    // What this build writes, and what the project's anchors were stamped
    // with: an upgrade that changes the digest rules shows here first.
    check("formats", true,
          "engram " + std::string(ENGRAM_VERSION) + " (commit " + buildCommit() +
              ") writes index schema " + std::to_string(Index::kSchemaVersion) +
              " and stamps anchors with digest rules " + std::to_string(syntax::kDigestRules));
    Engine engine = makeEngine(ctx);
    std::string stamped;
    for (auto& [rules, n] : engine.anchorRules())
        stamped +=
            (stamped.empty() ? "" : ", ") + std::to_string(n) +
            (rules == 0 ? " before rules were recorded" : " with rules " + std::to_string(rules));
    check("anchor digests", true,
          stamped.empty() ? "no anchored claims in the project" : "anchors stamped " + stamped);
    auto st = engine.status();
    for (auto& s : st.envelope.stores) {
        const bool team = s.tier.starts_with("team:");
        check(s.tier + " store", s.error.empty(),
              !s.exists && team ? s.path + " is not added on this machine: engram team add " +
                                      s.tier.substr(5) + " URL"
              : !s.exists       ? s.path + " does not exist yet"
              : s.error.empty() ? s.path + ": " + std::to_string(s.committed) + " live claims"
                                : s.error);
        // A store in a repository of its own: its remote, its last sync,
        // and the merge driver its clone needs for two machines' writes.
        if (s.exists && s.sync) {
            const auto& y = *s.sync;
            check(s.tier + " sync", y.error.empty(),
                  (y.error.empty() ? "" : "the last sync failed: " + y.error + "; ") +
                      "a clone of " + y.remote + ", last synced " + agoText(y.lastSync) +
                      (y.pending.empty() ? ""
                                         : ", " + std::to_string(y.pending.size()) +
                                               " waiting to be pushed (engram sync)"));
            auto driver = registerMergeDriver(s.path, false);
            check(s.tier + " merge driver", driver.usable,
                  driver.usable ? "claim files merge with " + *driver.command
                                : "this clone does not register a runnable merge driver: "
                                  "merges fall back to git's line merge (engram sync "
                                  "registers it again when run from this engram)");
        }
        if (s.exists) {
            auto v = AuditLog(s.path + "/audit.log").verify();
            check(s.tier + " audit log", v.ok,
                  v.ok ? std::to_string(v.entries) + " entries, chain intact"
                       : "entry " + std::to_string(v.brokenAt) + ": " + v.problem);
            // Harmless (never read as claims), so not a failure: named so
            // that they do not pile up unseen.
            auto tmp = Store(s.path, s.tier, "").temporaries();
            check(s.tier + " temporary files", true,
                  tmp.stale.empty() ? "none left by interrupted writes"
                                    : std::to_string(tmp.stale.size()) +
                                          " left by interrupted writes (engram reindex "
                                          "removes them)");
        }
    }
    std::string confProblems;
    for (auto& e : engine.configErrors())
        confProblems += (confProblems.empty() ? "" : "; ") + e;
    check("store.conf", confProblems.empty(), confProblems.empty() ? "no problems" : confProblems);
    int64_t broken = 0; // st.brokenFiles lists only the first ones
    for (auto& s : st.envelope.stores)
        broken += s.brokenFiles;
    check("claim files", broken == 0,
          broken == 0 ? "all parse" : std::to_string(broken) + " broken");
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
    // The agents on this machine (their user configuration exists), and
    // whether engram is wired into each: information, not a failure.
    if (const char* h = std::getenv("HOME"))
        for (auto& [agent, state] : agentsWired(ctx.root, h))
            check("agent " + agent, true, state);
    human += renderConfusion(confusion);
    print(ctx, {{"ok", ok}, {"checks", checks}, {"confusion", ops::status::toJson(confusion)}},
          human);
    return ok ? 0 : 1;
}

} // namespace

int run(int argc, char** argv) {
    if (sodium_init() < 0) {
        std::cerr << "engram: libsodium failed to initialise\n";
        return 2;
    }
    const CommandTable table = commandTable();
    Context ctx;
    try {
        ctx.args = parseArgs(argc, argv, table.commands, table.global);
    } catch (const UsageError& e) {
        std::cerr << "engram: " << e.what() << "\n(see engram --help)\n";
        return 2;
    }
    if (ctx.args.has("--version")) {
        std::cout << "engram " << ENGRAM_VERSION << " (commit " << buildCommit() << ")\n";
        return 0;
    }
    if (ctx.args.has("--help") || ctx.args.command == "help") {
        std::cout << usage();
        return 0;
    }
    if (ctx.args.command == "man") {
        std::cout << manPage(usage(), ENGRAM_VERSION);
        return 0;
    }
    if (ctx.args.command == "completions") {
        try {
            if (ctx.args.positionals.size() != 1)
                throw UsageError("completions: name one shell: bash, zsh or fish");
            std::cout << completionScript(ctx.args.positionals[0], table);
        } catch (const UsageError& e) {
            std::cerr << "engram: " << e.what() << "\n(see engram --help)\n";
            return 2;
        }
        return 0;
    }
    if (ctx.args.command.empty()) {
        std::cerr << usage();
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
            mcp::McpOptions mo{ctx.root, ctx.rootSource, ctx.home, ENGRAM_VERSION};
            mo.outputSchemas = ctx.args.has("--output-schemas");
            // A declared output schema obliges structured results (MCP).
            mo.structured = mo.outputSchemas || ctx.args.has("--structured");
            mcp::McpServer server(std::move(mo));
            return server.run();
        }
        // `reverify --file PATH[:LINE]`: an instruction file, not a claim.
        if (c == "reverify" && ctx.args.get("--file")) {
            if (!ctx.args.positionals.empty())
                throw UsageError("reverify: give a claim ID or --file PATH, not both");
            return runOperation(ctx, *ops::byName("reverify_file"));
        }
        if (auto* op = ops::byCommand(c)) return runOperation(ctx, *op);
        if (c == "team" || c == "sync" || c == "medulla") {
            SyncCommand sc{ctx.root, ctx.home, ctx.args.positionals, ctx.json};
            return c == "team" ? cmdTeam(sc) : c == "sync" ? cmdSync(sc) : cmdMedulla(sc);
        }
        if (c == "check") return cmdCheck(ctx);
        if (c == "hook") return cmdHook(ctx);
        if (c == "init") return cmdInit(ctx);
        if (c == "merge-driver") return cmdMergeDriver(ctx);
        if (c == "doctor") return cmdDoctor(ctx);
        if (c == "setup") return cmdSetup(ctx);
    } catch (const UsageError& e) {
        // Errors quote the words given; a secret among them is not echoed.
        std::cerr << "engram: " << secrets::redacted(e.what()) << "\n";
        return 2;
    } catch (const EngramError& e) {
        if (ctx.json) {
            std::cout << protocol::errorReply(nullptr, e)["error"].dump(2) << "\n";
        } else {
            std::cerr << "engram: " << toString(e.kind) << ": " << secrets::redacted(e.what())
                      << "\n";
        }
        return e.kind == ErrorKind::InvalidParams ? 2 : 1;
    } catch (const std::exception& e) {
        std::cerr << "engram: internal error: " << secrets::redacted(e.what()) << "\n";
        return 1;
    }
    return 2;
}

} // namespace engram::cli
