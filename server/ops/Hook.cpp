// The memory slice `engram hook` prints for an agent harness (ops/Hook.h).
//
// The context is plain prose and lists, wrapped in one <engram-memory> tag
// so a model (and a person reading a transcript) can tell where engram's
// part starts and ends, and so a harness that runs the hook twice (Cursor
// and VS Code also read Claude Code's settings) shows the same block twice
// rather than something that looks like two sources. It never starts with
// '{': Claude Code and Codex read stdout that starts with '{' as JSON.
#include "ops/Hook.h"

#include "ops/HookSession.h"

#include "engine/Engine.h"
#include "util/Error.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace engram::ops {

using json = nlohmann::json;

namespace {

constexpr size_t kMaxPrompt = 4000;   // a packet's task bound
constexpr size_t kMaxItemChars = 600; // one item's text in the slice
constexpr size_t kInstructionLines = 5;

std::string oneLine(std::string_view s, size_t max) {
    return singleLine(s, max, "…");
}

std::string count(int64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

const std::string* stringField(const json& j, std::initializer_list<const char*> names,
                               std::string& which) {
    for (const char* n : names) {
        auto it = j.find(n);
        if (it == j.end() || it->is_null()) continue;
        if (!it->is_string()) throw invalidField(n, "must be a string");
        which = n;
        return it->get_ptr<const std::string*>();
    }
    return nullptr;
}

// Lines added while they fit; what did not fit is counted.
class Budget {
public:
    explicit Budget(size_t max)
        : max_(max) {}
    bool add(const std::string& line) {
        if (out_.size() + line.size() + 1 + reserve_ > max_) return false;
        out_ += line;
        out_ += '\n';
        return true;
    }
    // Room kept for the closing lines.
    void reserve(size_t n) { reserve_ = n; }
    size_t reserved() const { return reserve_; }
    void close(const std::string& tail) {
        reserve_ = 0;
        out_ += tail;
        if (out_.size() > max_) out_ = std::string(utf8Prefix(out_, max_));
    }
    std::string take() { return std::move(out_); }

private:
    size_t max_;
    size_t reserve_ = 0;
    std::string out_;
};

std::string itemLine(size_t n, const PacketItem& it) {
    std::string where = it.anchors.empty() ? "" : " · " + it.anchors.front();
    if (it.anchors.size() > 1) where += " +" + std::to_string(it.anchors.size() - 1);
    std::string head = std::to_string(n) + ". [" + (it.kind.empty() ? "note" : it.kind) + " · " +
                       it.tier + (it.anchorState.empty() ? "" : " · " + it.anchorState) + where +
                       (it.unverified ? " · unverified: check the code" : "") + "] ";
    std::string text = (it.label.empty() ? "" : it.label + ": ") + oneLine(it.text, kMaxItemChars);
    std::string tail = " (" + it.id;
    if (it.ageDays)
        tail += ", " + (*it.ageDays ? count(*it.ageDays, "day", "days") + " old" : "today");
    if (it.stale && *it.stale) tail += ", stale";
    if (!it.sourceAgent.empty()) tail += ", by " + it.sourceAgent;
    for (size_t i = 0; i < it.nearDuplicates.size(); ++i)
        tail += (i ? ", " : "; said nearly the same in ") + it.nearDuplicates[i];
    return head + text + tail + ")";
}

struct Totals {
    int64_t project = 0, medulla = 0, team = 0;
    int64_t all() const { return project + medulla + team; }
};

Totals totalsOf(const Envelope& e) {
    Totals t;
    for (auto& s : e.stores)
        (s.tier == "medulla"           ? t.medulla
         : s.tier.starts_with("team:") ? t.team
                                       : t.project) += s.committed;
    return t;
}

std::string gapsLine(const Packet& p) {
    std::vector<std::string> parts;
    for (auto& g : p.honestGaps)
        if (g.count && g.reason == "orphaned")
            parts.push_back(std::to_string(g.count) + " " + g.reason);
    if (parts.empty()) return "";
    return "Left out: " + parts[0] +
           " (the code they were about is gone; recall them and check the code before "
           "relying on them).";
}

// Items of a packet, as many as fit, and how many relevant ones did not
// (the packet's own limits, then the lines that would overflow the budget).
// Returns the items printed.
std::vector<const PacketItem*> addItems(Budget& b, const Packet& p) {
    std::vector<const PacketItem*> printed;
    size_t n = 0;
    int64_t unfit = p.metrics.eligible - p.metrics.included;
    size_t kept = b.reserved();
    b.reserve(kept + 100); // room for the line saying what did not fit
    for (auto& it : p.items)
        if (!b.add(itemLine(n + 1, it))) {
            ++unfit;
        } else {
            ++n;
            printed.push_back(&it);
        }
    b.reserve(kept);
    if (unfit > 0)
        b.add(count(unfit, "more relevant memory", "more relevant memories") +
              " did not fit in this hook's budget (recall shows them).");
    return printed;
}

// Whether the prompt names a claim: its id, or its label as a word of its
// own. Such a claim is given again, however often it was given before.
bool asksFor(const std::string& prompt, const PacketItem& it) {
    if (prompt.find(it.id) != std::string::npos) return true;
    if (it.label.size() < 3) return false;
    std::string lower = prompt;
    for (auto& ch : lower)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    for (size_t at = lower.find(it.label); at != std::string::npos;
         at = lower.find(it.label, at + 1)) {
        auto edge = [&](size_t i) {
            return i >= lower.size() || !(std::isalnum(static_cast<unsigned char>(lower[i])) ||
                                          lower[i] == '-' || lower[i] == '_');
        };
        if ((at == 0 || edge(at - 1)) && edge(at + it.label.size())) return true;
    }
    return false;
}

// A claim as given: changed (a new version, its code drifted or moved) is
// another claim for the session's purpose.
std::string givenState(const PacketItem& it) {
    return std::to_string(it.version) + ":" + it.anchorState;
}

std::string promptContext(Engine& engine, const HookInput& in, size_t maxChars,
                          HookSession& session) {
    std::string task = oneLine(in.prompt, kMaxPrompt);
    task = std::string(utf8Prefix(task, kMaxPrompt));
    if (task.empty()) return "";
    DelegateRequest req;
    req.task = task;
    req.agent = "engram:hook";
    req.dirtyFlag = false;
    req.readHistory = false;
    req.strictFloor = !in.looseFloor;
    req.noFloor = in.noFloor;
    req.maxChars = int(std::min<size_t>(maxChars, 1000000));
    // The files the prompt names are what it is about: the claims anchored
    // in them come whatever their words, the four best at most.
    req.paths = engine.filesNamedIn(task, 4);
    auto r = engine.delegate(req);
    Totals t = totalsOf(r.envelope);
    Packet& p = r.packet;
    // Given earlier in this session, unchanged and not asked for by name:
    // the agent has it already.
    std::vector<std::string> earlier;
    if (session.active()) {
        std::vector<PacketItem> fresh;
        for (auto& it : p.items)
            if (session.given(it.id, givenState(it)) && !asksFor(in.prompt, it))
                earlier.push_back(it.id);
            else
                fresh.push_back(std::move(it));
        p.items = std::move(fresh);
    }
    // The harness already gives the agent its instruction files; what the
    // agent cannot see is that a matching paragraph names code that is gone
    // or changed.
    std::vector<std::string> warnings;
    for (auto& h : p.instructionFiles) {
        std::string bad;
        for (auto& [ref, state] : h.references)
            if (state == "dangling" || state == "drifted" || state == "moved")
                bad +=
                    (bad.empty() ? "" : ", ") + std::string("`") + oneLine(ref, 200) + "` " + state;
        if (!bad.empty())
            warnings.push_back("- " + h.file + ":" + std::to_string(h.line) + "-" +
                               std::to_string(h.endLine) + ": " + bad);
    }
    if (t.all() == 0 && warnings.empty()) return "";
    Budget b(maxChars);
    const std::string open = "<engram-memory event=\"prompt\">", close = "</engram-memory>\n";
    std::string gaps = gapsLine(p);
    b.reserve(close.size() + (gaps.empty() ? 0 : gaps.size() + 1));
    b.add(open);
    std::string of = "of the " + count(t.all(), "claim", "claims") + " in memory (project " +
                     std::to_string(t.project) + ", medulla " + std::to_string(t.medulla) +
                     (t.team ? ", team stores " + std::to_string(t.team) : "") + ")";
    std::string earlierLine;
    if (!earlier.empty()) {
        earlierLine = count(int64_t(earlier.size()), "relevant memory", "relevant memories") +
                      " given earlier in this session: ";
        for (size_t i = 0; i < earlier.size() && i < 5; ++i)
            earlierLine += (i ? ", " : "") + earlier[i];
        if (earlier.size() > 5)
            earlierLine += " and " + std::to_string(earlier.size() - 5) + " more";
        earlierLine += ".";
    }
    if (p.items.empty() && earlier.empty()) {
        // Said as it is: claims that share a word with the prompt but fell
        // under the floor are not "none matched".
        int64_t weak = p.metrics.belowFloor;
        b.add("engram: none " + of +
              (weak ? " is about this prompt (" + count(weak, "claim shares", "claims share") +
                          " a word with it, under the relevance floor)"
                    : std::string(" matched this prompt")) +
              ". Recall with other words if you need memory.");
    } else if (p.items.empty()) {
        b.add("engram: " + earlierLine);
    } else {
        b.add("engram found " + std::to_string(p.items.size()) + " " + of +
              " relevant to this prompt. Agents and people wrote them; they are not verified "
              "facts. An anchor's state says whether its code changed since.");
        // Given: what reached the context, not what the budget left out.
        for (auto* it : addItems(b, p))
            session.give(it->id, givenState(*it));
        if (!earlierLine.empty()) b.add("Also " + earlierLine);
    }
    b.reserve(close.size());
    if (!gaps.empty()) b.add(gaps);
    if (!warnings.empty() &&
        b.add("Instruction-file paragraphs about this prompt name code that changed (check "
              "before following them; engram check lists every one):"))
        for (auto& w : warnings)
            if (!b.add(w)) break;
    b.close(close);
    return b.take();
}

// What a session starts with: how much memory there is and in what state,
// and instruction files whose references broke. Nothing on its way grows
// with the store or the repository, and it starts no process
// (ARCHITECTURE.md, "Hot paths"): the counts are the index's, the anchor
// health is the one engram/status last counted (a count needs a look at
// every anchored file), and the references are judged from what a judging
// scan kept of git's answers. (It no longer lists memory about the work
// tree's changed files: knowing them is `git status`, a stat of every
// tracked file; the prompt's own words select memory instead.)
std::string sessionContext(Engine& engine, size_t maxChars) {
    Totals t;
    for (const char* tier : {"project", "medulla"})
        if (auto s = engine.storeState(tier))
            (std::string(tier) == "medulla" ? t.medulla : t.project) += s->committed;
    InstructionScan scan = engine.scanInstructions({}, nullptr, false);
    std::vector<const InstructionRef*> broken;
    for (auto& r : scan.refs)
        if (r.state == "dangling" || r.state == "drifted" || r.state == "moved")
            broken.push_back(&r);
    if (t.all() == 0 && broken.empty()) return "";

    Budget b(maxChars);
    const std::string open = "<engram-memory event=\"session-start\">",
                      close = "</engram-memory>\n";
    b.reserve(close.size());
    b.add(open);
    std::string health;
    if (auto h = engine.lastAnchorHealth(); h && (h->drifted || h->orphaned || h->moved)) {
        std::string when = agoText(h->countedAt);
        health = " (anchors as last counted, " + when + ": " + std::to_string(h->intact) +
                 " intact, " + std::to_string(h->drifted) + " drifted, " +
                 std::to_string(h->moved) + " moved, " + std::to_string(h->orphaned) + " orphaned)";
    }
    b.add("engram holds " + count(t.project, "claim", "claims") + " about this workspace" + health +
          " and " + std::to_string(t.medulla) +
          " in the user's medulla. Recall before re-deriving what may be known (the engram "
          "recall tool, or `engram recall QUERY`); remember what you learn, anchored to the "
          "code.");

    if (!broken.empty()) {
        b.add("Instruction files with broken code references (engram check lists every one):");
        size_t shown = 0;
        for (auto* r : broken) {
            if (shown == kInstructionLines) break;
            std::string line = "- " + r->file + ":" + std::to_string(r->ref.lineIndex + 1) + " `" +
                               oneLine(r->ref.written, 200) + "` is " + r->state;
            if (!r->why.empty()) line += ": " + oneLine(r->why, 200);
            if (!r->replacement.empty()) line += "; now `" + oneLine(r->replacement, 200) + "`";
            if (!b.add(line)) break;
            ++shown;
        }
        if (broken.size() > shown)
            b.add("- and " + std::to_string(broken.size() - shown) + " more");
    }
    b.close(close);
    return b.take();
}

} // namespace

std::string hookEvent(std::string_view name) {
    if (name == "SessionStart" || name == "sessionStart" || name == "session-start")
        return "session-start";
    if (name == "UserPromptSubmit" || name == "userPromptSubmitted" || name == "BeforeAgent" ||
        name == "beforeSubmitPrompt" || name == "prompt")
        return "prompt";
    return "";
}

HookInput parseHookInput(std::string_view text) {
    HookInput in;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return in;
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw invalidField("stdin", "is not a JSON object (a hook's input from its harness)");
    in.fromStdin = true;
    std::string which;
    if (auto* e = stringField(j, {"hook_event_name", "hookEventName"}, which)) {
        in.eventName = *e;
        in.event = hookEvent(*e);
        if (in.event.empty())
            throw invalidField(which, "'" + *e +
                                          "' is not an event engram answers (SessionStart, "
                                          "UserPromptSubmit, BeforeAgent)");
    }
    if (auto* p = stringField(j, {"prompt", "initialPrompt"}, which)) in.prompt = *p;
    if (auto* c = stringField(j, {"cwd"}, which)) in.cwd = *c;
    if (auto* s = stringField(j, {"session_id", "sessionId", "conversation_id"}, which))
        in.sessionId = *s;
    if (auto* s = stringField(j, {"source"}, which)) in.source = *s;
    if (auto it = j.find("workspace_roots"); in.cwd.empty() && it != j.end()) {
        if (!it->is_array() || (!it->empty() && !(*it)[0].is_string()))
            throw invalidField("workspace_roots", "must be an array of strings");
        if (!it->empty()) in.cwd = (*it)[0].get<std::string>();
    }
    in.cursor = j.contains("cursor_version");
    if (in.event.empty() && in.cursor) in.event = in.prompt.empty() ? "session-start" : "prompt";
    return in;
}

std::string hookContext(Engine& engine, const HookInput& in, size_t maxChars,
                        const std::string& sessionDir) {
    maxChars = std::clamp(maxChars, kHookMinChars, kHookMaxChars);
    std::string event =
        in.event.empty() ? (in.prompt.empty() ? "session-start" : "prompt") : in.event;
    HookSession session(sessionDir, engine.root(), in.sessionId);
    std::string out;
    if (event == "prompt") {
        out = promptContext(engine, in, maxChars, session);
    } else {
        // A context started anew, cleared or compacted holds none of what
        // was given; a resumed one holds it all.
        if (in.source != "resume") session.forget();
        out = sessionContext(engine, maxChars);
    }
    session.save();
    return out;
}

std::string hookOutput(const HookInput& in, const std::string& format, const std::string& context) {
    std::string f = format;
    if (f == "auto") f = in.cursor ? "cursor" : in.fromStdin ? "claude" : "text";
    if (f == "text") return context;
    auto dump = [](const json& j) {
        return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    };
    if (f == "cursor") return dump({{"additional_context", context}});
    std::string name = in.eventName;
    if (name.empty() || name == "session-start" || name == "prompt")
        name = (in.event == "prompt" || (in.event.empty() && !in.prompt.empty()))
                   ? "UserPromptSubmit"
                   : "SessionStart";
    return dump(
        {{"hookSpecificOutput", {{"hookEventName", name}, {"additionalContext", context}}}});
}

} // namespace engram::ops
