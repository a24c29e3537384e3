// The table of related words (text/Related.h), stemmed once.
#include "text/Related.h"

#include "text/Tokenize.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace engram::text {

namespace {

// One group per line, members separated by commas; a member of several
// words is a phrase, found in a query but never added to one (its words
// alone, "log" of "log in", would mean something else). Every member of a
// group stands for every other. A word in two groups relates to both.
constexpr const char* kGroups[] = {
    // abbreviations of identifiers and prompts
    "cfg, conf, config, configuration",
    "auth, authn, authentication, authenticate",
    "authz, authorization, authorize",
    "db, database",
    "repo, repository, codebase",
    "env, environment",
    "prod, production",
    "msg, message",
    "err, error",
    "req, request",
    "resp, response",
    "ctx, context",
    "pkg, package",
    "dir, directory, folder",
    "impl, implementation",
    "init, initialize, initialise",
    "param, parameter",
    "arg, argument",
    "fn, func, function",
    "str, string",
    "int, integer",
    "bool, boolean",
    "doc, docs, documentation",
    "app, application",
    "admin, administrator",
    "org, organization, organisation",
    "id, identifier",
    "tmp, temp, temporary",
    "max, maximum",
    "min, minimum",
    "avg, average",
    "async, asynchronous",
    "addr, address",
    "img, image",
    "pwd, passwd, password, passphrase",
    "svc, service",
    "k8s, kubernetes",
    "i18n, internationalization, internationalisation",
    "l10n, localization, localisation",
    "perf, performance",
    "dep, deps, dependency, dependencies",
    "spec, specification",
    "regex, regexp",
    "txn, transaction",
    "ttl, lifetime, expiry, expiration",
    "tz, timezone",
    "pentest, penetration, pen test",
    "a11y, accessibility, accessible, screen reader",
    // one act or thing, in other words
    "login, logon, signin, log in, sign in, log on",
    "logout, signout, log out, sign out",
    "signup, register, registration, sign up",
    "delete, remove, erase, purge",
    "undo, revert, rollback, roll back",
    "deploy, ship, rollout",
    "refund, reimburse, reimbursement, give back",
    "permission, privilege, role",
    "credential, password, secret",
    "toggle, flag, switch",
    "customer, client",
    "tenant, organization, org, workspace",
    "error, failure, exception, fault",
    "bug, defect",
    "crash, panic, segfault",
    "slow, latency, sluggish",
    "retry, reattempt, backoff",
    "timeout, deadline, time out",
    "sleep, wait, delay, pause",
    "standup, stand up, daily meeting",
    "ledger, books, bookkeeping",
    "limit, quota, cap, throttle",
    "upgrade, bump",
    "install, setup, set up",
    "settings, config, preferences, options",
    "column, field, attribute",
    "row, record, entry",
    "price, cost, amount, fee",
    "money, currency",
    "invoice, bill, billing",
    "subscription, plan, renewal",
    "notification, alert, notify",
    "queue, job, worker, task",
    "schedule, cron, periodic",
    "paginate, pagination, page, cursor, offset",
    "sort, order",
    "search, find, lookup, filter",
    "member, user, account",
    "staff, support, operator",
    "lock, mutex",
    "concurrency, parallel, thread",
    "block, blocking, hang, freeze, stall",
    "backup, snapshot, restore",
    "outage, incident, downtime",
    "monitor, metrics, telemetry, observability",
    "log, logging, logger",
    "encrypt, encryption, cipher",
    "hash, digest, checksum",
    "validate, verify, check",
    "timestamp, datetime, date, time",
    "stale, outdated, old, out of date, lag",
    "frontend, browser, ui",
    "backend, server, api",
    "endpoint, route, handler, url",
    "flaky, intermittent, nondeterministic, sporadic, randomly",
    "duplicate, dup, duplication, double",
    "staging, preprod",
    "migration, migrate, schema",
    "container, docker",
    "pr, pull request, merge request",
    "lint, linter, formatter, style",
    "400, bad request",
    "401, unauthorized, unauthenticated",
    "403, forbidden",
    "404, not found",
    "429, too many requests, throttled",
    "500, internal server error",
    "503, unavailable",
};

// The stemmed words of a text in order, stop words kept (a phrase is
// matched on all its words): runs of ASCII letters, digits and
// apostrophes, lower-cased.
std::vector<std::string> stemmedWords(std::string_view s) {
    std::vector<std::string> out;
    std::string w;
    auto flush = [&] {
        if (!w.empty()) out.push_back(stem(w));
        w.clear();
    };
    for (char c : s) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\'')
            w += c;
        else if (c >= 'A' && c <= 'Z')
            w += char(c - 'A' + 'a');
        else
            flush();
    }
    flush();
    return out;
}

std::string joined(const std::vector<std::string>& words, size_t from, size_t n) {
    std::string key;
    for (size_t i = from; i < from + n; ++i)
        key += (i > from ? " " : "") + words[i];
    return key;
}

struct Table {
    // A member's stemmed words, joined by spaces: the groups it is in.
    std::unordered_map<std::string, std::vector<uint16_t>> groupsOf;
    // Per group, the members a query may be given: those of one term.
    std::vector<std::vector<std::string>> terms;
    size_t longest = 1; // words of the longest phrase
};

const Table& table() {
    static const Table t = [] {
        Table t;
        for (const char* line : kGroups) {
            auto group = uint16_t(t.terms.size());
            auto& terms = t.terms.emplace_back();
            std::string_view rest(line);
            while (!rest.empty()) {
                size_t comma = rest.find(',');
                std::string_view member = rest.substr(0, comma);
                rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
                auto words = stemmedWords(member);
                if (words.empty()) continue;
                t.longest = std::max(t.longest, words.size());
                t.groupsOf[joined(words, 0, words.size())].push_back(group);
                if (words.size() == 1) {
                    auto asTerms = text::terms(member);
                    if (asTerms.size() == 1) terms.push_back(asTerms.front());
                }
            }
        }
        return t;
    }();
    return t;
}

} // namespace

std::vector<Expansion> relatedTerms(std::string_view query, const std::vector<std::string>& own,
                                    size_t max) {
    const Table& t = table();
    std::unordered_set<std::string> ownSet(own.begin(), own.end());
    std::unordered_set<std::string> given;
    std::vector<Expansion> out;
    auto add = [&](const std::vector<uint16_t>& groups, const std::vector<std::string>& of,
                   bool phrase) {
        for (auto g : groups)
            for (auto& term : t.terms[g]) {
                if (out.size() >= max) return;
                if (ownSet.count(term) || !given.insert(term).second) continue;
                out.push_back({term, of, phrase});
            }
    };
    // Words first (identifier parts included: "dbPool" holds "db"), then
    // phrases, so a query's own words are expanded before the cap is met.
    for (auto& term : own)
        if (auto it = t.groupsOf.find(term); it != t.groupsOf.end()) add(it->second, {term}, false);
    auto words = stemmedWords(query);
    for (size_t n = 2; n <= t.longest; ++n)
        for (size_t i = 0; i + n <= words.size(); ++i) {
            auto it = t.groupsOf.find(joined(words, i, n));
            if (it == t.groupsOf.end()) continue;
            std::vector<std::string> of;
            for (size_t k = i; k < i + n; ++k)
                if (ownSet.count(words[k])) of.push_back(words[k]);
            if (!of.empty()) add(it->second, of, true);
        }
    return out;
}

} // namespace engram::text
