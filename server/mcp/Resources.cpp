// MCP resources: what a client can attach to a conversation without the
// model calling a tool. The list is fixed: the findings of `engram check`,
// and templates for one claim (by id), for the claims anchored in one file,
// and for a tool's schemas. Reading one of the first three runs the
// matching operation (check, get, anchors) exactly as the tool would, so a
// resource and a tool never disagree.
//
// Subscriptions: after a write this server made (a tool whose effect is not
// a read), every subscribed resource is announced as updated. Writes other
// processes make (the CLI, `engram serve`) are not watched here; a client
// reads again when it wants the current state.
#include "mcp/McpServer.h"
#include "protocol/Convert.h"
#include "protocol/JsonRpc.h"
#include "util/Error.h"
#include "util/Paths.h"

namespace engram::mcp {

using protocol::json;
using protocol::Params;

namespace {

constexpr const char* kFindingsUri = "engram://findings";
constexpr const char* kClaimPrefix = "engram://claim/";
constexpr const char* kFilePrefix = "engram://file/";
constexpr const char* kSchemaPrefix = "engram://schema/";
constexpr int kResourceNotFound = -32002; // the MCP specification's code

[[noreturn]] void notFound(const std::string& uri, const std::string& why) {
    throw ProtocolError(kResourceNotFound, "ResourceNotFound",
                        "resource '" + uri + "': " + why +
                            "; engram's resources are engram://findings, engram://claim/{id}, "
                            "engram://file/{path} and engram://schema/{tool}");
}

// Both lists come in one page: no cursor of this server's exists.
void refuseCursor(const json& params) {
    if (Params(params).optString("cursor"))
        throw invalidField("cursor", "is not a cursor this server gave; the whole list comes "
                                     "in one page");
}

} // namespace

json McpServer::onResourcesList(const json& params) {
    refuseCursor(params);
    return {{"resources",
             json::array({{{"uri", kFindingsUri},
                           {"name", "findings"},
                           {"title", "Memory findings"},
                           {"description",
                            "What engram check reports for this workspace: drifted, orphaned "
                            "and moved anchors, stale claims, secrets, broken or unmerged claim "
                            "files, instruction files' dangling references"},
                           {"mimeType", "application/json"}}})}};
}

json McpServer::onResourceTemplatesList(const json& params) {
    refuseCursor(params);
    return {{"resourceTemplates",
             json::array({{{"uriTemplate", std::string(kClaimPrefix) + "{id}"},
                           {"name", "claim"},
                           {"title", "A claim"},
                           {"description", "One claim by id (c-...), with its anchors' states, "
                                           "feedback and earlier versions"},
                           {"mimeType", "application/json"}},
                          {{"uriTemplate", std::string(kFilePrefix) + "{+path}"},
                           {"name", "file"},
                           {"title", "A file's claims"},
                           {"description", "Every live claim anchored in one workspace-relative "
                                           "file, with each anchor's state and current range"},
                           {"mimeType", "application/json"}},
                          {{"uriTemplate", std::string(kSchemaPrefix) + "{tool}"},
                           {"name", "schema"},
                           {"title", "A tool's schemas"},
                           {"description", "A tool's input and output JSON Schemas (tools/list "
                                           "leaves output schemas out unless engram mcp runs "
                                           "with --output-schemas)"},
                           {"mimeType", "application/json"}}})}};
}

json McpServer::onResourcesRead(const json& params) {
    Params p(params);
    std::string uri = p.reqString("uri");
    const ops::Operation* op = nullptr;
    json args;
    if (uri.starts_with(kSchemaPrefix)) {
        // Schemas need no workspace: read before any binding.
        std::string name = percentDecoded(uri.substr(std::string_view(kSchemaPrefix).size()));
        const ops::Operation* tool = ops::byName(name);
        if (!tool || !tool->agentTool) notFound(uri, "no tool named '" + name + "'");
        json schemas = {{"name", tool->name},
                        {"inputSchema", toolInput(*tool)},
                        {"outputSchema", tool->output()}};
        return {{"contents", json::array({{{"uri", uri},
                                           {"mimeType", "application/json"},
                                           {"text", schemas.dump()}}})}};
    }
    if (uri == kFindingsUri) {
        op = ops::byName("check");
        args = {{"max_findings", 1000}};
    } else if (uri.starts_with(kClaimPrefix)) {
        op = ops::byName("get");
        args = {{"id", percentDecoded(uri.substr(std::string_view(kClaimPrefix).size()))}};
    } else if (uri.starts_with(kFilePrefix)) {
        op = ops::byName("anchors");
        args = {{"path", percentDecoded(uri.substr(std::string_view(kFilePrefix).size()))}};
    } else {
        notFound(uri, "not one of engram's");
    }
    json structured;
    try {
        structured = runStructured(*op, args);
    } catch (const EngramError& e) {
        if (e.kind == ErrorKind::UnknownClaim || e.kind == ErrorKind::OutsideRoot ||
            e.kind == ErrorKind::InvalidParams)
            notFound(uri, e.what());
        throw;
    }
    return {{"contents",
             json::array(
                 {{{"uri", uri},
                   {"mimeType", "application/json"},
                   {"text", structured.dump(-1, ' ', false, json::error_handler_t::replace)}},
                  {{"uri", uri}, {"mimeType", "text/plain"}, {"text", op->render(structured)}}})}};
}

json McpServer::onResourcesSubscribe(const json& params) {
    std::string uri = Params(params).reqString("uri");
    if (uri != kFindingsUri && !uri.starts_with(kClaimPrefix) && !uri.starts_with(kFilePrefix) &&
        !uri.starts_with(kSchemaPrefix))
        notFound(uri, "not one of engram's");
    subscribed_.insert(uri);
    return json::object();
}

json McpServer::onResourcesUnsubscribe(const json& params) {
    subscribed_.erase(Params(params).reqString("uri"));
    return json::object();
}

void McpServer::notifyResourcesUpdated() {
    for (auto& uri : subscribed_)
        send({{"jsonrpc", "2.0"},
              {"method", "notifications/resources/updated"},
              {"params", {{"uri", uri}}}});
}

} // namespace engram::mcp
