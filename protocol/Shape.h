// Wire shapes declared once (ARCHITECTURE.md, "One declaration per
// operation").
//
// A struct's wire form is the list of its fields, each a wire name, the
// member it maps, and what a reader should know of it: the struct's own
// static fields(), or a Shape<T> specialisation for a type that cannot
// name them itself. From that one list come
//   fromJson<T>   the parser: strict types, errors naming the field path
//                 ("anchors[1].path: expected a string"), unknown members
//                 ignored, absent optional members left empty;
//   toJson        the JSON: optional members written only when set;
//   schemaOf<T>   the JSON Schema: each member's type and description, and
//                 as required, for what a caller sends (Side::Input), every
//                 member that is neither optional, nor a list (absent is
//                 empty), nor filled in by the surface; for what an answer
//                 holds (Side::Output), every member toJson always writes.
// An enumeration's wire spellings are declared once too (Spelling<E>), and
// serve its parser ("verdict: must be correct, wrong or partial"), its JSON
// and the schema's `enum`. A member type with a wire form of its own (a
// claim) specialises Wire<M> by hand.
//
// In the spirit of llvm::json::ObjectMapper, but both ways and with the
// schema: a field added to the list is parsed, written and declared, and
// tests/unit/SchemaDriftTest.cpp holds every parser to its schema.
#pragma once
#include "model/Spelling.h"
#include "protocol/Convert.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace engram::protocol {

// ---- fields ------------------------------------------------------------------

enum class Filled {
    ByCaller,  // required unless optional (or a list)
    BySurface, // required by the parser, but the surface fills it when absent
               // (the MCP client's name as `agent`): not required by the schema
    Required,  // required, a list too (a call without contribute's items is a mistake)
};

template <class T, class M>
struct Field {
    const char* name;
    M T::*member;
    const char* description = nullptr;
    Filled filled = Filled::ByCaller;
    const char* pattern = nullptr; // the schema's pattern for a string of one shape
};

template <class T, class M>
constexpr Field<T, M> field(const char* name, M T::*member, const char* description = nullptr,
                            Filled filled = Filled::ByCaller, const char* pattern = nullptr) {
    return {name, member, description, filled, pattern};
}

// A member of the JSON that the struct computes (a claim's `contested`):
// written and declared, never read. One computed as a std::optional is
// written only when it has a value (and is then not required).
template <class T, class R>
struct Computed {
    const char* name;
    R (*get)(const T&);
    const char* description = nullptr;
};

template <class T, class R>
constexpr Computed<T, R> computed(const char* name, R (*get)(const T&),
                                  const char* description = nullptr) {
    return {name, get, description};
}

// A member whose own members are written into the struct's JSON, beside
// its fields (a recall row is a claim's JSON with the row's members added):
// its wire form must be an object. Answers only: a call's parameters are
// declared field by field.
template <class T, class M>
struct Spread {
    M T::*member;
};

template <class T, class M>
constexpr Spread<T, M> spread(M T::*member) {
    return {member};
}

// A struct names its own fields with `static constexpr auto fields()
// { return std::tuple{field(...), ...}; }`; a type that cannot (it lives in
// a layer below the wire) gets a specialisation of Shape<T> holding
// `static constexpr auto fields = std::tuple{...};`.
template <class T>
struct Shape;

template <class T>
concept OwnFields = requires {
    T::fields();
};

template <class T>
concept Shaped = OwnFields<T> || requires {
    Shape<T>::fields;
};

template <Shaped T>
constexpr auto fieldsOf() {
    if constexpr (OwnFields<T>)
        return T::fields();
    else
        return Shape<T>::fields;
}

template <class M>
struct IsOptional : std::false_type {};
template <class M>
struct IsOptional<std::optional<M>> : std::true_type {};
template <class M>
struct IsList : std::false_type {};
template <class M>
struct IsList<std::vector<M>> : std::true_type {};

// ---- member types ------------------------------------------------------------

// Whose side of a call a schema describes: what must be sent differs from
// what is always there.
enum class Side { Input, Output };

// How one member type travels: schema(side), read(value, path), write(value).
template <class M>
struct Wire;

