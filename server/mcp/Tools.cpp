// The tool table and the few lines that connect each tool to the engine.
#include "mcp/Tools.h"

#include "mcp/Render.h"
#include "mcp/Schemas.h"
#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "util/Paths.h"

namespace engram::mcp {

namespace {

using protocol::Params;

std::string agentOf(const ToolCall& call, const Params& p) {
    return p.optString("agent").value_or(call.defaultAgent);
}

// The arguments with `agent` filled in from the client when left out (for
// operations whose parsers require it).
json withDefaultAgent(const ToolCall& call, const json& args) {
    json out = args.is_object() ? args : json::object();
    if (!out.contains("agent") || out["agent"].is_null()) out["agent"] = call.defaultAgent;
    return out;
}

json runRemember(ToolCall& call, const json& args) {
    json withAgent = withDefaultAgent(call, args);
    return protocol::toJson(call.engine.remember(protocol::parseRemember(withAgent)));
}

json runRecall(ToolCall& call, const json& args) {
    auto req = protocol::parseRecall(args);
    req.root = call.requestedRoot; // as routed (mcp/Workspaces)
    return protocol::toJson(call.engine.recall(req));
}

json runGet(ToolCall& call, const json& args) {
    return protocol::toJson(call.engine.get(Params(args).reqString("id")));
}

json runRetract(ToolCall& call, const json& args) {
    Params p(args);
    auto id = p.reqString("id");
    auto reason = p.reqString("reason");
    return {{"claim", protocol::toJson(call.engine.retract(id, agentOf(call, p), reason))}};
}

json runLearn(ToolCall& call, const json& args) {
    Params p(args);
    auto id = p.reqString("id");
    auto verdict = p.reqString("verdict");
    return protocol::toJson(
        call.engine.learn(id, verdict, agentOf(call, p), p.optString("note").value_or("")));
}

json runReverify(ToolCall& call, const json& args) {
    Params p(args);
    auto id = p.reqString("id");
    return protocol::toJson(
        call.engine.reverify(id, agentOf(call, p), p.optString("note").value_or("")));
}

json runAnchors(ToolCall& call, const json& args) {
    std::string path = Params(args).reqString("path");
    auto found = call.engine.anchorsIn(path); // refuses paths outside the root
    std::string text = call.engine.documentText(path).value_or("");
    json list = json::array();
    for (auto& a : found)
        list.push_back(protocol::toJson(a, text));
    return {{"path", relativeToRoot(call.engine.root(), path).value_or(path)},
            {"anchors", std::move(list)}};
}

json runPromote(ToolCall& call, const json& args) {
    Params p(args);
    auto id = p.reqString("id");
    auto reason = p.reqString("reason");
    return protocol::toJson(call.engine.promote({id, agentOf(call, p), reason}));
}

// Delegation: the packet id is taken over the packet's JSON (protocol/Packet).
json runDelegate(ToolCall& call, const json& args) {
    json withAgent = withDefaultAgent(call, args);
    return protocol::delegate(call.engine, protocol::parseDelegate(withAgent));
}

json runVerifyPacket(ToolCall& call, const json& args) {
    return protocol::toJson(protocol::verifyPacket(call.engine, protocol::parseVerifyPacket(args)));
}

json runContribute(ToolCall& call, const json& args) {
    json withAgent = withDefaultAgent(call, args);
    return protocol::toJson(call.engine.contribute(protocol::parseContribute(withAgent)));
}

json runReview(ToolCall& call, const json& args) {
    json withAgent = withDefaultAgent(call, args);
    return protocol::toJson(call.engine.review(protocol::parseReview(withAgent)));
}

json runReport(ToolCall& call, const json& args) {
    return protocol::toJson(
        call.engine.report(protocol::parseReport(withDefaultAgent(call, args))));
}

json runInbox(ToolCall& call, const json& args) {
    auto req = protocol::parseInbox(args);
    req.root = call.requestedRoot;
    return protocol::toJson(call.engine.inbox(req));
}

json runStatus(ToolCall& call, const json&) {
    return protocol::toJson(call.engine.status(call.requestedRoot));
}

// Every tool also takes `root` (multi-root clients), added here once.
Tool withRoot(Tool t) {
    t.inputSchema["properties"]["root"] = schema::rootProperty();
    return t;
}

std::vector<Tool> makeTools() {
    std::vector<Tool> list = {
        {"recall", "Recall memory",
         "Find what is known about a task, a file or a symbol before you work on it; each row "
         "says whether its anchored code changed since (anchor_state) and how old it is.",
         schema::recallInput(), schema::recallOutput(), Effect::Read, runRecall, render::recall},
        {"remember", "Remember a claim",
         "Record something you learned about this code (a gotcha, decision, convention, fact), "
         "anchored to the function or file it is about so it is flagged when that code changes.",
         schema::rememberInput(), schema::rememberOutput(), Effect::Write, runRemember,
         render::remember},
        {"get", "Get a claim",
         "Show one claim by id with its anchors' current state, its feedback and its earlier "
         "versions.",
         schema::getInput(), schema::getOutput(), Effect::Read, runGet, render::get, "id"},
        {"reverify", "Re-verify a claim",
         "After checking a drifted or moved claim against the current code and finding it still "
         "true, re-stamp its anchors to the code as it is now.",
         schema::reverifyInput(), schema::getOutput(), Effect::Write, runReverify, render::reverify,
         "id"},
        {"retract", "Retract a claim",
         "Withdraw a claim that is no longer true, with the reason; it is kept on disk but no "
         "longer recalled.",
         schema::retractInput(), schema::retractOutput(), Effect::Destructive, runRetract,
         render::retract, "id"},
        {"learn", "Rate a claim",
         "Say whether a claim you relied on was correct, wrong or partial; recall ranks by these "
         "verdicts and flags claims judged wrong more often than right.",
         schema::learnInput(), schema::learnOutput(), Effect::Write, runLearn, render::learn, "id"},
        {"anchors", "Claims anchored in a file",
         "List every live claim anchored in one source file, with each anchor's state and "
         "current range: what memory says about the file you are editing.",
         schema::anchorsInput(), schema::anchorsOutput(), Effect::Read, runAnchors,
         render::anchors},
        {"promote", "Promote a claim to the medulla",
         "Copy a project claim that holds beyond this project into the user's medulla, where "
         "every project's recall finds it; as a sub-agent, contribute findings instead.",
         schema::promoteInput(), schema::promoteOutput(), Effect::Write, runPromote,
         render::promote, "id"},
        {"delegate", "Compose a delegation packet",
         "Before handing a task to a sub-agent, get a bounded, verifiable slice of memory for it: "
         "committed claims relevant to the task, unverified ones left out and counted.",
         schema::delegateInput(), schema::delegateOutput(), Effect::Read, runDelegate,
         render::delegate},
        {"verify_packet", "Verify a delegation packet",
         "As a sub-agent, check the packet you were given: its hash, signature, binding and age.",
         schema::verifyPacketInput(), schema::verifyPacketOutput(), Effect::Read, runVerifyPacket,
         render::verifyPacket},
        {"contribute", "Contribute findings for review",
         "As a sub-agent, submit what you learned; findings wait as frontier until the delegating "
         "agent reviews them (duplicates and conflicts are flagged, secrets refused).",
         schema::contributeInput(), schema::contributeOutput(), Effect::Write, runContribute,
         render::contribute},
        {"review", "Review a contribution",
         "Accept a sub-agent's contribution into memory or reject it, with the reason.",
         schema::reviewInput(), schema::reviewOutput(), Effect::Write, runReview, render::review},
        {"status", "Memory status",
         "Show which workspace root is bound, how many claims each tier holds, anchor health and "
         "broken claim files; call it when an answer looks empty or wrong.",
         schema::statusInput(), schema::statusOutput(), Effect::Read, runStatus, render::status},
        {"report", "Report a memory problem",
         "File a report when memory misled you: a recall that said nothing although you later "
         "found the answer in code or in memory (false_absence), a claim from a project it "
         "should not reach (leak), a claim written to the wrong store, a wrong author or origin "
         "(misattribution), a claim that vanished. It reaches the project's inbox and is "
         "counted. Answer reports with class answer and answers; a resolution closes them.",
         schema::reportInput(), schema::reportOutput(), Effect::Write, runReport, render::report},
        {"inbox", "The project's inbox",
         "List the reports filed about this project (or, with all, every box on this machine) "
         "with their states: open, in_progress, answered, external.",
         schema::inboxInput(), schema::inboxOutput(), Effect::Read, runInbox, render::inbox},
    };
    for (auto& t : list)
        t = withRoot(std::move(t));
    return list;
}

} // namespace

const std::vector<Tool>& tools() {
    static const std::vector<Tool> list = makeTools();
    return list;
}

const Tool* findTool(std::string_view name) {
    for (auto& t : tools())
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace engram::mcp
