// The instruction-files service: which instruction files the workspace has,
// as the last listing of its files found them, and their paragraphs for
// recall (ARCHITECTURE.md, "Instruction files"). Private to engine/: the
// Engine owns one and forwards to it.
//
// It owns its state (the listing taken on a thread, the list of files and
// what it was read from, the paragraphs of each file while it is unchanged)
// and asks the engine for one thing only: the code tier's index, where the
// listing is kept, looked up when needed (`CodeIndexLookup`), so that a hot
// path pays for that lookup no more often than before. How references are
// judged is engine/InstructionScan.cpp: a scan keeps nothing.
#pragma once
#include "engine/Anchoring.h"
#include "index/Index.h"
#include "instructions/References.h"
#include "model/Requests.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace engram {

class InstructionFiles {
public:
    // The code tier's index and its store (both null when there is none);
    // with `create`, made when missing (the hot paths never create one).
    struct CodeIndex {
        Index* index = nullptr;
        Store* store = nullptr;
    };
    using CodeIndexLookup = std::function<CodeIndex(bool create)>;
    struct Options {
        std::string root;
        // Long-lived servers list again on a thread of its own; a one-shot
        // command never does (it would wait at its exit for a listing it
        // never uses).
        bool listInBackground = false;
        std::string hold; // EngineOptions::reconcileHold
    };
    InstructionFiles(Options opts, Anchorer& anchorer, CodeIndexLookup code);
    ~InstructionFiles();
    InstructionFiles(const InstructionFiles&) = delete;
    InstructionFiles& operator=(const InstructionFiles&) = delete;

    // The project store's `instructions:` globs (store.conf), read once.
    void setGlobs(std::vector<std::string> globs) { globs_ = std::move(globs); }

    // The instruction files, as the last listing found them (one indexed
    // query, no process); never listed: their well-known places.
    const std::vector<std::string>& files();
    // Whether a workspace-relative path is one: by its name
    // (instructions::isInstructionFile) or a store.conf glob.
    bool isInstructionFile(const std::string& rel) const { return fileIn(globs_, rel); }

    // The workspace's files, as git lists them (tracked, and new files it
    // does not ignore) or a walk finds them without git, sorted: a process
    // whose cost grows with the repository, so never on a hot path.
    static std::vector<std::string> listWorkspace(const std::string& root);
    // Lists the workspace now and keeps the listing in the code tier's index.
    void relist();
    // A listing that ended on its thread is applied to the index it was
    // taken for.
    void adoptListing();
    // Servers: lists on a thread of its own, now (start-up) or when the
    // last listing is a few seconds old. `code` is the caller's lookup of
    // the code tier (asked once per hot path).
    void maybeRelistInBackground(CodeIndex code, bool now);
    void maybeRelistInBackground(bool now) { maybeRelistInBackground(code_(false), now); }

    // The paragraphs that match a query best (at most `limit`), by BM25
    // over their terms; their references are left for the caller to judge.
    std::vector<InstructionHit> bestParagraphs(const std::string& query, size_t limit);

private:
    static bool fileIn(const std::vector<std::string>& globs, const std::string& rel);
    std::function<bool(const std::string&)> test() const;
    // Reads each file again only when it changed (or an editor holds it).
    void refreshParagraphs();

    Options opts_;
    Anchorer& anchorer_;
    CodeIndexLookup code_;
    std::vector<std::string> globs_;

    // The list of files, and what it was read from: a listing generation of
    // one index, or (never listed) the well-known places a moment ago.
    std::vector<std::string> files_;
    int64_t key_ = 0;
    const Index* keyIndex_ = nullptr;
    bool loaded_ = false;
    std::chrono::steady_clock::time_point looked_{};

    // Each file's paragraphs and their terms, kept while it is unchanged.
    struct ParagraphFile {
        FileStat stat;
        std::vector<instructions::Paragraph> paragraphs;
        std::vector<std::vector<std::string>> terms; // per paragraph
    };
    std::map<std::string, ParagraphFile> paragraphs_;

    class Lister; // a listing on a thread of its own (servers)
    struct ListerEnd {
        void operator()(Lister* l) const;
    };
    std::unique_ptr<Lister, ListerEnd> lister_;
    std::chrono::steady_clock::time_point listedAt_{};
};

} // namespace engram