// The JSON scalars: their schema type, what a value of them is called in
// errors, and whether a JSON value is one. Params (protocol/Convert) reads
// its members through the same Wire<M>::read, so every typed read of the
// wire says the same thing the same way.
template <class M>
struct Scalar;
template <>
struct Scalar<std::string> {
    static constexpr const char* type = "string";
    static constexpr const char* called = "a string";
    static bool fits(const json& v) { return v.is_string(); }
};
template <>
struct Scalar<bool> {
    static constexpr const char* type = "boolean";
    static constexpr const char* called = "a boolean";
    static bool fits(const json& v) { return v.is_boolean(); }
};
template <>
struct Scalar<int64_t> {
    static constexpr const char* type = "integer";
    static constexpr const char* called = "an integer";
    static bool fits(const json& v) { return v.is_number_integer(); }
};
template <>
struct Scalar<double> {
    static constexpr const char* type = "number";
    static constexpr const char* called = "a number";
    static bool fits(const json& v) { return v.is_number(); }
};

template <class M>
requires requires {
    Scalar<M>::type;
}
struct Wire<M> {
    static json schema(Side = Side::Input) { return {{"type", Scalar<M>::type}}; }
    static M read(const json& v, const std::string& path) {
        if (!Scalar<M>::fits(v))
            throw invalidField(path, std::string("expected ") + Scalar<M>::called + ", got " +
                                         typeName(v));
        return v.get<M>();
    }
    static json write(const M& m) { return m; }
};

// An int is an integer that fits 32 bits.
template <>
struct Wire<int> {
    static json schema(Side = Side::Input) { return Wire<int64_t>::schema(); }
    static int read(const json& v, const std::string& path) {
        int64_t n = Wire<int64_t>::read(v, path);
        if (n < INT32_MIN || n > INT32_MAX) throw invalidField(path, "is out of range");
        return int(n);
    }
    static json write(int n) { return n; }
};

// An integer within bounds (no upper one: Hi left at its default), checked
// where it is read and declared as the schema's minimum and maximum.
template <int64_t Lo, int64_t Hi = INT32_MAX>
struct Bounded {
    int value = 0;
};

template <int64_t Lo, int64_t Hi>
struct Wire<Bounded<Lo, Hi>> {
    static json schema(Side side = Side::Input) {
        json s = Wire<int>::schema(side);
        s["minimum"] = Lo;
        if (Hi != INT32_MAX) s["maximum"] = Hi;
        return s;
    }
    static Bounded<Lo, Hi> read(const json& v, const std::string& path) {
        int n = Wire<int>::read(v, path);
        if (n < Lo || n > Hi)
            throw invalidField(path, Hi == INT32_MAX ? "must be at least " + std::to_string(Lo)
                                                     : "must be between " + std::to_string(Lo) +
                                                           " and " + std::to_string(Hi));
        return {n};
    }
    static json write(Bounded<Lo, Hi> b) { return b.value; }
};

template <Spelled E>
struct Wire<E> {
    static json schema(Side = Side::Input) {
        return {{"type", "string"}, {"enum", spellings<E>()}};
    }
    static E read(const json& v, const std::string& path) {
        auto e = unspell<E>(Wire<std::string>::read(v, path));
        if (!e) throw invalidField(path, "must be " + spellingList<E>());
        return *e;
    }
    static json write(E e) { return std::string(spell(e)); }
};

// A value that may not be known: written as "unknown" then (a claim's
// author, a row's staleness), never left out or guessed.
template <class M>
struct OrUnknown {
    std::optional<M> value;
};

template <class M>
struct Wire<OrUnknown<M>> {
    static json schema(Side side = Side::Input) {
        json s = Wire<M>::schema(side);
        if (s["type"] != "string") s["type"] = json::array({s["type"], "string"});
        return s;
    }
    static json write(const OrUnknown<M>& u) {
        return u.value ? Wire<M>::write(*u.value) : json("unknown");
    }
};

// A JSON object taken as it is (a packet handed back for verification: its
// own checks name what is wrong with it).
struct AnyObject {
    json value;
};

template <>
struct Wire<AnyObject> {
    static json schema(Side = Side::Input) { return {{"type", "object"}}; }
    static AnyObject read(const json& v, const std::string& path) {
        if (!v.is_object())
            throw invalidField(path, std::string("expected an object, got ") + typeName(v));
        return {v};
    }
    static json write(const AnyObject& o) { return o.value; }
};

// Text that must not be empty (a claim's text): declared with minLength 1.
struct NonEmpty {
    std::string value;
};

template <>
struct Wire<NonEmpty> {
    static json schema(Side side = Side::Input) {
        json s = Wire<std::string>::schema(side);
        s["minLength"] = 1;
        return s;
    }
    static NonEmpty read(const json& v, const std::string& path) {
        std::string s = Wire<std::string>::read(v, path);
        if (s.empty()) throw invalidField(path, "must not be empty");
        return {std::move(s)};
    }
    static json write(const NonEmpty& n) { return n.value; }
};

