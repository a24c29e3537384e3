// The operation table: every operation in the order tool lists and
// `engram --help` show them. Each is declared in its own file
// (server/ops/op/), which this list names by one call; the LSP method and
// the command-line name are derived from the operation's name here.
#include "ops/Operation.h"
#include "ops/op/Ops.h"

#include <algorithm>
#include <cctype>

namespace engram::ops {

namespace {

std::vector<Operation> makeOperations() {
    // One operation a line.
    // clang-format off
    return {
        recall::operation(),
        remember::operation(),
        get::operation(),
        reverify::operation(),
        reverify_file::operation(),
        retract::operation(),
        learn::operation(),
        resolve::operation(),
        anchors::operation(),
        promote::operation(),
        delegate::operation(),
        verify_packet::operation(),
        contribute::operation(),
        review::operation(),
        check::operation(),
        status::operation(),
        report::operation(),
        inbox::operation(),
        reindex::operation(),
    };
    // clang-format on
}

template <class Pred>
const Operation* findIf(Pred pred) {
    for (auto& op : operations())
        if (pred(op)) return &op;
    return nullptr;
}

// "verify_packet" -> "verifyPacket" / "verify-packet".
std::string camel(std::string_view name) {
    std::string out;
    for (size_t i = 0; i < name.size(); ++i)
        out += name[i] == '_' && i + 1 < name.size() ? char(std::toupper(name[++i])) : name[i];
    return out;
}
std::string kebab(std::string_view name) {
    std::string out(name);
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
}

} // namespace

const std::vector<Operation>& operations() {
    // The LSP method and the CLI command are the operation's name, spelled
    // for each surface.
    static const std::vector<Operation> list = [] {
        auto ops = makeOperations();
        for (auto& op : ops) {
            op.method = "engram/" + camel(op.name);
            if (*op.cli.help) op.cli.name = kebab(op.name);
        }
        return ops;
    }();
    return list;
}

const Operation* byName(std::string_view toolName) {
    return findIf([&](const Operation& op) { return op.name == toolName; });
}

const Operation* byMethod(std::string_view lspMethod) {
    return findIf([&](const Operation& op) { return op.method == lspMethod; });
}

const Operation* byCommand(std::string_view cliCommand) {
    return findIf(
        [&](const Operation& op) { return !op.cli.name.empty() && op.cli.name == cliCommand; });
}

json withDefaultAgent(const Call& call, const json& params) {
    // Anything but an object is left for the parser to refuse.
    if (!call.defaultAgent || !params.is_object()) return params;
    json out = params;
    if (!out.contains("agent") || out["agent"].is_null()) out["agent"] = *call.defaultAgent;
    return out;
}

} // namespace engram::ops
