// The digests of every fixture definition, pinned (fixtures/digests/).
//
// An anchor is judged by comparing digests, so a change to what a digest
// covers (a normalisation rule, a name, which definitions there are) makes
// every claim stamped before it read as changed on the day of the upgrade.
// Such a change must bump syntax::kDigestRules, which the anchors record
// (`rules=`), so that stamps of the earlier rules are judged as such
// (ARCHITECTURE.md "Digest versions"). This test is what notices the change:
// it extracts every source file of the fixtures (every grammar) and compares
// each definition's hash, shape, head and tokens, and each file's white
// space digest, with fixtures/digests/<language>.tsv, which only
// scripts/update-digests.sh writes (ENGRAM_UPDATE_DIGESTS=1). Each file's
// SHA-256 is kept too, so an edited fixture is told apart from changed rules,
// and the update refuses to rewrite changed digests of unchanged files while
// the version stays the same.
#include "engine/Anchoring.h"
#include "support/LanguageCases.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Hash.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_DigestsTest {

using namespace engram;
using namespace engram::test;
namespace fs = std::filesystem;

namespace {

// The fixtures whose source files are pinned (every grammar has some).
const char* const kSourceDirs[] = {"identity", "languages", "recovery", "sample-workspace"};

const char* const kBump =
    "normalisation changed: bump the digest rules version (syntax::kDigestRules), keep the old "
    "rules for anchors stamped by earlier versions, then run scripts/update-digests.sh";

// One pinned source file: its bytes' SHA-256, its white space digest (file
// and range anchors) and its definitions, one line each.
struct Pinned {
    std::string bytes, text;
    std::vector<std::string> definitions;
};
// language -> fixture path (relative to fixtures/) -> what is pinned
using Goldens = std::map<std::string, std::map<std::string, Pinned>>;

std::string definitionLine(const syntax::Symbol& s) {
    return std::to_string(s.startLine + 1) + "\t" + syntax::writtenName(s) + "\t" + s.kind + "\t" +
           s.hash + "\t" + s.shapeHash + "\t" + s.headHash + "\t" + s.tokenHash + "\t" +
           (s.hasError ? "1" : "0");
}

Goldens extractNow() {
    Goldens out;
    for (const char* dir : kSourceDirs) {
        std::vector<fs::path> files;
        for (auto& e : fs::recursive_directory_iterator(fixturesDir() + "/" + dir))
            if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (auto& p : files) {
            std::string rel = fs::relative(p, fixturesDir()).generic_string();
            std::string text = readFixture(p.string());
            auto lang = syntax::languageFor(rel, text);
            if (!lang) continue;
            Pinned& pin = out[*lang][rel];
            pin.bytes = sha256Hex(text);
            pin.text = textDigest(text);
            for (auto& s : syntax::extractSymbols(*lang, text))
                pin.definitions.push_back(definitionLine(s));
        }
    }
    return out;
}

std::string goldenDir() {
    return fixturesDir() + "/digests";
}

// A golden file: its rules version (0 when the header is missing) and files.
struct Golden {
    int rules = 0;
    std::map<std::string, Pinned> files;
};

Golden readGolden(const std::string& path) {
    Golden g;
    std::istringstream in(readFixture(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto tab = line.find('\t');
        std::string kind = line.substr(0, tab),
                    rest = tab == std::string::npos ? "" : line.substr(tab + 1);
        if (kind == "rules") {
            g.rules = std::atoi(rest.c_str());
        } else if (kind == "file") {
            // file <path> <sha256> <white space digest>
            std::istringstream f(rest);
            std::string p, bytes, text;
            std::getline(f, p, '\t');
            std::getline(f, bytes, '\t');
            std::getline(f, text, '\t');
            g.files[p].bytes = bytes;
            g.files[p].text = text;
        } else if (kind == "def") {
            auto t = rest.find('\t');
            g.files[rest.substr(0, t)].definitions.push_back(rest.substr(t + 1));
        }
    }
    return g;
}

std::string render(const std::string& language, const std::map<std::string, Pinned>& files) {
    std::string out =
        "# The digests of every " + language +
        " definition in the fixtures under the digest rules below (syntax::kDigestRules).\n"
        "# Written by scripts/update-digests.sh; checked by tests/unit/DigestsTest.cpp.\n"
        "# file PATH SHA256 WHITESPACE-DIGEST\n"
        "# def PATH LINE NAME KIND HASH SHAPE HEAD TOKENS ERRORS\n"
        "rules\t" +
        std::to_string(syntax::kDigestRules) + "\n";
    for (auto& [path, pin] : files) {
        out += "file\t" + path + "\t" + pin.bytes + "\t" + pin.text + "\n";
        for (auto& d : pin.definitions)
            out += "def\t" + path + "\t" + d + "\n";
    }
    return out;
}

// What differs between the pinned file and the extraction now, one line
// each.
std::vector<std::string> differences(const std::string& path, const Pinned* was,
                                     const Pinned* now) {
    std::vector<std::string> out;
    if (!was) return {path + ": not pinned"};
    if (!now) return {path + ": pinned, but no longer a fixture source file"};
    if (was->text != now->text)
        out.push_back(path + ": white space digest " + was->text + " -> " + now->text);
    size_t n = std::max(was->definitions.size(), now->definitions.size());
    for (size_t i = 0; i < n; ++i) {
        const std::string* a = i < was->definitions.size() ? &was->definitions[i] : nullptr;
        const std::string* b = i < now->definitions.size() ? &now->definitions[i] : nullptr;
        if (a && b && *a == *b) continue;
        out.push_back(path + ": " + (a ? "pinned  " + *a : "pinned  (none)") + "\n    " +
                      (b ? "now     " + *b : "now     (none)"));
    }
    return out;
}

} // namespace

TEST_CASE("digests: every fixture definition's digests are pinned under the rules version",
          "[digests]") {
    Goldens now = extractNow();
    // Every grammar is covered, so no language's normalisation can change
    // unnoticed.
    for (const char* lang :
         {"python", "javascript", "typescript", "tsx", "c", "cpp", "go", "rust", "java"}) {
        INFO(lang);
        CHECK(now.count(lang));
    }
    const bool update = std::getenv("ENGRAM_UPDATE_DIGESTS") != nullptr;

    std::vector<std::string> changedRules, editedSources, versionProblems;
    for (auto& [lang, files] : now) {
        std::string path = goldenDir() + "/" + lang + ".tsv";
        Golden g = fs::exists(path) ? readGolden(path) : Golden{};
        if (g.rules != syntax::kDigestRules)
            versionProblems.push_back(lang + ".tsv pins rules " + std::to_string(g.rules) +
                                      ", this engram's are " +
                                      std::to_string(syntax::kDigestRules));
        std::set<std::string> paths;
        for (auto& [p, _] : files)
            paths.insert(p);
        for (auto& [p, _] : g.files)
            paths.insert(p);
        for (auto& p : paths) {
            const Pinned* was = g.files.count(p) ? &g.files.at(p) : nullptr;
            const Pinned* is = files.count(p) ? &files.at(p) : nullptr;
            auto diff = differences(p, was, is);
            // Unchanged bytes with changed digests: the rules changed.
            auto& into = was && is && was->bytes == is->bytes ? changedRules : editedSources;
            into.insert(into.end(), diff.begin(), diff.end());
        }
    }

    auto list = [](const std::vector<std::string>& lines) {
        std::string out;
        for (size_t i = 0; i < lines.size() && i < 40; ++i)
            out += "  " + lines[i] + "\n";
        if (lines.size() > 40) out += "  ... and " + std::to_string(lines.size() - 40) + " more\n";
        return out;
    };

    if (update) {
        // Changed digests of unchanged files under the same version would
        // make stamps of the old rules pass for today's: refused.
        bool sameVersion = versionProblems.empty();
        {
            INFO("digests of unchanged fixture files changed while the rules version stayed "
                 << syntax::kDigestRules << ":\n"
                 << list(changedRules) << kBump);
            REQUIRE((changedRules.empty() || !sameVersion));
        }
        fs::create_directories(goldenDir());
        for (auto& e : fs::directory_iterator(goldenDir()))
            if (e.path().extension() == ".tsv" && !now.count(e.path().stem().string()))
                fs::remove(e.path());
        for (auto& [lang, files] : now) {
            std::ofstream out(goldenDir() + "/" + lang + ".tsv",
                              std::ios::binary | std::ios::trunc);
            out << render(lang, files);
            REQUIRE(out.good());
        }
        WARN("wrote " << now.size() << " files under " << goldenDir());
        return;
    }

    {
        INFO("the digest rules version was bumped (or the goldens are missing) without "
             "regenerating them; run scripts/update-digests.sh:\n"
             << list(versionProblems));
        CHECK(versionProblems.empty());
    }
    {
        INFO("digests of fixture files that did not change differ from fixtures/digests:\n"
             << list(changedRules) << kBump);
        CHECK(changedRules.empty());
    }
    {
        INFO("fixture source files changed since fixtures/digests was written (if their digests "
             "changed only because their code did, run scripts/update-digests.sh):\n"
             << list(editedSources));
        CHECK(editedSources.empty());
    }
}

// An earlier version kept (syntax::kKeptRules on) extracts as it did: its
// goldens, as that version wrote them, stay in fixtures/digests/rules-N/,
// and every pinned file unchanged since is extracted by it again, exactly.
TEST_CASE("digests: each kept earlier version of the rules still gives its own digests",
          "[digests]") {
    REQUIRE(syntax::kKeptRules <= syntax::kDigestRules);
    for (int v = syntax::kKeptRules; v < syntax::kDigestRules; ++v) {
        std::string dir = goldenDir() + "/rules-" + std::to_string(v);
        INFO("digest rules " << v << ", goldens in " << dir);
        REQUIRE(fs::is_directory(dir));
        size_t compared = 0, otherToday = 0;
        std::map<std::string, bool> changedLanguages; // said changed -> found changed
        for (auto& e : fs::directory_iterator(dir)) {
            if (e.path().extension() != ".tsv") continue;
            std::string lang = e.path().stem().string();
            Golden g = readGolden(e.path().string());
            CHECK(g.rules == v);
            for (auto& [rel, was] : g.files) {
                std::string text = readFixture(fixturesDir() + "/" + rel);
                if (sha256Hex(text) != was.bytes) continue; // edited since: nothing to compare
                Pinned now{was.bytes, textDigest(text), {}}, today = now;
                for (auto& s : syntax::extractSymbols(lang, text, {}, nullptr, v))
                    now.definitions.push_back(definitionLine(s));
                for (auto& s : syntax::extractSymbols(lang, text))
                    today.definitions.push_back(definitionLine(s));
                std::string diff;
                for (auto& d : differences(rel, &was, &now))
                    diff += d + "\n";
                INFO(lang << ": " << diff);
                CHECK(diff.empty());
                ++compared;
                otherToday += today.definitions != now.definitions;
                // A language the version is said to extract as today's rules
                // do is judged by today's symbols alone (byKeptRules): it
                // must not differ on any pinned file.
                if (syntax::extractsAsToday(lang, v))
                    CHECK(today.definitions == now.definitions);
                else
                    changedLanguages[lang] |= today.definitions != now.definitions;
            }
        }
        CHECK(compared > 0);
        // Where today's rules digest otherwise, a kept version is what
        // judges the anchors it stamped (else it need not be kept).
        CHECK(otherToday > 0);
        // And the languages said changed are changed on some pinned file
        // (else the second extraction would be paid for nothing).
        for (const auto& [lang, found] : changedLanguages) {
            INFO(lang << " is said to extract otherwise under rules " << v);
            CHECK(found);
        }
    }
}

} // namespace unit_DigestsTest
