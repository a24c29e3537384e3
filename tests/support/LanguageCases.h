// The per-language fixture table shared by the symbol and anchor tests.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace engram::test {

struct Edit {
    std::string from, to;
};

struct Case {
    std::string lang;
    std::string file;                                         // under fixtures/languages/<lang>/
    std::vector<std::pair<std::string, std::string>> symbols; // qualified, kind
    Edit body;              // changes a constant or an operator...
    std::string bodySymbol; // ...inside this symbol
    Edit rename;            // renames this symbol's definition only:
    std::string renamedFrom, renamedTo;
    // innermostAt probes: a snippet inside a method, and one inside a class
    // (or struct) but outside its methods, with the expected symbols.
    std::string inMethod, method, inClass, klass;
};

// Every language engram parses, one case each.
const std::vector<Case>& cases();
std::string fixturesDir();
// The fixture of a case, or its reformatted variant (the same code after a
// formatter pass and comment edits).
std::string fixturePath(const Case& c, bool reformatted = false);
std::string readFixture(const std::string& path);
// Replaces the single occurrence of e.from (the test fails otherwise).
std::string apply(std::string text, const Edit& e);

} // namespace engram::test
