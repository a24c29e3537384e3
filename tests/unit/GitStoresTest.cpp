// Team stores and a medulla with a remote (engine/GitStores.h): what is
// refused before git runs, and what is shown of a remote. The round trips
// through real remotes are in tests/e2e/TeamStoresTest.cpp.
#include "engine/GitStores.h"
#include "support/TempDir.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <filesystem>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_GitStoresTest {

using namespace engram;
using engram::test::TempDir;

TEST_CASE("a remote's password is never shown, whatever the URL's form") {
    CHECK(redactRemote("https://ana:hunter2hunter2@git.example.com/team.git") ==
          "https://***@git.example.com/team.git");
    CHECK(redactRemote("https://git.example.com/team.git") == "https://git.example.com/team.git");
    CHECK(redactRemote("git@github.com:acme/team.git") == "git@github.com:acme/team.git");
    CHECK(redactRemote("/srv/git/team.git") == "/srv/git/team.git");
    // A user name alone is not a secret; a token in the user's place is
    // the secret scanner's to find.
    CHECK(redactRemote("ssh://ana@host/team.git") == "ssh://ana@host/team.git");
    std::string token = "https://ghp_" + std::string(36, 'a') + "@github.com/acme/t.git";
    CHECK(redactRemote(token).find(std::string(36, 'a')) == std::string::npos);
}

TEST_CASE("team add refuses a name, a URL with a password or an option before running git") {
    TempDir home;
    auto refused = [&](const std::string& name, const std::string& url, const std::string& field) {
        INFO(name << " " << url);
        try {
            addTeam(home.path(), name, url);
            FAIL("accepted");
        } catch (const EngramError& e) {
            CHECK(e.kind == ErrorKind::InvalidParams);
            CHECK(std::string(e.what()).rfind(field + ":", 0) == 0);
            CHECK(std::string(e.what()).find("hunter2") == std::string::npos);
        }
    };
    refused("Platform", "/srv/team.git", "name");
    refused("../x", "/srv/team.git", "name");
    refused("platform", "https://ana:hunter2hunter2@example.com/t.git", "url");
    refused("platform", "--upload-pack=touch /tmp/owned", "url");
    refused("platform", "", "url");
    CHECK_FALSE(std::filesystem::exists(home.path() + "/teams/platform"));
    CHECK(addedTeams(home.path()).empty());
}

TEST_CASE("a store that is not a clone of its own has no sync record") {
    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/claims");
    SyncRecord r = readSyncRecord(dir.path());
    CHECK_FALSE(r.git);
    CHECK_FALSE(r.lastSync.has_value());
    SyncOutcome o = syncStore(dir.path(), "medulla", true);
    CHECK_FALSE(o.reached);
    CHECK(o.error.find("is not a git clone") != std::string::npos);
}

} // namespace unit_GitStoresTest
