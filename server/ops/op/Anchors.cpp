// anchors: every live claim anchored in one source file, each anchor with
// its state and current range, against the file as engram sees it (the
// editor's unsaved text when it is open): what memory says about the file
// being edited.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "util/Paths.h"
#include "util/Position.h"

namespace engram::ops::anchors {

namespace {

using protocol::field;
using protocol::Nullable;
using protocol::OneOf;

struct Params {
    std::optional<std::string> path;
    std::optional<std::string> uri;
    static constexpr auto fields() {
        // One of the two is required. Not said with a top-level oneOf,
        // which some clients refuse in a tool's schema; the run names both.
        return std::tuple{
            field("path", &Params::path,
                  "Workspace-relative path of a source file (this or uri is required)"),
            field("uri", &Params::uri, "The file as a file:// URI, instead of path"),
        };
    }
};

struct Entry {
    std::string claimId;
    Nullable<std::string> label;
    std::string text;
    int64_t anchor = 0;
    std::string symbol;
    OneOf<AnchorState> anchorState;
    std::optional<std::string> movedTo;
    std::string sourceAgent;
    std::string age;
    std::optional<TextRange> range;
    static constexpr auto fields() {
        return std::tuple{
            field("claim_id", &Entry::claimId),
            field("label", &Entry::label),
            field("text", &Entry::text),
            field("anchor", &Entry::anchor, "Which of the claim's anchors"),
            field("symbol", &Entry::symbol),
            field("anchor_state", &Entry::anchorState),
            field("moved_to", &Entry::movedTo, "Where a moved symbol is now"),
            field("source_agent", &Entry::sourceAgent),
            field("age", &Entry::age),
            field("range", &Entry::range,
                  "The anchored code's current range (absent when orphaned)"),
        };
    }
};

struct Answer {
    std::string path;
    std::vector<Entry> anchors;
    static constexpr auto fields() {
        return std::tuple{field("path", &Answer::path), field("anchors", &Answer::anchors)};
    }
};

// `text` is the file as engram sees it, against which byte columns become
// UTF-16 ones.
Entry entryOf(const AnchoredClaim& a, std::string_view text) {
    const Claim& c = a.claim;
    Entry e;
    e.claimId = c.id;
    if (!c.label.empty()) e.label.value = c.label;
    e.text = c.text;
    e.anchor = int64_t(a.anchorIndex);
    if (a.anchorIndex < c.anchors.size()) e.symbol = c.anchors[a.anchorIndex].symbol;
    e.anchorState = {a.state};
    if (!a.movedTo.empty()) e.movedTo = a.movedTo;
    e.sourceAgent = c.sourceAgent.empty() ? "unknown" : c.sourceAgent;
    e.age = a.ageSeconds ? humanAge(*a.ageSeconds) : "unknown";
    if (a.startLine && a.startColumn && a.endLine && a.endColumn)
        e.range = TextRange{*a.startLine, utf16Column(text, *a.startLine, *a.startColumn),
                            *a.endLine, utf16Column(text, *a.endLine, *a.endColumn)};
    return e;
}

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params); // editors name documents by URI
    if (p.uri && p.path) throw invalidField("path", "give either path or uri, not both");
    std::string path;
    if (p.uri) {
        auto local = uriToPath(*p.uri);
        if (!local) throw invalidField("uri", "must be a file:// URI");
        path = *local;
    } else if (p.path) {
        path = *p.path;
    } else {
        throw invalidField("path", "is required (or uri)");
    }
    Engine& engine = call.engine();
    auto found = engine.anchorsIn(path); // refuses paths outside the root
    std::string text = engine.documentText(path).value_or("");
    Answer a{relativeToRoot(engine.root(), path).value_or(path), {}};
    for (auto& one : found)
        a.anchors.push_back(entryOf(one, text));
    return protocol::toJson(a);
}

} // namespace

Operation operation() {
    return {
        .name = "anchors",
        .title = "Claims anchored in a file",
        .description = "List every live claim anchored in one source file, with each anchor's "
                       "state and current range: what memory says about the file you are "
                       "editing.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = render::anchors,
        .cli = {.help = "  anchors PATH                   the live claims anchored in one file, "
                        "with each anchor's\n"
                        "                                 state and current lines\n",
                .positionals = {{"path", "PATH"}}},
    };
}

} // namespace engram::ops::anchors
