// An engine operation, declared once for every surface.
//
// Each operation (remember, recall, report...) is one entry in
// ops/Operations.cpp: its names, what it does to memory, its argument and
// result schemas, the function that parses its parameters and runs it, its
// text for a model, and its command-line form. `engram serve` derives its
// engram/* methods from the table, `engram mcp` its tools, and the CLI its
// subcommands, flags and help; nothing about an operation is written twice.
//
// The parameters are the wire's JSON on every surface: the CLI turns its
// flags into the same object, so protocol/Convert judges every call and a
// field means the same thing whichever way it came.
#pragma once
#include "engine/Engine.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::ops {

using json = nlohmann::json;

enum class Effect {
    Read,        // reads memory only
    Write,       // records an act (a new claim, a version, a verdict, a report)
    Destructive, // withdraws memory from recall (kept on disk, but no longer served)
};

// What one call of an operation runs against, supplied by the surface.
struct Call {
    // The engine, found only once the parameters have parsed: a malformed
    // call is told which field is wrong before anything is routed or opened.
    std::function<Engine&()> bind;
    // Fills `agent` when the parameters leave it out (the MCP client's name,
    // the CLI user); without one, operations that record an act require it.
    std::optional<std::string> defaultAgent;
    // The root the caller named, once bind() has routed the call.
    std::optional<std::string> requestedRoot;
    // Also produce the command line's text (ops/Terminal).
    bool terminal = false;

    Engine& engine() { return bind(); }
};

struct Outcome {
    Outcome(json v, bool refusedPart = false)
        : value(std::move(v))
        , refused(refusedPart) {}
    json value;                      // the result on the wire
    std::optional<std::string> text; // the terminal's text, when it has its own
    bool refused = false;            // part of the request was refused (CLI exit 1)
};

// ---- the command line ------------------------------------------------------

enum class FlagKind {
    Text,    // --flag VALUE
    Texts,   // --flag VALUE, repeatable: an array
    Integer, // --flag N
    Number,  // --flag X (a decimal)
    Switch,  // --flag: sets the parameter to `value` (true by default)
};

struct Flag {
    const char* name;  // "--max-chars"
    const char* param; // "max_chars"
    FlagKind kind = FlagKind::Text;
    // A value with a syntax of its own (--anchor PATH#SYMBOL): its JSON.
    json (*convert)(const std::string& value) = nullptr;
    json value = true; // what a Switch sets
};

struct Positional {
    const char* param;   // "id"
    const char* display; // "ID", as the help shows it
    bool rest = false;   // takes every remaining word, joined by spaces ('-': stdin)
};

struct Command {
    const char* help = ""; // its lines in `engram --help`; none: not on the command line
    std::vector<Positional> positionals = {};
    std::vector<Flag> flags = {};
    // Reads what the words name (a file, standard input) into the
    // parameters; `positionals` then only name them in errors.
    void (*input)(json& params, const std::vector<std::string>& words) = nullptr;
    // Parameters the command always sends (an object, or null).
    json preset = nullptr;
    // Derived: the operation's name in kebab case ("verify-packet"), when
    // it has a help line.
    std::string name = {};
};

// ---- the declaration -------------------------------------------------------

struct Operation {
    const char* name;        // the MCP tool: "verify_packet"
    const char* title;       // a few words, for tool lists
    const char* description; // one line: when an agent should call it
    Effect effect;
    json (*input)();  // argument schema (without `root`, which every surface adds)
    json (*output)(); // result schema
    Outcome (*run)(Call& call, const json& params);
    std::string (*render)(const json& result); // the text a model reads
    // The argument naming the claim the call is about: with several roots
    // and no `root`, the claim's id finds its workspace.
    const char* idArgument = nullptr;
    // Answers for the bound root when asked about one the session does not
    // serve, saying so in its envelope (recall, status, inbox). Every other
    // operation refuses: a write would land in another project's store, and
    // a packet would be bound to a root nobody asked for.
    bool answersUnbound = false;
    // Offered to agents as an MCP tool. Maintenance (reindex) is not: it is
    // on the command line and the LSP only.
    bool agentTool = true;
    Command cli = {};
    // Derived from the name: the LSP method ("engram/verifyPacket").
    std::string method = {};
};

// Every operation, in the order tool lists and `engram --help` show them.
const std::vector<Operation>& operations();
const Operation* byName(std::string_view toolName);
const Operation* byMethod(std::string_view lspMethod);
const Operation* byCommand(std::string_view cliCommand);

// The parameters with `agent` filled from call.defaultAgent when absent.
json withDefaultAgent(const Call& call, const json& params);

} // namespace engram::ops
