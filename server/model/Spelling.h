// Enumerations with their wire spellings, declared once.
//
// An enumeration that travels (a claim's kind, a verdict, an anchor's
// state) specialises Spelling<E> with its values and their spellings, in
// the order lists show them. The parser, the JSON, the schema's `enum`
// (protocol/Shape.h), the audit log and the messages that list the choices
// all read that one table.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace engram {

// Specialise with `static constexpr std::array values{std::pair{E::A, "a"}, ...}`.
template <class E>
struct Spelling;

template <class E>
concept Spelled = std::is_enum_v<E> && requires {
    Spelling<E>::values;
};

template <Spelled E>
std::string_view spell(E e) {
    for (auto& [value, name] : Spelling<E>::values)
        if (value == e) return name;
    return {};
}

template <Spelled E>
std::optional<E> unspell(std::string_view s) {
    for (auto& [value, name] : Spelling<E>::values)
        if (s == name) return value;
    return std::nullopt;
}

template <Spelled E>
std::vector<std::string> spellings() {
    std::vector<std::string> out;
    for (auto& [value, name] : Spelling<E>::values)
        out.emplace_back(name);
    return out;
}

// "correct, wrong or partial"
template <Spelled E>
std::string spellingList() {
    auto names = spellings<E>();
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

} // namespace engram
