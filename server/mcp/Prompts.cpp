// MCP prompts: the two workflows an agent starts from, offered to the
// person driving it (a client lists them as slash commands). Each runs the
// operation it stands for exactly as the tool would (recall, delegate) and
// hands the model one message: what memory holds for the task, and what to
// do with it. A prompt adds no capability of its own: anything it does, the
// tools do.
//
// Arguments of prompts are strings (MCP); `paths` is a comma-separated list.
#include "mcp/McpServer.h"
#include "ops/Operation.h"
#include "protocol/Convert.h"
#include "util/Error.h"
#include "util/Lines.h"

namespace engram::mcp {

using protocol::json;
using protocol::Params;

namespace {

struct Argument {
    const char* name;
    const char* description;
    bool required;
};

struct Prompt {
    const char* name;
    const char* title;
    const char* description;
    std::vector<Argument> arguments;
};

const std::vector<Prompt>& prompts() {
    static const std::vector<Prompt> list = {
        {"before_task",
         "Before a task",
         "What memory holds for a task and the files it touches, read before starting it",
         {{"task", "What you are about to do", true},
          {"path", "The file you will work in (workspace-relative)", false},
          {"symbol", "The function or class you will change", false}}},
        {"hand_off",
         "Hand off to a sub-agent",
         "A delegation packet for a sub-agent's task, with how the sub-agent checks it and "
         "reports back",
         {{"task", "What the sub-agent is asked to do", true},
          {"paths", "Files the task touches, comma-separated", false}}},
    };
    return list;
}

std::vector<std::string> commaList(const std::string& s) {
    std::vector<std::string> out;
    for (auto& item : splitFields(s, ',')) {
        auto first = item.find_first_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
    }
    return out;
}

} // namespace

json McpServer::onPromptsList(const json& params) {
    if (Params(params).optString("cursor"))
        throw invalidField("cursor", "is not a cursor this server gave; the whole list comes "
                                     "in one page");
    json list = json::array();
    for (auto& p : prompts()) {
        json args = json::array();
        for (auto& a : p.arguments)
            args.push_back(
                {{"name", a.name}, {"description", a.description}, {"required", a.required}});
        json j = {{"name", p.name}, {"description", p.description}, {"arguments", args}};
        if (atLeast("2025-06-18")) j["title"] = p.title;
        list.push_back(std::move(j));
    }
    return {{"prompts", std::move(list)}};
}

json McpServer::onPromptsGet(const json& params) {
    Params p(params);
    std::string name = p.reqString("name");
    const Prompt* prompt = nullptr;
    for (auto& candidate : prompts())
        if (name == candidate.name) prompt = &candidate;
    if (!prompt)
        throw invalidField("name", "unknown prompt '" + name +
                                       "'; the prompts are "
                                       "before_task and hand_off");
    json given = json::object();
    if (const json* a = p.optObject("arguments")) given = *a;
    Params args(given, "arguments");
    for (auto& [key, _] : given.items()) {
        bool known = false;
        for (auto& a : prompt->arguments)
            known = known || key == a.name;
        if (!known) throw invalidField("arguments." + key, "is not an argument of " + name);
    }
    std::map<std::string, std::string> value;
    for (auto& a : prompt->arguments) {
        auto v = args.optString(a.name);
        if (a.required && (!v || v->empty()))
            throw invalidField(std::string("arguments.") + a.name, "is required");
        if (v && !v->empty()) value[a.name] = *v;
    }

    std::string text;
    if (name == "before_task") {
        json call = {{"query", value["task"]}};
        if (value.count("path")) call["path"] = value["path"];
        if (value.count("symbol")) call["symbol"] = value["symbol"];
        const ops::Operation& recall = *ops::byName("recall");
        std::string found = recall.render(runStructured(recall, call));
        text = "Before you start on this task: " + value["task"] +
               "\n\nWhat engram's memory holds for it (recall):\n\n" + found +
               "\nRows marked drifted or UNVERIFIED: the code changed since they were "
               "written; check them against the code, then call reverify if they still hold "
               "or retract (with the reason) if not. When you learn something a later session "
               "would need, call remember with one statement anchored to the code it is about "
               "(path#Symbol).\n";
    } else {
        json call = {{"task", value["task"]}};
        if (value.count("paths")) call["paths"] = commaList(value["paths"]);
        const ops::Operation& delegate = *ops::byName("delegate");
        json answer = runStructured(delegate, call);
        std::string id = answer["packet"].value("packet_id", "");
        text = "Hand this task to a sub-agent: " + value["task"] +
               "\n\nGive it the packet below and tell it: check the packet first with "
               "verify_packet (packet_id " +
               id +
               "); treat items as leads to check against the code (UNVERIFIED ones "
               "especially); report each finding with contribute (packet_id " +
               id +
               "), anchored to the code it is about; never call remember or promote. Review "
               "what it contributes with review.\n\n" +
               delegate.render(answer);
    }
    return {{"description", prompt->description},
            {"messages",
             json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})}};
}

} // namespace engram::mcp