// A number in [0, 1] (a confidence).
struct Fraction {
    double value = 0;
};

template <>
struct Wire<Fraction> {
    static json schema(Side side = Side::Input) {
        json s = Wire<double>::schema(side);
        s["minimum"] = 0;
        s["maximum"] = 1;
        return s;
    }
    static Fraction read(const json& v, const std::string& path) {
        double d = Wire<double>::read(v, path);
        if (!(d >= 0.0 && d <= 1.0)) throw invalidField(path, "must be a number in [0, 1]");
        return {d};
    }
    static json write(Fraction f) { return f.value; }
};

// Text that is one of an enumeration's spellings, kept as text: for values
// the engine holds as words (an anchor's state, a finding's severity). The
// schema's `enum` is the enumeration's; a call's value is checked against it.
template <Spelled E>
struct OneOf {
    std::string value;
};

template <Spelled E>
struct Wire<OneOf<E>> {
    static json schema(Side side = Side::Input) { return Wire<E>::schema(side); }
    static OneOf<E> read(const json& v, const std::string& path) {
        return {std::string(spell(Wire<E>::read(v, path)))};
    }
    static json write(const OneOf<E>& o) { return o.value; }
};

template <class M>
struct Wire<std::vector<M>> {
    static json schema(Side side = Side::Input) {
        return {{"type", "array"}, {"items", Wire<M>::schema(side)}};
    }
    static std::vector<M> read(const json& v, const std::string& path) {
        if (!v.is_array())
            throw invalidField(path, std::string("expected an array, got ") + typeName(v));
        std::vector<M> out;
        for (size_t i = 0; i < v.size(); ++i)
            out.push_back(Wire<M>::read(v[i], path + "[" + std::to_string(i) + "]"));
        return out;
    }
    static json write(const std::vector<M>& list) {
        json out = json::array();
        for (auto& m : list)
            out.push_back(Wire<M>::write(m));
        return out;
    }
};

// A JSON object used as a table: names chosen by the data (a finding's
// code, a reason), each with a value of one type.
template <class V>
struct Wire<std::map<std::string, V>> {
    static json schema(Side side = Side::Input) {
        return {{"type", "object"}, {"additionalProperties", Wire<V>::schema(side)}};
    }
    static std::map<std::string, V> read(const json& v, const std::string& path) {
        if (!v.is_object())
            throw invalidField(path, std::string("expected an object, got ") + typeName(v));
        std::map<std::string, V> out;
        for (auto& [name, value] : v.items())
            out.emplace(name, Wire<V>::read(value, path + "." + name));
        return out;
    }
    static json write(const std::map<std::string, V>& table) {
        json out = json::object();
        for (auto& [name, value] : table)
            out[name] = Wire<V>::write(value);
        return out;
    }
};

// A member always written, null when it has no value (the schema says "a
// string or null"): the reader learns that the answer has no box, rather
// than having to tell a missing member from an old server.
template <class M>
struct Nullable {
    std::optional<M> value;
};

template <class M>
struct Wire<Nullable<M>> {
    static json schema(Side side = Side::Input) {
        json s = Wire<M>::schema(side);
        s["type"] = json::array({s["type"], "null"});
        return s;
    }
    static Nullable<M> read(const json& v, const std::string& path) {
        return {Wire<M>::read(v, path)};
    }
    static json write(const Nullable<M>& n) {
        return n.value ? Wire<M>::write(*n.value) : json(nullptr);
    }
};

template <Shaped S>
json schemaOf(Side side = Side::Input);
template <Shaped S>
S fromJson(const json& j, const std::string& path = "");
template <Shaped S>
json toJson(const S& s);

template <Shaped S>
struct Wire<S> {
    static json schema(Side side = Side::Input) { return schemaOf<S>(side); }
    static S read(const json& v, const std::string& path) { return fromJson<S>(v, path); }
    static json write(const S& s) { return toJson(s); }
};

// ---- the three derivations ---------------------------------------------------

