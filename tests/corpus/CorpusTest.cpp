// Anchors on real code, in every grammar: the corpus (corpus.conf) is copied
// into a workspace, and
//   1. every definition an independent tool lists, and every definition
//      engram sees, gets a claim anchored at its first line through the real
//      `engram serve` (the line an agent or `--anchor PATH:LINE` gives, or
//      the cursor an editor sends); each must be accepted and resolve to
//      that definition;
//   2. `engram check` reports nothing at all (no finding of any code), with
//      nothing changed: the claims are worded as agents word them, numbers
//      included, and some definitions carry a second, compatible claim;
//   3. after each formatter pass (black, prettier, clang-format, rustfmt,
//      gofmt over a de-formatted copy) `engram check` still reports nothing;
//   4. one token changed inside each definition drifts exactly the claims on
//      that definition and on the definitions enclosing it, judged by the
//      same Anchorer `engram check` uses.
// Each language is one test case; it prints its figures (and appends them
// to $ENGRAM_CORPUS_REPORT when set).
#include "Corpus.h"
#include "Client.h"

#include "engine/Anchoring.h"
#include "store/ClaimFile.h"
#include "support/TempDir.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace engram;
using namespace engram::corpus;
using e2e::json;
namespace fs = std::filesystem;

namespace {

// The identifier words of a name: what a token change must not touch, or it
// would rename a definition rather than change it.
void wordsOf(std::string_view s, std::set<std::string>& out) {
    std::string w;
    for (char c : s) {
        bool id = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
        if (id) {
            w += c;
        } else if (!w.empty()) {
            out.insert(w);
            w.clear();
        }
    }
    if (!w.empty()) out.insert(w);
}

struct File {
    std::string rel;
    std::string pristine;
    std::vector<syntax::Symbol> symbols;
};

// A claim the test made, with the definition it must stand for.
struct Made {
    std::string id;
    size_t n = 0; // the number its text was written with (claimText)
    size_t file = 0;
    size_t symbol = 0; // index into File::symbols
    Anchor anchor;     // as stored in the claim file
};

// The index of the symbol an anchor names in the pristine file: same
// qualified name and kind, then its place among them when it had twins.
std::optional<size_t> symbolOf(const File& f, const Anchor& a) {
    std::vector<size_t> same;
    for (size_t i = 0; i < f.symbols.size(); ++i)
        if (f.symbols[i].qualified == a.symbol && f.symbols[i].kind == a.nodeKind)
            same.push_back(i);
    if (a.twins > 1 && size_t(a.twins) == same.size()) same = {same[size_t(a.ordinal - 1)]};
    for (size_t i : same)
        if (f.symbols[i].hash == a.hash) return i;
    return std::nullopt;
}

bool contains(const syntax::Symbol& s, int line1) {
    uint32_t line = uint32_t(line1 - 1);
    uint32_t last = s.endColumn == 0 && s.endLine > s.startLine ? s.endLine - 1 : s.endLine;
    return line >= s.startLine && line <= last;
}

// Does the tool's name for a definition match engram's?
bool sameName(const corpus::Definition& d, const syntax::Symbol& s) {
    if (d.name == s.name) return true;
    // A C++ specialisation: ctags "formatter" is engram "formatter<bigint>".
    if (s.name.starts_with(d.name + "<")) return true;
    // ctags names a Rust impl block after its type: "impl Display for P",
    // "impl Source for [S]" and "impl Source for (K,V)" are "P", "S", "V".
    if (s.kind == "impl") {
        std::string_view n = s.name;
        if (auto fo = n.rfind(" for "); fo != std::string_view::npos) n = n.substr(fo + 5);
        std::set<std::string> words;
        wordsOf(n, words);
        return words.count(d.name) > 0;
    }
    return false;
}

// What an agent writes about a definition: sentences with numbers in them
// (line numbers, counts, limits, versions, ordinals), the kind of text a
// contradiction rule must not mistake for a disagreement. `second` gives a
// compatible second claim on the same definition, with other numbers.
std::string claimText(size_t n, const std::string& name, const std::string& file, bool second) {
    const std::string f = file.substr(file.find_last_of('/') + 1);
    const std::string line = std::to_string(3 + n % 97), line2 = std::to_string(40 + n % 61);
    const std::string k = std::to_string(2 + n % 7), m = std::to_string(10 + n % 90);
    const std::string q = "`" + name + "`";
    // The second claim on a definition says something compatible with the
    // first (`n` is the first's), sharing its words with other numbers.
    switch (n % 8) {
    case 0:
        return second ? "claim " + std::to_string(n + 1) + " about " + q +
                            ": the early return skips the cleanup"
                      : "claim " + std::to_string(n) + " about " + q + " in " + f;
    case 1:
        return second ? "the early return at line " + line2 + " of " + q + " handles the empty case"
                      : q + " (" + f + ") is called from " + k + " places; the loop at line " +
                            line + " runs once per item";
    case 2:
        return second
                   ? name + " was deprecated in release 2." + k + " and kept for compatibility"
                   : name + " was added in release 1." + k + " and is covered by " + m + " tests";
    case 3:
        return second ? q + " frees its buffers at line " + line2
                      : q + " allocates at most " + k + " buffers of " + m + " bytes; see line " +
                            line;
    case 4:
        return second ? "step " + std::to_string(2 + n % 4) + " of " + k + " follows " + q
                      : "step " + std::to_string(1 + n % 4) + " of " + k + ": " + q +
                            " must be called after the setup in " + f;
    case 5:
        return second ? "the main path of " + q + " ends at line " + std::to_string(70 + n % 30)
                      : q + " returns early at line " + line + "; the main path starts at line " +
                            line2;
    case 6:
        return second ? "since release " + k + ".1, " + q + " must not be called twice"
                      : "since release " + k + "." + std::to_string(n % 10) + ", " + q +
                            " must not be called from a signal handler";
    default:
        return second ? "see PR #" + std::to_string(1000 + n) + " for why " + q +
                            " changed last; it was reviewed by " + k + " people"
                      : q + " takes " + k + " arguments and was last changed in PR #" +
                            std::to_string(100 + n % 900);
    }
}

std::vector<json> anchorFindings(const json& report) {
    std::vector<json> out;
    for (auto& f : report["findings"]) {
        std::string code = f["code"];
        if (code == "engram.drifted" || code == "engram.moved" || code == "engram.orphaned")
            out.push_back(f);
    }
    return out;
}

std::string firstMessages(const std::vector<json>& findings, size_t n = 12) {
    std::string out;
    for (size_t i = 0; i < findings.size() && i < n; ++i)
        out += "\n  " + findings[i]["message"].get<std::string>().substr(0, 300);
    return out;
}

void report(const std::string& line) {
    std::cout << line << std::endl;
    if (const char* path = std::getenv("ENGRAM_CORPUS_REPORT"); path && *path) {
        std::ofstream out(path, std::ios::app);
        out << line << '\n';
    }
}

void runCorpus(const std::string& lang) {
    test::TempDir ws, home;
    const std::string root = ws.path();
    std::vector<File> files;
    std::set<std::string> taken;
    for (auto& src : sources(lang)) {
        // Flattened names, unique: the last directory and the file name.
        fs::path p(src);
        std::string name = p.filename().string();
        if (taken.count(name)) name = p.parent_path().filename().string() + "_" + name;
        taken.insert(name);
        File f;
        f.rel = "src/" + name;
        f.pristine = readAll(src);
        ws.write(f.rel, f.pristine);
        // The language engram gives the file (a C++ header may be `.h`).
        f.symbols = syntax::extractSymbols(syntax::languageFor(f.rel, f.pristine).value_or(lang),
                                           f.pristine);
        files.push_back(std::move(f));
    }
    std::map<std::string, size_t> fileIndex;
    std::vector<std::string> absFiles, relFiles;
    for (size_t i = 0; i < files.size(); ++i) {
        fileIndex[files[i].rel] = i;
        absFiles.push_back(root + "/" + files[i].rel);
        relFiles.push_back(files[i].rel);
    }
    auto restore = [&] {
        for (auto& f : files)
            writeAll(root + "/" + f.rel, f.pristine);
    };

    // 1. Anchor every definition at its first line.
    auto defs = inventory(lang, root, relFiles);
    size_t engramSymbols = 0;
    for (auto& f : files)
        engramSymbols += f.symbols.size();
    INFO(lang << ": " << defs.size() << " definitions listed, " << engramSymbols
              << " seen by engram");
    REQUIRE(defs.size() > 100);

    std::vector<Made> made;
    std::vector<std::string> refused, misresolved;
    std::set<std::pair<size_t, size_t>> covered; // (file, symbol) with a claim
    {
        e2e::Server server({home.path(), {}, {}, {}});
        server.initialize(root);
        int n = 0;
        auto remember = [&](const json& anchor, const std::string& what, const std::string& name,
                            const std::string& file,
                            std::optional<size_t> second = {}) -> std::optional<Made> {
            json r = server.request(
                "engram/remember",
                {{"text", claimText(second ? *second : size_t(n), name, file, second.has_value())},
                 {"label", "corpus-" + std::to_string(n)},
                 {"agent", "test:corpus"},
                 {"anchors", json::array({anchor})}},
                std::chrono::seconds(30));
            ++n;
            if (!r.contains("result")) {
                refused.push_back(what + ": " + r["error"]["message"].get<std::string>());
                return std::nullopt;
            }
            Made m;
            m.n = size_t(n - 1);
            m.id = r["result"]["claim"]["id"];
            Claim c = parseClaim(readAll(root + "/.engram/claims/" + m.id + ".md"), m.id);
            REQUIRE(c.anchors.size() == 1);
            m.anchor = c.anchors[0];
            m.file = fileIndex.at(m.anchor.path);
            auto at = symbolOf(files[m.file], m.anchor);
            if (!at) {
                misresolved.push_back(what + ": resolved to " + m.anchor.symbol +
                                      ", which the file does not hold as anchored");
                return std::nullopt;
            }
            m.symbol = *at;
            return m;
        };
        for (auto& d : defs) {
            std::string what = d.file + ":" + std::to_string(d.line) + " " + d.kind + " " + d.name;
            // `--anchor PATH:LINE`: a line, no column.
            auto m = remember({{"path", d.file}, {"position", {{"line", d.line - 1}}}}, what,
                              d.name, d.file);
            if (!m) continue;
            const File& f = files[m->file];
            const auto& s = f.symbols[m->symbol];
            if (!sameName(d, s) || !contains(s, d.nameLine)) {
                misresolved.push_back(what + ": resolved to " + syntax::writtenName(s) + " (" +
                                      s.kind + ", line " + std::to_string(s.startLine + 1) + ")");
                continue;
            }
            covered.insert({m->file, m->symbol});
            made.push_back(*m);
        }
        // Every definition engram sees, from a cursor on its first character
        // (what an editor sends), unless a claim already stands for it.
        for (size_t fi = 0; fi < files.size(); ++fi) {
            const File& f = files[fi];
            for (size_t si = 0; si < f.symbols.size(); ++si) {
                if (covered.count({fi, si})) continue;
                const auto& s = f.symbols[si];
                std::string what = f.rel + ":" + std::to_string(s.startLine + 1) + " " +
                                   syntax::writtenName(s) + " (" + s.kind + ")";
                // The cursor's column in UTF-16 code units; the corpus
                // lines before a definition's name are ASCII.
                auto m =
                    remember({{"uri", e2e::fileUri(root + "/" + f.rel)},
                              {"position", {{"line", s.startLine}, {"character", s.startColumn}}}},
                             what, syntax::writtenName(s), f.rel);
                if (!m) continue;
                if (m->file != fi || m->symbol != si) {
                    const auto& got = files[m->file].symbols[m->symbol];
                    misresolved.push_back(what + ": resolved to " + syntax::writtenName(got) +
                                          " (line " + std::to_string(got.startLine + 1) + ")");
                    continue;
                }
                covered.insert({fi, si});
                made.push_back(*m);
            }
        }
        // A second claim on every seventh definition, compatible with the
        // first (other line numbers, counts and versions), on the same
        // anchor as the first resolved it.
        for (size_t i = 0, count = made.size(); i < count; i += 7) {
            const Made first = made[i];
            const auto& s = files[first.file].symbols[first.symbol];
            json anchor = {{"uri", e2e::fileUri(root + "/" + first.anchor.path)},
                           {"position", {{"line", s.startLine}, {"character", s.startColumn}}}};
            std::string what = first.anchor.path + " " + syntax::writtenName(s) + " (second claim)";
            auto m = remember(anchor, what, syntax::writtenName(s), first.anchor.path, first.n);
            if (!m) continue;
            if (m->file != first.file || m->symbol != first.symbol) {
                misresolved.push_back(what + ": resolved to another definition");
                continue;
            }
            made.push_back(*m);
        }
        server.call("shutdown", json(nullptr));
        server.notify("exit", json(nullptr));
        server.waitExit();
    }
    std::string refusedList, misList;
    for (size_t i = 0; i < refused.size() && i < 15; ++i)
        refusedList += "\n  " + refused[i];
    for (size_t i = 0; i < misresolved.size() && i < 15; ++i)
        misList += "\n  " + misresolved[i];
    std::ostringstream summary;
    summary << lang << ": " << defs.size() << " definitions listed by an independent tool, "
            << engramSymbols << " seen by engram; " << made.size() << " claims anchored, "
            << refused.size() << " refused, " << misresolved.size() << " resolved wrongly";
    {
        INFO("refused:" << refusedList);
        CHECK(refused.empty());
    }
    {
        INFO("resolved wrongly:" << misList);
        CHECK(misresolved.empty());
    }

    auto checkAll = [&](const std::string& when) {
        auto r = e2e::runCli({"--root", root, "--home", home.path(), "check", "--format", "json"},
                             {}, "", std::chrono::seconds(120));
        INFO(when << ": engram check: " << r.err);
        REQUIRE((r.exitCode == 0 || r.exitCode == 1));
        return r.parsed();
    };
    auto check = [&](const std::string& when) { return anchorFindings(checkAll(when)); };

    // 2. Nothing changed: nothing to report, of any code.
    const json unchangedReport = checkAll("with nothing changed");
    std::vector<json> unchanged(unchangedReport["findings"].begin(),
                                unchangedReport["findings"].end());
    summary << "; findings with nothing changed: " << unchanged.size();
    {
        INFO("findings with nothing changed:" << firstMessages(unchanged));
        CHECK(unchanged.empty());
    }

    // 3. Each formatter pass, from the pristine files.
    for (auto& pass : formatterPasses(lang)) {
        restore();
        std::string err = pass.run(absFiles);
        INFO(pass.name << ": " << err);
        REQUIRE(err.empty());
        size_t changedFiles = 0;
        for (auto& f : files)
            changedFiles += readAll(root + "/" + f.rel) != f.pristine;
        auto found = check("after " + pass.name);
        summary << "; after " << pass.name << ": " << found.size() << " findings (" << changedFiles
                << "/" << files.size() << " files rewritten)";
        CHECK((pass.restores || changedFiles > 0)); // a pass that changes nothing proves nothing
        INFO("after " << pass.name << ":" << firstMessages(found));
        CHECK(found.empty());
    }
    restore();

    // 4. One token changed inside each definition that has a claim.
    Anchorer anchorer(root);
    std::map<size_t, std::vector<const Made*>> byFile;
    for (auto& m : made)
        byFile[m.file].push_back(&m);
    size_t tried = 0, detected = 0, noToken = 0;
    std::vector<std::string> wrong;
    for (auto& [fi, claims] : byFile) {
        const File& f = files[fi];
        std::set<std::string> avoidSet;
        for (auto& s : f.symbols) {
            wordsOf(s.qualified, avoidSet);
            wordsOf(s.name, avoidSet);
        }
        std::vector<std::string> avoid(avoidSet.begin(), avoidSet.end());
        std::set<size_t> done;
        for (const Made* target : claims) {
            if (!done.insert(target->symbol).second) continue;
            const auto& s = f.symbols[target->symbol];
            std::vector<Span> nested;
            for (auto& o : f.symbols)
                if (&o != &s && o.startByte >= s.startByte && o.endByte <= s.endByte &&
                    !(o.startByte == s.startByte && o.endByte == s.endByte))
                    nested.push_back({o.startByte, o.endByte});
            Span tok = pickToken(lang, f.pristine, s.startByte, s.endByte, avoid, nested);
            if (!tok.end) {
                ++noToken;
                continue;
            }
            ++tried;
            // The new word keeps the old one's case: an upper-case macro
            // stays one (what hides it from the parser, Macros.cpp, is part
            // of its kind, not of its spelling).
            std::string word = f.pristine.substr(tok.begin, tok.end - tok.begin);
            bool upper = std::none_of(word.begin(), word.end(), [](char ch) {
                return std::islower(static_cast<unsigned char>(ch));
            });
            std::string mutated = f.pristine;
            mutated.insert(tok.end, upper ? "ZQ" : "Zq");
            writeAll(root + "/" + f.rel, mutated);
            bool ok = true;
            std::string detail;
            for (const Made* m : claims) {
                const auto& ms = f.symbols[m->symbol];
                bool expect = ms.startByte <= tok.begin && tok.end <= ms.endByte;
                std::string state = anchorer.check(m->anchor).state;
                if ((state == "drifted") != expect || (!expect && state != "intact")) {
                    ok = false;
                    detail += " " + syntax::writtenName(ms) + "=" + state +
                              (expect ? " (expected drifted)" : " (expected intact)");
                }
            }
            if (ok)
                ++detected;
            else
                wrong.push_back(f.rel + ": '" + f.pristine.substr(tok.begin, tok.end - tok.begin) +
                                "' changed in " + syntax::writtenName(s) + " (line " +
                                std::to_string(s.startLine + 1) + "):" + detail);
        }
        writeAll(root + "/" + f.rel, f.pristine);
    }
    summary << "; one-token changes: " << detected << "/" << tried
            << " drifted exactly their definition and its enclosers (" << noToken
            << " definitions without a token to change)";
    report(summary.str());
    std::string wrongList;
    for (size_t i = 0; i < wrong.size() && i < 15; ++i)
        wrongList += "\n  " + wrong[i];
    INFO("one-token changes judged wrongly:" << wrongList);
    CHECK(wrong.empty());
}

} // namespace

TEST_CASE("python", "[corpus]") {
    runCorpus("python");
}
TEST_CASE("javascript", "[corpus]") {
    runCorpus("javascript");
}
TEST_CASE("typescript", "[corpus]") {
    runCorpus("typescript");
}
TEST_CASE("tsx", "[corpus]") {
    runCorpus("tsx");
}
TEST_CASE("c", "[corpus]") {
    runCorpus("c");
}
TEST_CASE("cpp", "[corpus]") {
    runCorpus("cpp");
}
TEST_CASE("go", "[corpus]") {
    runCorpus("go");
}
TEST_CASE("rust", "[corpus]") {
    runCorpus("rust");
}
TEST_CASE("java", "[corpus]") {
    runCorpus("java");
}
