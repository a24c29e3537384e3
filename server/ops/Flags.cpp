// The command line's values with a syntax of their own (--anchor
// PATH#SYMBOL, --evidence TYPE:VALUE) and the commands that read a file or
// standard input, turned into the operations' JSON parameters.
#include "ops/op/Ops.h"
#include "util/Fs.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace engram::ops {

namespace {

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

// --anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH: the wire reads
// that text form itself (protocol::Wire<AnchorSpec>), in every surface.
json anchorFlag(const std::string& v) {
    return v;
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

// verify-packet FILE|-|ID: a packet, a whole delegate answer, or the id of
// a packet this machine composed lately.
void verifyPacketInput(json& params, const std::vector<std::string>& words) {
    if (words.size() != 1)
        throw invalidField("packet", "give the packet file (or '-' for standard input, or the "
                                     "packet's id)");
    const std::string& w = words[0];
    bool id = w.size() == 64 && w.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (id && !statFile(w)) {
        params["packet_id"] = w;
        return;
    }
    params["packet"] = parseInput("packet", readInput("packet", w));
}

} // namespace engram::ops