namespace detail {

template <class T, class M>
void readField(const Params& p, T& out, const Field<T, M>& f) {
    const json* v = p.optValue(f.name);
    if constexpr (IsOptional<M>::value) {
        if (v) out.*f.member = Wire<typename M::value_type>::read(*v, p.field(f.name));
    } else if constexpr (IsList<M>::value) {
        if (!v && f.filled == Filled::Required) throw invalidField(p.field(f.name), "is required");
        if (v) out.*f.member = Wire<M>::read(*v, p.field(f.name));
    } else {
        if (!v) throw invalidField(p.field(f.name), "is required");
        out.*f.member = Wire<M>::read(*v, p.field(f.name));
    }
}

// `required` lists a name once (a spread member's may be declared again
// after it, the later one replacing it).
inline void require(json& required, const char* name) {
    for (auto& r : required)
        if (r == name) return;
    required.push_back(name);
}

template <class T, class R>
void readField(const Params&, T&, const Computed<T, R>&) {}

template <class>
inline constexpr bool kNever = false;

template <class T, class M>
void readField(const Params&, T&, const Spread<T, M>&) {
    static_assert(kNever<M>, "a spread member is written, never read");
}

template <class T, class M>
void writeField(json& out, const T& in, const Spread<T, M>& f) {
    json members = Wire<M>::write(in.*f.member); // kept alive for the loop
    for (auto& [name, value] : members.items())
        out[name] = std::move(value);
}

template <class T, class M>
void declareField(json& properties, json& required, Side side, const Spread<T, M>&) {
    json s = Wire<M>::schema(side);
    for (auto& [name, sub] : s["properties"].items())
        properties[name] = sub;
    for (auto& name : s.value("required", json::array()))
        require(required, name.template get<std::string>().c_str());
}

template <class T, class R>
void writeField(json& out, const T& in, const Computed<T, R>& f) {
    if constexpr (IsOptional<R>::value) {
        if (auto v = f.get(in)) out[f.name] = Wire<typename R::value_type>::write(*v);
    } else {
        out[f.name] = Wire<R>::write(f.get(in));
    }
}

template <class T, class R>
void declareField(json& properties, json& required, Side, const Computed<T, R>& f) {
    json s;
    if constexpr (IsOptional<R>::value)
        s = Wire<typename R::value_type>::schema(Side::Output);
    else
        s = Wire<R>::schema(Side::Output);
    if (f.description) s["description"] = f.description;
    properties[f.name] = std::move(s);
    if (!IsOptional<R>::value) require(required, f.name);
}

template <class T, class M>
void writeField(json& out, const T& in, const Field<T, M>& f) {
    const M& m = in.*f.member;
    if constexpr (IsOptional<M>::value) {
        if (m) out[f.name] = Wire<typename M::value_type>::write(*m);
    } else {
        out[f.name] = Wire<M>::write(m);
    }
}

template <class T, class M>
void declareField(json& properties, json& required, Side side, const Field<T, M>& f) {
    json s;
    if constexpr (IsOptional<M>::value)
        s = Wire<typename M::value_type>::schema(side);
    else
        s = Wire<M>::schema(side);
    // A list's pattern is its items'.
    if (f.pattern) (IsList<M>::value ? s["items"] : s)["pattern"] = f.pattern;
    if (f.description) s["description"] = f.description;
    properties[f.name] = std::move(s);
    bool always = !IsOptional<M>::value;
    if (side == Side::Input)
        always = f.filled == Filled::Required ||
                 (always && !IsList<M>::value && f.filled == Filled::ByCaller);
    if (always) require(required, f.name);
}

} // namespace detail

// What a struct is, said once for every schema holding it: a Shape's
// `static constexpr const char* description`.
template <class S>
constexpr const char* descriptionOf() {
    if constexpr (requires { Shape<S>::description; })
        return Shape<S>::description;
    else if constexpr (requires { S::description; })
        return S::description;
    else
        return nullptr;
}

template <Shaped S>
json schemaOf(Side side) {
    json properties = json::object(), required = json::array();
    std::apply(
        [&](const auto&... f) { (detail::declareField(properties, required, side, f), ...); },
        fieldsOf<S>());
    json out = {{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) out["required"] = std::move(required);
    if (const char* d = descriptionOf<S>()) out["description"] = d;
    return out;
}

// As function pointers (an operation's schema functions take no argument).
template <Shaped S>
json inputSchema() {
    return schemaOf<S>(Side::Input);
}
template <Shaped S>
json outputSchema() {
    return schemaOf<S>(Side::Output);
}

template <Shaped S>
S fromJson(const json& j, const std::string& path) {
    Params p(j, path);
    S out{};
    std::apply([&](const auto&... f) { (detail::readField(p, out, f), ...); }, fieldsOf<S>());
    return out;
}

template <Shaped S>
json toJson(const S& s) {
    json out = json::object();
    std::apply([&](const auto&... f) { (detail::writeField(out, s, f), ...); }, fieldsOf<S>());
    return out;
}

} // namespace engram::protocol
