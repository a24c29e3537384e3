// The agents engram sets itself up in, as recipes of entries in their JSON
// and TOML files (see Setup.h), and the merge that applies, checks or
// removes them.
#include "cli/Setup.h"

#include "cli/ConfigEdit.h"

#include "util/Fs.h"
#include "util/Process.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unistd.h>

namespace engram::cli {

// Ordered: new members go after those a file already has.
using Doc = ConfigDoc;

namespace {

// One of engram's entries in one file: how to put it there (given the
// command that starts engram), take it out, and find the command it runs.
struct Entry {
    std::string file; // relative to the scope's base (the root, or $HOME)
    std::string what; // "the MCP server", "the prompt hook"
    std::function<void(Doc&, const std::string&)> add;
    std::function<void(Doc&)> remove;
    std::function<std::optional<std::string>(const Doc&)> command;
};

struct Recipe {
    const char* name;
    const char* description;
    const char* userDir; // its user configuration's directory: the agent is on this machine
    std::function<std::vector<Entry>(bool user)> entries;
};

// `engram hook`, as any of these files runs it: engram by name or by path.
bool isOurHook(const Doc& command) {
    if (!command.is_string()) return false;
    const std::string& c = command.get_ref<const std::string&>();
    const std::string tail = "engram hook";
    if (c.size() < tail.size() || c.compare(c.size() - tail.size(), tail.size(), tail) != 0)
        return false;
    return c.size() == tail.size() || c[c.size() - tail.size() - 1] == '/';
}

void eraseIfEmpty(Doc& parent, const std::string& key) {
    if (parent.contains(key) && (parent[key].empty() || parent[key].is_null())) parent.erase(key);
}

// {"<servers>": {"engram": {"command": ..., "args": ["mcp"], <extra>}}}
// (in TOML, [<servers>.engram]).
Entry mcpServer(std::string file, std::string servers, Doc extra = Doc::object()) {
    Entry e;
    e.file = std::move(file);
    e.what = "the MCP server";
    e.add = [servers, extra](Doc& j, const std::string& cmd) {
        Doc server = Doc::object();
        if (extra.contains("type")) server["type"] = extra["type"];
        server["command"] = cmd;
        server["args"] = {"mcp"};
        for (auto& [k, v] : extra.items())
            server[k] = v;
        j[servers]["engram"] = std::move(server);
    };
    e.remove = [servers](Doc& j) {
        if (!j.contains(servers) || !j[servers].is_object()) return;
        j[servers].erase("engram");
        eraseIfEmpty(j, servers);
    };
    e.command = [servers](const Doc& j) -> std::optional<std::string> {
        auto s = j.find(servers);
        if (s == j.end() || !s->is_object() || !s->contains("engram")) return std::nullopt;
        const Doc& server = (*s)["engram"];
        if (!server.is_object() || !server.contains("command") || !server["command"].is_string())
            return std::nullopt;
        return server["command"].get<std::string>();
    };
    return e;
}

// Claude Code's hook shape (Codex and Gemini CLI read the same):
// {"hooks": {"<Event>": [{"matcher": ..., "hooks": [{"type": "command",
// "command": "engram hook", "timeout": N}]}]}}. A group holding other
// hooks beside engram's keeps them.
Entry groupedHook(std::string file, std::string event, std::optional<std::string> matcher,
                  int timeout, bool named) {
    Entry e;
    e.file = std::move(file);
    e.what = "the " + event + " hook";
    auto strip = [event](Doc& j) {
        if (!j.contains("hooks") || !j["hooks"].is_object() || !j["hooks"].contains(event) ||
            !j["hooks"][event].is_array())
            return;
        Doc kept = Doc::array();
        for (auto& group : j["hooks"][event]) {
            if (group.is_object() && group.contains("hooks") && group["hooks"].is_array()) {
                Doc hooks = Doc::array();
                for (auto& h : group["hooks"])
                    if (!(h.is_object() && isOurHook(h.value("command", Doc()))))
                        hooks.push_back(h);
                if (hooks.empty() && !group["hooks"].empty()) continue; // engram's alone
                group["hooks"] = std::move(hooks);
            }
            kept.push_back(group);
        }
        j["hooks"][event] = std::move(kept);
        eraseIfEmpty(j["hooks"], event);
        eraseIfEmpty(j, "hooks");
    };
    e.remove = strip;
    e.add = [strip, event, matcher, timeout, named](Doc& j, const std::string& cmd) {
        strip(j);
        Doc hook = {{"type", "command"}, {"command", cmd + " hook"}, {"timeout", timeout}};
        if (named) hook["name"] = "engram";
        Doc group = {{"hooks", Doc::array({std::move(hook)})}};
        if (matcher) group["matcher"] = *matcher;
        j["hooks"][event].push_back(std::move(group));
    };
    e.command = [event](const Doc& j) -> std::optional<std::string> {
        auto h = j.find("hooks");
        if (h == j.end() || !h->is_object() || !h->contains(event) || !(*h)[event].is_array())
            return std::nullopt;
        for (auto& group : (*h)[event])
            if (group.is_object() && group.contains("hooks") && group["hooks"].is_array())
                for (auto& hook : group["hooks"])
                    if (hook.is_object() && isOurHook(hook.value("command", Doc()))) {
                        std::string c = hook["command"];
                        return c.substr(0, c.size() - 5); // without " hook"
                    }
        return std::nullopt;
    };
    return e;
}

// A list of commands per event, no groups: Cursor's {"version": 1,
// "hooks": {"sessionStart": [{"command": ..., "timeout": N}]}} and VS
// Code's {"hooks": {"SessionStart": [{"type": "command", "command": ...}]}}.
Entry flatHook(std::string file, std::string event, int timeout, bool cursor) {
    Entry e;
    e.file = std::move(file);
    e.what = "the " + event + " hook";
    auto strip = [event, cursor](Doc& j) {
        if (!j.contains("hooks") || !j["hooks"].is_object() || !j["hooks"].contains(event) ||
            !j["hooks"][event].is_array())
            return;
        Doc kept = Doc::array();
        for (auto& h : j["hooks"][event])
            if (!(h.is_object() && isOurHook(h.value("command", Doc())))) kept.push_back(h);
        j["hooks"][event] = std::move(kept);
        eraseIfEmpty(j["hooks"], event);
        eraseIfEmpty(j, "hooks");
        if (cursor && j.size() == 1 && j.contains("version")) j.erase("version"); // engram's alone
    };
    e.remove = strip;
    e.add = [strip, event, timeout, cursor](Doc& j, const std::string& cmd) {
        strip(j);
        if (cursor && !j.contains("version")) j["version"] = 1;
        Doc hook = Doc::object();
        if (!cursor) hook["type"] = "command";
        hook["command"] = cmd + " hook";
        hook["timeout"] = timeout;
        j["hooks"][event].push_back(std::move(hook));
    };
    e.command = [event](const Doc& j) -> std::optional<std::string> {
        auto h = j.find("hooks");
        if (h == j.end() || !h->is_object() || !h->contains(event) || !(*h)[event].is_array())
            return std::nullopt;
        for (auto& hook : (*h)[event])
            if (hook.is_object() && isOurHook(hook.value("command", Doc()))) {
                std::string c = hook["command"];
                return c.substr(0, c.size() - 5);
            }
        return std::nullopt;
    };
    return e;
}

// VS Code's user directory (its user mcp.json lives there).
#ifdef __APPLE__
constexpr const char* kVsCodeUser = "Library/Application Support/Code/User";
#else
constexpr const char* kVsCodeUser = ".config/Code/User";
#endif

const std::vector<Recipe>& recipes() {
    static const std::vector<Recipe> list = {
        {"claude-code", "Claude Code: the MCP server, and the session-start and prompt hooks",
         ".claude",
         [](bool user) {
             std::string settings = ".claude/settings.json";
             return std::vector<Entry>{
                 mcpServer(user ? ".claude.json" : ".mcp.json", "mcpServers"),
                 groupedHook(settings, "SessionStart", "startup|resume|clear|compact", 10, false),
                 groupedHook(settings, "UserPromptSubmit", std::nullopt, 5, false)};
         }},
        {"codex",
         "Codex: the MCP server, and the session-start and prompt hooks (Codex asks once "
         "to trust new hooks, and reads a project's .codex/ only in a trusted project)",
         ".codex",
         [](bool) {
             std::string hooks = ".codex/hooks.json";
             return std::vector<Entry>{
                 mcpServer(".codex/config.toml", "mcp_servers"),
                 groupedHook(hooks, "SessionStart", "startup|resume|clear", 10, false),
                 groupedHook(hooks, "UserPromptSubmit", std::nullopt, 5, false)};
         }},
        {"copilot",
         "GitHub Copilot CLI: the MCP server (its session-start and prompt hooks cannot "
         "add context, so none is written)",
         ".copilot",
         [](bool user) {
             Doc extra = {{"type", "local"}, {"tools", {"*"}}};
             return std::vector<Entry>{mcpServer(
                 user ? ".copilot/mcp-config.json" : ".github/mcp.json", "mcpServers", extra)};
         }},
        {"cursor",
         "Cursor: the MCP server, and the session-start hook (Cursor's hooks add "
         "context at session start only)",
         ".cursor",
         [](bool) {
             return std::vector<Entry>{mcpServer(".cursor/mcp.json", "mcpServers"),
                                       flatHook(".cursor/hooks.json", "sessionStart", 10, true)};
         }},
        {"gemini", "Gemini CLI: the MCP server, and the session-start and prompt hooks", ".gemini",
         [](bool) {
             std::string settings = ".gemini/settings.json";
             return std::vector<Entry>{mcpServer(settings, "mcpServers"),
                                       groupedHook(settings, "SessionStart", "*", 10000, true),
                                       groupedHook(settings, "BeforeAgent", "*", 5000, true)};
         }},
        {"vscode",
         "VS Code's agent (Copilot Chat): the MCP server, and the session-start hook "
         "(its prompt hook cannot add context; it also runs Claude Code's hooks, so set "
         "up one of the two in a project)",
         kVsCodeUser,
         [](bool user) {
             return std::vector<Entry>{
                 mcpServer(user ? std::string(kVsCodeUser) + "/mcp.json" : ".vscode/mcp.json",
                           "servers", Doc{{"type", "stdio"}}),
                 flatHook(user ? ".copilot/hooks/engram.json" : ".github/hooks/engram.json",
                          "SessionStart", 10, false)};
         }},
    };
    return list;
}

const Recipe* recipeNamed(const std::string& name) {
    for (auto& r : recipes())
        if (name == r.name) return &r;
    return nullptr;
}

std::string agentNames() {
    std::string out;
    for (auto& r : recipes())
        out += (out.empty() ? "" : ", ") + std::string(r.name);
    return out;
}

// How the files start engram: by name when PATH finds this binary (the
// configuration then survives a reinstall elsewhere on PATH), else by path.
std::string engramCommand() {
    std::string self = selfExecutable();
    if (auto found = findOnPath("engram")) {
        std::error_code ec;
        if (self.empty() || std::filesystem::equivalent(*found, self, ec)) return "engram";
    }
    return self.empty() ? "engram" : self;
}

// Whether the command a file names still starts something.
bool commandExists(const std::string& command) {
    if (command.find('/') == std::string::npos) return findOnPath(command).has_value();
    return ::access(command.c_str(), X_OK) == 0;
}

bool isToml(const std::string& file) {
    return file.size() > 5 && file.compare(file.size() - 5, 5, ".toml") == 0;
}

struct Loaded {
    std::optional<std::string> text; // nullopt: no such file
    Doc value = Doc::object();
    std::string problem; // why it cannot be edited
};

bool blank(const std::optional<std::string>& text) {
    return !text || text->find_first_not_of(" \t\r\n") == std::string::npos;
}

Loaded load(const std::string& path, const std::string& shown) {
    Loaded l;
    l.text = readFile(path);
    if (blank(l.text)) return l;
    const bool asToml = isToml(path);
    try {
        l.value = asToml ? tomlfile::parse(*l.text) : jsonc::parse(*l.text);
    } catch (const ConfigError& e) {
        l.problem = shown + " line " + std::to_string(e.line) + ": not valid " +
                    (asToml ? "TOML" : "JSON") + " (" + e.what() + "); left as it was";
        return l;
    }
    if (!l.value.is_object()) l.problem = shown + ": not a JSON object; left as it was";
    return l;
}

// What a file will hold: `next` spliced into what it holds, keeping its
// comments and layout; nullopt when that cannot be done faithfully.
std::optional<std::string> edited(const std::string& file, const Loaded& l, const Doc& next) {
    const bool asToml = isToml(file);
    if (blank(l.text)) return asToml ? tomlfile::edit("", next) : next.dump(2) + "\n";
    if (asToml) return tomlfile::edit(*l.text, next);
    if (auto out = jsonc::edit(*l.text, next)) return out;
    // A plain JSON file the splicer could not edit is written out anew:
    // nothing of it is lost but its layout.
    if (!jsonc::hasComments(*l.text)) return next.dump(2) + "\n";
    return std::nullopt;
}

// A file holding nothing but what engram takes out goes (comments stay).
bool holdsNothing(const std::string& file, const Doc& next, const std::string& text) {
    if (!next.empty()) return false;
    if (isToml(file)) return blank(text);
    return !jsonc::hasComments(text);
}

// `diff -u` of what a file holds and what it would hold.
std::string diffOf(const std::string& shown, const std::string& before, const std::string& after) {
    namespace fs = std::filesystem;
    std::string dir =
        (fs::temp_directory_path() / ("engram-setup-" + std::to_string(::getpid()))).string();
    makeDirs(dir);
    atomicWrite(dir + "/a", before);
    atomicWrite(dir + "/b", after);
    auto r = runProcess(
        {"diff", "-u", "--label", "a/" + shown, "--label", "b/" + shown, dir + "/a", dir + "/b"});
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!r) return "(diff is not installed)\n";
    return r->out;
}

} // namespace

