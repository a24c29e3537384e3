// Wire forms of engine types that several operations' shapes hold
// (protocol/Shape.h): written by hand where the type's JSON has rules of
// its own (a claim says "unknown" for what its file does not hold).
#pragma once
#include "model/Claim.h"
#include "ops/Schemas.h"
#include "protocol/Shape.h"

namespace engram::protocol {

// A claim in an answer (protocol::toJson(Claim)); never read from a call.
template <>
struct Wire<Claim> {
    static json schema(Side = Side::Output) { return ops::schema::claimSchema(); }
    static json write(const Claim& c) { return toJson(c); }
};

// A claim's verdict counts.
template <>
struct Shape<Feedback> {
    static constexpr auto fields = std::tuple{
        field("correct", &Feedback::correct),
        field("wrong", &Feedback::wrong),
        field("partial", &Feedback::partial),
        computed(
            "contested", +[](const Feedback& f) { return f.contested(); }),
    };
};

} // namespace engram::protocol
