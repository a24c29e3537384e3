// Names the tests derive the way a client would, independently of the
// product's own tables (so a test of those tables is not circular).
#pragma once
#include <cctype>
#include <string>

namespace engram::test {

// An operation's name as its LSP method spells it: verify_packet -> verifyPacket.
inline std::string camel(const std::string& snake) {
    std::string out;
    bool up = false;
    for (char c : snake) {
        if (c == '_') {
            up = true;
            continue;
        }
        out += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
        up = false;
    }
    return out;
}

} // namespace engram::test