SetupResult runSetup(const SetupRequest& req) {
    SetupResult out;
    if (req.list) {
        for (auto& r : recipes()) {
            out.text += std::string(r.name) + ": " + r.description + "\n";
            for (bool user : {false, true}) {
                std::string files;
                for (auto& e : r.entries(user))
                    if (files.find(e.file) == std::string::npos)
                        files +=
                            (files.empty() ? "" : ", ") + std::string(user ? "~/" : "") + e.file;
                out.text +=
                    std::string("  --scope ") + (user ? "user:    " : "project: ") + files + "\n";
            }
        }
        return out;
    }
    const Recipe* recipe = recipeNamed(req.agent);
    if (!recipe) {
        out.exitCode = 2;
        out.text = "engram setup: " +
                   (req.agent.empty() ? std::string("name an agent")
                                      : "no agent called '" + req.agent + "'") +
                   "; the agents are " + agentNames() + " (engram setup --list)\n";
        return out;
    }
    if (req.scope != "project" && req.scope != "user") {
        out.exitCode = 2;
        out.text = "engram setup: --scope must be project or user, not '" + req.scope + "'\n";
        return out;
    }
    const bool user = req.scope == "user";
    const std::string base = user ? req.home : req.root;
    if (base.empty()) {
        out.exitCode = 2;
        out.text = "engram setup: no " + std::string(user ? "$HOME" : "workspace root") + "\n";
        return out;
    }
    const std::string cmd = engramCommand();

    // The entries by file, in the order the recipe names the files.
    std::vector<std::pair<std::string, std::vector<Entry>>> byFile;
    for (auto& e : recipe->entries(user)) {
        auto it =
            std::find_if(byFile.begin(), byFile.end(), [&](auto& f) { return f.first == e.file; });
        if (it == byFile.end())
            byFile.push_back({e.file, {e}});
        else
            it->second.push_back(e);
    }
    // Every file is read and judged before any is written: a refused one
    // leaves the others as they were too.
    std::vector<std::pair<std::string, Loaded>> loaded;
    for (auto& [file, entries] : byFile) {
        std::string shown = (user ? "~/" : "") + file;
        loaded.push_back({shown, load(base + "/" + file, shown)});
        if (!loaded.back().second.problem.empty() && !(req.check && !loaded.back().second.text)) {
            out.exitCode = 1;
            out.text += "engram setup: " + loaded.back().second.problem + "\n";
        }
    }
    if (out.exitCode) return out;

    // Every edit made in memory first: a member of another shape than the
    // agent documents (hooks as a list), or a file whose layout the edit
    // cannot keep, refuses the whole setup, nothing written.
    std::vector<Doc> nextDocs;
    std::vector<std::optional<std::string>> texts;
    if (!req.check) {
        for (size_t i = 0; i < byFile.size(); ++i) {
            Doc next = loaded[i].second.value;
            try {
                for (auto& e : byFile[i].second)
                    req.remove ? e.remove(next) : e.add(next, cmd);
            } catch (const Doc::exception& ex) {
                out.exitCode = 1;
                out.text += "engram setup: " + loaded[i].first +
                            " holds a member of another shape than the agent documents (" +
                            ex.what() + "); left as it was\n";
                continue;
            }
            texts.push_back(edited(byFile[i].first, loaded[i].second, next));
            if (!texts.back()) {
                // engram's entries on their own, for a person to merge.
                Doc mine = Doc::object();
                for (auto& e : byFile[i].second)
                    e.add(mine, cmd);
                out.exitCode = 1;
                out.text += "engram setup: " + loaded[i].first +
                            " is laid out in a way engram cannot edit without disturbing it; "
                            "left as it was. engram's entries, to " +
                            (req.remove ? "take out" : "merge") + " by hand:\n" +
                            (isToml(byFile[i].first) ? tomlfile::edit("", mine).value_or("")
                                                     : mine.dump(2) + "\n");
            }
            nextDocs.push_back(std::move(next));
        }
        if (out.exitCode) return out;
    }
    for (size_t i = 0; i < byFile.size(); ++i) {
        auto& [file, entries] = byFile[i];
        auto& [shown, l] = loaded[i];
        const std::string path = base + "/" + file;
        if (req.check) {
            for (auto& e : entries) {
                auto named = e.command(l.value);
                if (!named) {
                    out.exitCode = 1;
                    out.text += "missing " + shown + ": " + e.what + "\n";
                } else if (!commandExists(*named)) {
                    out.exitCode = 1;
                    out.text += "broken  " + shown + ": " + e.what + " runs " + *named +
                                ", which is not there (run engram setup " + req.agent + " again)\n";
                } else {
                    out.text += "ok      " + shown + ": " + e.what + " runs " + *named + "\n";
                }
            }
            continue;
        }
        const Doc& next = nextDocs[i];
        const std::string before = l.text.value_or("");
        const std::string after = *texts[i];
        if (before == after || (blank(l.text) && next.empty())) {
            if (!req.dryRun)
                out.text += (req.remove ? "not there: " : "already set: ") + shown + "\n";
            continue;
        }
        const bool drop = req.remove && holdsNothing(file, next, after);
        if (req.dryRun) {
            out.text += diffOf(shown, before, drop ? "" : after);
            continue;
        }
        if (drop) {
            removeFile(path);
            ::rmdir(parentDir(path).c_str()); // a directory engram's file alone needed
            out.text += "removed " + shown + " (it held only engram's entries)\n";
            continue;
        }
        makeDirs(parentDir(path));
        atomicWrite(path, after);
        std::string whats;
        for (auto& e : entries)
            whats += (whats.empty() ? "" : ", ") + e.what;
        out.text += std::string(req.remove ? "removed " : "wrote ") + whats + " " +
                    (req.remove ? "from " : "to ") + shown + "\n";
    }
    if (!req.check && !req.dryRun && !req.remove) out.text += "engram runs as: " + cmd + "\n";
    return out;
}

std::vector<std::pair<std::string, std::string>> agentsWired(const std::string& root,
                                                             const std::string& home) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& r : recipes()) {
        if (home.empty() || !statFile(home + "/" + r.userDir)) continue;
        std::string where;
        for (const char* scope : {"project", "user"}) {
            SetupRequest q{r.name, scope, root, home, false, true, false, false};
            if (runSetup(q).exitCode == 0)
                where += (where.empty() ? "" : " and ") + std::string(scope);
        }
        out.push_back({r.name, where.empty() ? "found, engram not wired (engram setup " +
                                                   std::string(r.name) + ")"
                                             : "wired at " + where + " scope"});
    }
    return out;
}

} // namespace engram::cli
