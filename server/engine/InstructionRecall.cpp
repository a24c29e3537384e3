// Instruction files' paragraphs in recall and packets (ARCHITECTURE.md, "Instruction files").
//
// The files are small (a few to a few dozen paragraphs each), so they are
// not put in the claims' full-text index: a paragraph is not a claim, and
// keeping it out of the index keeps it out of every claim path (counts,
// findings, retract). They are ranked here with BM25 over the same terms
// the claims' index uses (text::tokenize), among themselves.
//
// Cost: the list of files is the last listing's (engine/Listing.cpp: one
// indexed query, no process), a file is read and split again only when it
// changed, and the references' states (which may ask git blame) are judged
// only for the paragraphs returned, one scan per file they come from.
#include "engine/Engine.h"
#include "text/Tokenize.h"
#include "util/Fs.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

namespace engram {

namespace {

constexpr size_t kMaxParagraphFileBytes = 1 << 20;
constexpr double kParagraphK1 = 1.2, kParagraphB = 0.75; // BM25, as recall

} // namespace

std::vector<InstructionHit> Engine::recallInstructions(const std::string& query, size_t limit) {
    std::vector<InstructionHit> out;
    std::vector<std::string> q = text::terms(query);
    std::sort(q.begin(), q.end());
    q.erase(std::unique(q.begin(), q.end()), q.end());
    if (q.empty() || limit == 0) return out;

    {
        std::map<std::string, ParagraphFile> kept;
        for (auto& f : instructionFiles()) {
            auto it = paragraphs_.find(f);
            kept.emplace(f, it == paragraphs_.end() ? ParagraphFile{} : std::move(it->second));
        }
        paragraphs_ = std::move(kept);
    }
    for (auto& [file, pf] : paragraphs_) {
        auto st = statFile(opts_.root + "/" + file);
        const std::string* unsaved = anchorer_.documentText(file);
        if (!unsaved && st && sameFile(st, pf.stat) && !pf.paragraphs.empty()) continue;
        auto body =
            unsaved ? std::optional<std::string>(*unsaved)
                    : readFile(opts_.root + "/" + file, nullptr, {kMaxParagraphFileBytes, true});
        pf = ParagraphFile{};
        if (!body || body->size() > kMaxParagraphFileBytes) continue;
        if (st && !unsaved) pf.stat = *st;
        pf.paragraphs = instructions::splitParagraphs(*body);
        for (auto& p : pf.paragraphs)
            pf.terms.push_back(text::terms(p.heading + "\n" + p.text));
    }

    // BM25 over every paragraph of every file.
    size_t n = 0;
    double totalLen = 0;
    std::unordered_map<std::string, int> df;
    for (auto& [file, pf] : paragraphs_)
        for (auto& t : pf.terms) {
            ++n;
            totalLen += double(t.size());
            std::set<std::string> seen(t.begin(), t.end());
            for (auto& term : q)
                df[term] += seen.count(term) ? 1 : 0;
        }
    if (n == 0) return out;
    double avg = std::max(1.0, totalLen / double(n));
    // A paragraph must share at least two of the query's terms (one when
    // the query has one): a single common word is not a match.
    size_t need = std::min<size_t>(2, q.size());
    for (auto& [file, pf] : paragraphs_)
        for (size_t i = 0; i < pf.paragraphs.size(); ++i) {
            const auto& terms = pf.terms[i];
            double score = 0;
            size_t matched = 0;
            for (auto& term : q) {
                double tf = double(std::count(terms.begin(), terms.end(), term));
                if (tf == 0) continue;
                ++matched;
                double idf = std::log(1 + (double(n) - df[term] + 0.5) / (df[term] + 0.5));
                score += idf * tf * (kParagraphK1 + 1) /
                         (tf + kParagraphK1 *
                                   (1 - kParagraphB + kParagraphB * double(terms.size()) / avg));
            }
            if (matched < need || score <= 0) continue;
            const auto& p = pf.paragraphs[i];
            InstructionHit h;
            h.file = file;
            h.line = p.line + 1;
            h.endLine = p.endLine + 1;
            h.heading = p.heading;
            h.text = p.text;
            h.score = std::round(score * 10000) / 10000;
            out.push_back(std::move(h));
        }
    std::sort(out.begin(), out.end(), [](const InstructionHit& a, const InstructionHit& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.file != b.file) return a.file < b.file;
        return a.line < b.line;
    });
    if (out.size() > limit) out.resize(limit);

    // The references' states, one scan per file.
    std::map<std::string, InstructionScan> scans;
    for (auto& h : out) {
        auto it = scans.find(h.file);
        if (it == scans.end())
            it = scans.emplace(h.file, scanInstructions(h.file, nullptr, false)).first;
        for (auto& r : it->second.refs)
            if (r.ref.lineIndex + 1 >= h.line && r.ref.lineIndex + 1 <= h.endLine) {
                h.references.emplace_back(r.ref.written, r.state);
                if (!r.reason.empty()) h.notJudged.add(r.reason);
            }
    }
    return out;
}

} // namespace engram
