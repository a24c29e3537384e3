// The command line's values with a syntax of their own (--anchor
// PATH#SYMBOL, --evidence TYPE:VALUE) and the commands that read a file or
// standard input, turned into the operations' JSON parameters.
#include "ops/op/Ops.h"

#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace engram::ops {

namespace {

std::optional<int> wholeNumber(std::string_view s) {
    int out = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return out;
}

std::string readInput(const std::string& param, const std::string& file) {
    if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
    std::ifstream in(file, std::ios::binary);
    if (!in) throw invalidField(param, "cannot read '" + file + "'");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

json parseInput(const std::string& param, const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw invalidField(param, "the input is not valid JSON");
    return j;
}

} // namespace

// --anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH
json anchorFlag(const std::string& v) {
    if (auto hash = v.find('#'); hash != std::string::npos) {
        std::string path = v.substr(0, hash), symbol = v.substr(hash + 1);
        if (path.empty() || symbol.empty()) throw invalidField("anchors", "expected PATH#SYMBOL");
        return {{"path", path}, {"symbol", symbol}};
    }
    auto colon = v.rfind(':');
    if (colon != std::string::npos && colon + 1 < v.size()) {
        std::string spec = v.substr(colon + 1);
        if (spec.find_first_not_of("0123456789-") == std::string::npos) {
            std::string path = v.substr(0, colon);
            auto dash = spec.find('-');
            auto first = wholeNumber(spec.substr(0, dash));
            auto last = dash == std::string::npos ? first : wholeNumber(spec.substr(dash + 1));
            if (!first || !last || *first < 1 || *last < *first)
                throw invalidField("anchors", "'" + v +
                                                  "': expected PATH:LINE or PATH:START-END "
                                                  "with 1-based lines");
            if (dash == std::string::npos)
                return {{"path", path}, {"position", {{"line", *first - 1}}}};
            return {{"path", path}, {"range", {{"start_line", *first}, {"end_line", *last}}}};
        }
    }
    return {{"path", v}};
}

// --evidence TYPE:VALUE
json evidenceFlag(const std::string& v) {
    auto colon = v.find(':');
    if (colon == std::string::npos) throw invalidField("evidence", "expected TYPE:VALUE");
    return {{"type", v.substr(0, colon)}, {"value", v.substr(colon + 1)}};
}

// contribute [FILE|-]: an array of items, or {"items": [...], ...}.
void contributeInput(json& params, const std::vector<std::string>& words) {
    if (words.size() > 1) throw invalidField("items", "give one file (or '-')");
    json in = parseInput("items", readInput("items", words.empty() ? "-" : words[0]));
    if (in.is_array()) in = json{{"items", std::move(in)}};
    if (!in.is_object()) throw invalidField("items", "expected an array of items or an object");
    params = std::move(in);
}

// verify-packet FILE|-: a packet, or a whole delegate answer.
void verifyPacketInput(json& params, const std::vector<std::string>& words) {
    if (words.size() != 1)
        throw invalidField("packet", "give the packet file (or '-' for standard input)");
    params["packet"] = parseInput("packet", readInput("packet", words[0]));
}

} // namespace engram::ops
