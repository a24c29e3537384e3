// The envelope beside recall, status, inbox and delegate answers: the
// state of memory behind the answer, as data.
#pragma once
#include "model/Envelope.h"
#include "ops/op/wire/Common.h"
#include "protocol/Shape.h"
#include "util/Time.h"

#include <algorithm>

#include <map>

namespace engram::protocol {

// ---- the envelope beside recall, status, inbox and delegate answers ---------

namespace detail {

// A tier's claims by status.
struct TierClaims {
    int64_t committed = 0, frontier = 0, retracted = 0, superseded = 0;
    static constexpr auto fields() {
        return std::tuple{field("committed", &TierClaims::committed),
                          field("frontier", &TierClaims::frontier),
                          field("retracted", &TierClaims::retracted),
                          field("superseded", &TierClaims::superseded,
                                "Earlier versions claims left behind (a write under the same "
                                "label keeps the id and moves the old text to history)")};
    }
};

// The exact call that would fix the state.
struct RecoveryCall {
    std::string method;
    std::map<std::string, std::string> arguments;
    std::string reason;
    static constexpr auto fields() {
        return std::tuple{field("method", &RecoveryCall::method, "The tool (or command) to call"),
                          field("arguments", &RecoveryCall::arguments),
                          field("reason", &RecoveryCall::reason)};
    }
};

} // namespace detail

template <>
struct Shape<TierState::Sync> {
    using S = TierState::Sync;
    static constexpr auto fields = std::tuple{
        field("remote", &S::remote, "origin's URL (a password in it shown as ***)"),
        computed(
            "last_sync",
            +[](const S& s) {
                return s.lastSync ? std::optional<std::string>(formatUtc(*s.lastSync))
                                  : std::nullopt;
            },
            "When a sync last reached the remote; absent: never"),
        computed(
            "age",
            +[](const S& s) {
                return s.lastSync ? std::optional<std::string>(
                                        humanAge(std::max<int64_t>(0, nowUnix() - *s.lastSync)))
                                  : std::nullopt;
            },
            "How old the local clone's view of the remote is (answers come from the clone)"),
        computed(
            "error", +[](const S& s) { return detail::unlessEmpty(s.error); },
            "Why the last sync failed"),
        field("pending", &S::pending, "What waits to be pushed by engram sync"),
    };
};

template <>
struct Shape<TierState> {
    using S = TierState;
    static constexpr auto fields = std::tuple{
        field("tier", &S::tier, "project, medulla or team:NAME"),
        field("path", &S::path, "The store directory"),
        field("name", &S::name),
        field("exists", &S::exists),
        field("index_ready", &S::indexReady),
        computed(
            "claims",
            +[](const S& s) {
                return detail::TierClaims{s.committed, s.frontier, s.retracted, s.superseded};
            }),
        field("anchors", &S::anchors),
        field("generation", &S::generation),
        field("broken_files", &S::brokenFiles),
        field("reconciled", &S::reconciled,
              "False while claim files changed while engram was down are still being checked in "
              "the background"),
        computed(
            "unchecked_files",
            +[](const S& s) {
                return s.reconciled ? std::nullopt : std::optional<int64_t>(s.uncheckedFiles);
            }),
        computed(
            "read_only",
            +[](const S& s) { return s.readOnly ? std::optional<bool>(true) : std::nullopt; },
            "The store cannot be written: it is read, and writes to it are refused"),
        computed(
            "error", +[](const S& s) { return detail::unlessEmpty(s.error); },
            "Why the tier could not be read"),
        field("sync", &S::sync,
              "A store in a git repository of its own (a team store, a medulla with a remote)"),
    };
};

template <>
struct Shape<Envelope::Observed> {
    using O = Envelope::Observed;
    static constexpr auto fields = std::tuple{
        field("method", &O::method),
        field("candidates", &O::candidates),
        computed(
            "error", +[](const O& o) { return detail::unlessEmpty(o.error); }),
    };
};

template <>
struct Shape<Envelope::Session> {
    using S = Envelope::Session;
    static constexpr auto fields = std::tuple{
        field("pid", &S::pid),
        field("version", &S::version),
        computed(
            "started", +[](const S& s) { return formatUtc(s.started); }),
    };
};

template <>
struct Shape<Envelope::Binding> {
    using B = Envelope::Binding;
    static constexpr auto fields = std::tuple{
        field("root", &B::root, "The bound workspace root"),
        field("fingerprint", &B::fingerprint),
        field("source", &B::source,
              "How the root was chosen: --root, ENGRAM_ROOT, roots (the client's), discovered "
              "(the working directory)"),
        computed(
            "requested_root", +[](const B& b) { return detail::nullIfEmpty(b.requestedRoot); }),
        field("mismatch", &B::mismatch),
    };
};

template <>
struct Shape<Envelope> {
    using E = Envelope;
    static constexpr const char* description =
        "The state of memory behind this answer (bound root, counts per tier, index)";
    static constexpr auto fields = std::tuple{
        field("schema", &E::schema),
        computed(
            "status", +[](const E& e) { return OneOf<EnvelopeStatus>{e.status}; }),
        computed(
            "trust_mode", +[](const E& e) { return OneOf<TrustMode>{e.trustMode}; },
            "How far an empty or short answer can be trusted"),
        field("observed", &E::observed),
        field("session", &E::session),
        field("binding", &E::binding),
        field("store", &E::stores),
        computed(
            "next_suggested", +[](const E& e) { return detail::nullIfEmpty(e.nextSuggested); }),
        computed(
            "recovery",
            +[](const E& e) {
                Nullable<detail::RecoveryCall> out;
                if (e.recovery.method.empty()) return out;
                out.value = detail::RecoveryCall{e.recovery.method, {}, e.recovery.reason};
                for (auto& [k, v] : e.recovery.arguments)
                    out.value->arguments[k] = v;
                return out;
            },
            "The exact call that would fix the state"),
        field("non_claims", &E::nonClaims),
        computed(
            "not_judged",
            +[](const E& e) {
                return e.notJudged.empty() ? std::nullopt : std::optional<NotJudged>(e.notJudged);
            },
            "Present when something was not judged; non_claims says why in words"),
    };
};

} // namespace engram::protocol
