// The per-language fixture table shared by the symbol and anchor tests: each
// language's fixture file, the definitions it must yield, and a body edit and
// a rename that the tests apply to it.
#include "support/LanguageCases.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace engram::test {

std::string fixturesDir() {
    if (const char* env = std::getenv("ENGRAM_FIXTURES"); env && *env) return env;
    return ENGRAM_FIXTURES_DIR;
}

std::string readFixture(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"python",
         "token_validator.py",
         {{"constant_time_equal", "function"},
          {"TokenValidator", "class"},
          {"TokenValidator.__init__", "constructor"},
          {"TokenValidator.split", "method"},
          {"TokenValidator.validate", "method"},
          {"TokenValidator.Cache", "class"},
          {"TokenValidator.Cache.lookup", "method"},
          {"TokenValidator.Cache.lookup.normalise", "function"}},
         {"if len(parts) != 3:", "if len(parts) != 4:"},
         "TokenValidator.split",
         {"def lookup(self, key):", "def find(self, key):"},
         "TokenValidator.Cache.lookup",
         "TokenValidator.Cache.find",
         "expected = self.sign",
         "TokenValidator.validate",
         "\"\"\"Checks signed",
         "TokenValidator"},
        {"javascript",
         "session.js",
         {{"parseCookie", "function"},
          {"parseCookie.decode", "function"},
          {"isExpired", "function"},
          {"SessionStore", "class"},
          {"SessionStore.constructor", "constructor"},
          {"SessionStore.get", "method"},
          {"SessionStore.put", "method"},
          {"SessionStore.onEvict", "method"},
          {"handlers.login", "method"},
          {"handlers.logout", "method"}},
         {"now - session.issuedAt > DEFAULT_TTL", "now - session.issuedAt >= DEFAULT_TTL"},
         "isExpired",
         {"  put(session) {", "  store(session) {"},
         "SessionStore.put",
         "SessionStore.store",
         "this.#sessions.set",
         "SessionStore.put",
         "#sessions = new Map",
         "SessionStore"},
        {"typescript",
         "rateLimiter.ts",
         {{"Clock", "interface"},
          {"Clock.now", "method"},
          {"Verdict", "type"},
          {"Unit", "enum"},
          {"perSecond", "function"},
          {"Limiter", "class"},
          {"Limiter.check", "method"},
          {"TokenBucket", "class"},
          {"TokenBucket.constructor", "constructor"},
          {"TokenBucket.check", "method"},
          {"TokenBucket.refill", "method"},
          {"TokenBucket.reset", "method"},
          {"Limits", "namespace"},
          {"Limits.forUser", "function"}},
         {"(now - bucket.at) * 0.5", "(now - bucket.at) * 0.25"},
         "TokenBucket.refill",
         {"private refill(key: string)", "private topUp(key: string)"},
         "TokenBucket.refill",
         "TokenBucket.topUp",
         "bucket.tokens -= 1",
         "TokenBucket.check",
         "private readonly buckets",
         "TokenBucket"},
        {"tsx",
         "SessionBadge.tsx",
         {{"BadgeProps", "interface"},
          {"formatRemaining", "function"},
          {"SessionBadge", "function"},
          {"BadgeList", "class"},
          {"BadgeList.render", "method"}},
         {"Math.round(ms / 60000)", "Math.round(ms / 1000)"},
         "formatRemaining",
         {"export function formatRemaining(", "export function formatLeft("},
         "formatRemaining",
         "formatLeft",
         "<ul>{this.props",
         "BadgeList.render",
         "extends React.Component",
         "BadgeList"},
        {"c",
         "ring_buffer.c",
         {{"RING_CAPACITY", "macro"},
          {"ring", "struct"},
          {"ring_stats", "struct"},
          {"ring_status", "enum"},
          {"min_size", "function"},
          {"ring_init", "function"},
          {"ring_push", "function"},
          {"ring_status_name", "function"}},
         {"return a < b ? a : b;", "return a <= b ? a : b;"},
         "min_size",
         {"void ring_init(struct ring *r)", "void ring_reset(struct ring *r)"},
         "ring_init",
         "ring_reset",
         "r->len += take",
         "ring_push",
         "size_t head;",
         "ring"},
        {"cpp",
         "config_parser.cpp",
         {{"engram::config", "namespace"},
          {"engram::config::trim", "function"},
          {"engram::config::Parser", "class"},
          {"engram::config::Parser::Entry", "struct"},
          {"engram::config::Parser::Entry::empty", "method"},
          {"engram::config::Parser::get", "method"},
          {"engram::config::clampTo", "function"},
          {"engram::config::Parser::Parser", "constructor"},
          {"engram::config::Parser::parse", "method"}},
         {"row.front() == '#') continue;", "row.front() == ';') continue;"},
         "engram::config::Parser::parse",
         {"bool Parser::parse(std::string_view text) {",
          "bool Parser::load(std::string_view text) {"},
         "engram::config::Parser::parse",
         "engram::config::Parser::load",
         "auto it = entries_.find",
         "engram::config::Parser::get",
         "char separator_;",
         "engram::config::Parser"},
        {"go",
         "server.go",
         {{"Handler", "interface"},
          {"Handler.ServeHTTP", "method"},
          {"Server", "struct"},
          {"Middleware", "type"},
          {"NewServer", "function"},
          {"Server.Handle", "method"},
          {"Server.Lookup", "method"},
          {"greet", "function"},
          {"greet.format", "function"}},
         {"s.routes[s.prefix+path] = h", "s.routes[path] = h"},
         "Server.Handle",
         {"func (s Server) Lookup(", "func (s Server) Find("},
         "Server.Lookup",
         "Server.Find",
         "return h, ok",
         "Server.Lookup",
         "routes map[string]Handler",
         "Server"},
        {"rust",
         "lru.rs",
         {{"Evict", "trait"},
          {"Evict::evict", "method"},
          {"Evict::is_full", "method"},
          {"LruCache", "struct"},
          {"Lookup", "enum"},
          {"impl LruCache", "impl"},
          {"LruCache::new", "method"},
          {"LruCache::get", "method"},
          {"LruCache::touch", "method"},
          {"impl Evict for LruCache", "impl"},
          {"<LruCache as Evict>::evict", "method"},
          {"impl fmt::Display for LruCache", "impl"},
          {"<LruCache as fmt::Display>::fmt", "method"},
          {"stats", "module"},
          {"stats::hit_rate", "function"}},
         {"if hits + misses == 0 { 0.0 }", "if hits + misses == 0 { 1.0 }"},
         "stats::hit_rate",
         {"fn touch(&mut self, key: &str)", "fn bump(&mut self, key: &str)"},
         "LruCache::touch",
         "LruCache::bump",
         "self.order.push(key.to_string())",
         "LruCache::touch",
         "order: Vec<String>,",
         "LruCache"},
        {"java",
         "TokenValidator.java",
         {{"TokenValidator", "class"},
          {"TokenValidator.TokenValidator", "constructor"},
          {"TokenValidator.validate", "method"},
          {"TokenValidator.describe", "method"},
          {"TokenValidator.Signer", "interface"},
          {"TokenValidator.Signer.sign", "method"},
          {"TokenValidator.Kind", "enum"},
          {"TokenValidator.Kind.longLived", "method"}},
         {"if (parts.length != 3)", "if (parts.length != 2)"},
         "TokenValidator.validate",
         {"static String describe(char kind)", "static String label(char kind)"},
         "TokenValidator.describe",
         "TokenValidator.label",
         "return this == REFRESH",
         "TokenValidator.Kind.longLived",
         "private final Clock clock;",
         "TokenValidator"},
    };
    return all;
}

std::string fixturePath(const Case& c, bool reformatted) {
    std::string file = c.file;
    if (reformatted) file.insert(file.rfind('.'), ".reformatted");
    return fixturesDir() + "/languages/" + c.lang + "/" + file;
}

// Replaces the single occurrence of e.from.
std::string apply(std::string text, const Edit& e) {
    auto at = text.find(e.from);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(e.from, at + 1) == std::string::npos);
    return text.replace(at, e.from.size(), e.to);
}

} // namespace engram::test
