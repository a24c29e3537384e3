// Symbol, range and file anchors.
#include "engine/Anchoring.h"

#include "model/NotJudged.h"

#include "index/Reconcile.h"
#include "model/NotJudged.h"
#include "syntax/Languages.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Paths.h"
#include "util/Position.h"

#include <algorithm>

namespace engram {

namespace {

constexpr size_t kMaxCachedFiles = 256;
// Files past this are not read or parsed (a minified bundle, a generated
// blob, a hostile 100 MB line): an anchor there reads as orphaned, saying why.

// Lines [start, end] (1-based, inclusive); nullopt when the file is shorter.
std::optional<std::string_view> lineRange(std::string_view text, int start, int end) {
    size_t pos = 0;
    int line = 1;
    while (line < start) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) return std::nullopt;
        pos = nl + 1;
        ++line;
    }
    size_t from = pos;
    while (line <= end) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            if (line < end) return std::nullopt;
            pos = text.size();
            break;
        }
        pos = nl + 1;
        ++line;
    }
    if (from >= text.size() && start > 1) return std::nullopt;
    return text.substr(from, pos - from);
}

// Byte column of the first non-blank character of a 1-based line.
uint32_t firstColumn(std::string_view text, int line) {
    auto l = lineRange(text, line, line);
    if (!l) return 0;
    auto col = l->find_first_not_of(" \t");
    return col == std::string_view::npos ? 0 : uint32_t(col);
}

// The anchored definition, unchanged: the same digest, or, where the parser
// had to recover from errors on either side (its recovery depends on the
// layout), the same tokens.
bool unchanged(const syntax::Symbol& s, const Anchor& a) {
    if (s.hash == a.hash) return true;
    return !a.tokens.empty() && s.tokenHash == a.tokens && (s.hasError || a.errors);
}

// Whether the word a name starts with (`it` of `it("parses")`, `operator`
// of `operator==`) is written, as a whole word, in one of `spans` of `text`.
bool spelledIn(std::string_view text, const syntax::Spans& spans, std::string_view name) {
    auto word = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '$' || (unsigned char)c >= 0x80;
    };
    size_t n = 0;
    while (n < name.size() && word(name[n]))
        ++n;
    if (n == 0) return false;
    name = name.substr(0, n);
    for (auto [b, e] : spans) {
        std::string_view span = text.substr(std::min<size_t>(b, text.size()), e - b);
        for (size_t at = span.find(name); at != std::string_view::npos;
             at = span.find(name, at + 1)) {
            size_t abs = size_t(span.data() - text.data()) + at;
            if ((abs == 0 || !word(text[abs - 1])) &&
                (abs + n == text.size() || !word(text[abs + n])))
                return true;
        }
    }
    return false;
}

std::string describe(const syntax::Symbol& s) {
    return syntax::writtenName(s) + " (" + s.kind + ", line " + std::to_string(s.startLine + 1) +
           ")";
}

TextRange symbolRange(const syntax::Symbol& s) {
    return {s.startLine, s.startColumn, s.endLine, s.endColumn};
}

std::string candidateList(const std::vector<syntax::Symbol>& symbols,
                          const std::vector<size_t>& which) {
    std::string out;
    for (size_t i = 0; i < which.size() && i < 20; ++i)
        out += (out.empty() ? "" : ", ") + describe(symbols[which[i]]);
    if (which.size() > 20) out += ", ...";
    return out;
}

// Which of the same-named definitions `same` the anchor designates: the one
// with its exact digest (nothing changed), else the one with its head (its
// body changed), else the one at its place among as many twins as when it
// was anchored. None when that still leaves a choice: an edit made the
// definitions impossible to tell apart, and judging the wrong twin would be
// worse than saying so.
std::optional<size_t> identify(const std::vector<syntax::Symbol>& symbols,
                               const std::vector<size_t>& same, const Anchor& a) {
    if (same.size() == 1) return same[0];
    auto narrow = [&](const std::vector<size_t>& from, auto keep) {
        std::vector<size_t> out;
        for (size_t i : from)
            if (keep(symbols[i])) out.push_back(i);
        return out;
    };
    auto atPlace = [&](const std::vector<size_t>& from) -> std::optional<size_t> {
        if (a.twins < 2 || size_t(a.twins) != same.size()) return std::nullopt;
        size_t want = same[size_t(a.ordinal - 1)];
        if (std::find(from.begin(), from.end(), want) == from.end()) return std::nullopt;
        return want;
    };
    // One of identical copies: its place is all that tells it apart, so the
    // copy at its place is it, changed or not.
    if (a.copies > 1 && size_t(a.twins) == same.size()) return same[size_t(a.ordinal - 1)];
    auto exact = narrow(same, [&](const syntax::Symbol& s) { return unchanged(s, a); });
    if (!exact.empty()) {
        if (exact.size() == 1) return exact[0];
        // Identical twins: all intact; the one at its place if it is there.
        if (auto p = atPlace(exact)) return p;
        return exact[0];
    }
    auto head = a.head.empty()
                    ? std::vector<size_t>{}
                    : narrow(same, [&](const syntax::Symbol& s) { return s.headHash == a.head; });
    if (head.size() == 1) return head[0];
    if (auto p = atPlace(head.empty() ? same : head)) return p;
    return std::nullopt;
}

} // namespace

Anchor symbolAnchor(const std::string& path, const std::string& language, const syntax::Symbol& s) {
    Anchor a;
    a.path = path;
    a.symbol = s.qualified;
    a.language = language;
    a.nodeKind = s.kind;
    a.hash = s.hash;
    a.shape = s.shapeHash;
    a.head = s.headHash;
    a.tokens = s.tokenHash;
    a.errors = s.hasError;
    a.rules = syntax::kDigestRules;
    if (s.twins > 1) {
        a.ordinal = int(s.ordinal);
        a.twins = int(s.twins);
        if (s.copies > 1) a.copies = int(s.copies);
    }
    return a;
}

std::string textDigest(std::string_view text) {
    // Every run of white space becomes one space, so re-indenting or
    // re-wrapping does not count as a change.
    std::string norm;
    norm.reserve(text.size());
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = !norm.empty();
        } else {
            if (space) norm += ' ';
            space = false;
            norm += c;
        }
    }
    return sha256Hex(norm).substr(0, 32);
}

bool Anchorer::tooLarge(const std::string& rel) const {
    auto st = statFile(root_ + "/" + rel);
    return st && st->size > int64_t(kMaxAnchoredFileBytes);
}

namespace {

// An anchor's normalised workspace-relative path, as anchors hold them: its
// lexical form is its workspace-relative form.
bool plainRelative(const std::string& p) {
    return !p.empty() && p[0] != '/' && p.find("..") == std::string::npos &&
           p.find("./") == std::string::npos && p.find("//") == std::string::npos;
}

} // namespace

std::optional<std::string> Anchorer::confined(const std::string& relPath) {
    if (readScopes_ == 0) return relativeToRoot(root_, relPath);
    auto [it, added] = confined_.try_emplace(relPath);
    if (added) it->second = relativeToRoot(root_, relPath);
    return it->second;
}

const Anchorer::CachedFile* Anchorer::load(const std::string& relPath) {
    // A plain path is looked up as written, and judged against the root (a
    // realpath: a syscall per component) only when there is something to
    // read: a file that is not there is one stat (a store whose anchors
    // point at deleted files has one per anchor).
    const bool plain = plainRelative(relPath);
    std::optional<std::string> rel =
        plain ? std::optional<std::string>(relPath) : confined(relPath);
    if (!rel) return nullptr;
    bool document = open_.count(*rel) || openPlain_.count(*rel);
    if (plain && document && !confined(relPath)) return nullptr;
    if (auto doc = open_.find(*rel); doc != open_.end()) {
        // The unsaved buffer, re-parsed incrementally; copied into the view
        // only when it changed since the last look.
        CachedFile& f = overlay_[*rel];
        if (f.revision != revisions_[*rel]) {
            f.text = doc->second.text();
            f.language = doc->second.language();
            f.symbols = doc->second.symbols();
            f.unreadable = doc->second.unreadable();
            f.masked.clear();
            f.revision = revisions_[*rel];
        }
        return &f;
    }
    if (auto plainDoc = openPlain_.find(*rel); plainDoc != openPlain_.end()) {
        CachedFile& f = overlay_[*rel];
        if (f.revision != revisions_[*rel]) {
            f.text = plainDoc->second;
            f.language.clear();
            f.symbols.clear();
            f.unreadable.clear();
            f.revision = revisions_[*rel];
        }
        return &f;
    }
    if (readScopes_ > 0)
        if (auto seen = read_.find(*rel); seen != read_.end()) return seen->second;
    const CachedFile* loaded = nullptr;
    auto st = statFile(root_ + "/" + *rel);
    if (st && (!plain || confined(relPath))) loaded = loadFile(*rel, *st);
    if (!st) cache_.erase(*rel);
    if (readScopes_ > 0) read_[*rel] = loaded;
    return loaded;
}

const Anchorer::CachedFile* Anchorer::loadFile(const std::string& rel, const FileStat& st) {
    // By its stat first: a file past the bound is not read at all (every
    // check of an anchor there would otherwise read 16 MiB to learn it).
    std::optional<std::string> text;
    if (st.size <= int64_t(kMaxAnchoredFileBytes))
        text = readFile(root_ + "/" + rel, nullptr, {kMaxAnchoredFileBytes});
    if (!text || text->size() > kMaxAnchoredFileBytes) {
        cache_.erase(rel);
        return nullptr;
    }
    // Keyed by content, not mtime: two same-size saves within one tick of
    // the file-system clock must not be mistaken for one. Reading is cheap;
    // parsing is what the cache saves.
    auto it = cache_.find(rel);
    if (it != cache_.end() && it->second.text == *text) return &it->second;
    if (cache_.size() >= kMaxCachedFiles) {
        cache_.clear();
        read_.clear(); // its entries pointed into the cache
    }
    CachedFile f;
    f.language = syntax::languageFor(rel, *text).value_or("");
    if (!f.language.empty())
        f.symbols = syntax::extractSymbols(f.language, *text, {}, &f.unreadable);
    f.text = std::move(*text);
    return &(cache_[rel] = std::move(f));
}

void Anchorer::openDocument(const std::string& rel, std::string text) {
    closeDocument(rel);
    ++revisions_[rel];
    if (auto lang = syntax::languageFor(rel, text))
        open_.emplace(rel, syntax::Document(*lang, std::move(text)));
    else
        openPlain_[rel] = std::move(text);
}

void Anchorer::editDocument(const std::string& rel, uint32_t startByte, uint32_t oldEndByte,
                            std::string_view newText) {
    ++revisions_[rel];
    if (auto doc = open_.find(rel); doc != open_.end()) {
        doc->second.edit(startByte, oldEndByte, newText);
    } else if (auto plain = openPlain_.find(rel); plain != openPlain_.end()) {
        std::string& t = plain->second;
        startByte = std::min<uint32_t>(startByte, uint32_t(t.size()));
        oldEndByte = std::clamp<uint32_t>(oldEndByte, startByte, uint32_t(t.size()));
        t.replace(startByte, oldEndByte - startByte, newText);
    }
}

void Anchorer::replaceDocument(const std::string& rel, std::string text) {
    ++revisions_[rel];
    if (auto doc = open_.find(rel); doc != open_.end())
        doc->second.reset(std::move(text));
    else if (auto plain = openPlain_.find(rel); plain != openPlain_.end())
        plain->second = std::move(text);
}

void Anchorer::closeDocument(const std::string& rel) {
    open_.erase(rel);
    openPlain_.erase(rel);
    overlay_.erase(rel);
}

std::string Anchorer::contentKey(const std::string& relPath) {
    // Anchors hold normalised workspace-relative paths; anything else is
    // resolved the slow way. No realpath here (a syscall per component, and
    // status asks for every anchored file): the key only says whether to
    // look again, and the look itself (load) refuses a path that leads out.
    std::optional<std::string> rel = plainRelative(relPath) ? std::optional<std::string>(relPath)
                                                            : relativeToRoot(root_, relPath);
    if (!rel) return "outside";
    if (open_.count(*rel) || openPlain_.count(*rel))
        return "document " + std::to_string(revisions_[*rel]);
    auto st = statFile(root_ + "/" + *rel);
    if (!st) return "missing";
    DirMark mark{st->ino, st->mtimeNs};
    if (realtimeNs() - st->mtimeNs < racyWindowNs(mark)) return "";
    return "file " + std::to_string(st->mtimeNs) + " " + std::to_string(st->size) + " " +
           std::to_string(st->ino);
}

const std::string* Anchorer::documentText(const std::string& rel) const {
    if (auto doc = open_.find(rel); doc != open_.end()) return &doc->second.text();
    if (auto plain = openPlain_.find(rel); plain != openPlain_.end()) return &plain->second;
    return nullptr;
}

std::optional<syntax::Symbol> Anchorer::symbolAt(const std::string& rel, uint32_t line,
                                                 uint32_t column) {
    const CachedFile* f = load(rel);
    if (!f) return std::nullopt;
    auto at = syntax::innermostAt(f->symbols, line, column);
    if (!at) return std::nullopt;
    return f->symbols[*at];
}

Anchor Anchorer::resolve(const AnchorSpec& spec, const std::string& field) {
    const std::string rel = confinedPath(root_, field + ".path", spec.path);
    const CachedFile* f = load(rel);
    if (!f)
        throw EngramError(ErrorKind::AnchorNotFound,
                          field + ".path: " +
                              (tooLarge(rel) ? "'" + rel + "' is larger than " +
                                                   std::to_string(kMaxAnchoredFileBytes >> 20) +
                                                   " MiB, which engram does not read"
                                             : "no readable file '" + rel + "' in the workspace"),
                          {{"field", field + ".path"}, {"path", rel}});

    if (spec.symbol || spec.line) {
        if (f->language.empty())
            throw EngramError(ErrorKind::AnchorNotFound,
                              field + ": " + rel +
                                  " is in no language engram parses; anchor a line range instead",
                              {{"field", field}, {"path", rel}});
        if (spec.symbol) {
            auto found = syntax::resolveSymbol(f->symbols, *spec.symbol);
            if (found.size() == 1) return symbolAnchor(rel, f->language, f->symbols[found[0]]);
            std::vector<size_t> all;
            if (found.empty())
                for (size_t i = 0; i < f->symbols.size(); ++i)
                    all.push_back(i);
            const auto& listed = found.empty() ? all : found;
            throw EngramError(
                ErrorKind::AnchorNotFound,
                field + ".symbol: '" + *spec.symbol + "' " +
                    (found.empty() ? "is not defined in " + rel : "is ambiguous in " + rel) +
                    (listed.empty() ? "" : "; candidates: " + candidateList(f->symbols, listed)),
                {{"field", field + ".symbol"},
                 {"path", rel},
                 {"candidates", candidateList(f->symbols, listed)}});
        }
        uint32_t line = uint32_t(*spec.line - 1);
        std::optional<size_t> at;
        if (spec.column) {
            // A cursor (an LSP position, in UTF-16 code units): the innermost
            // definition around it; a cursor in the indentation is at the
            // line's first character.
            uint32_t column = std::max(byteColumn(f->text, line, uint32_t(*spec.column)),
                                       firstColumn(f->text, *spec.line));
            at = syntax::innermostAt(f->symbols, line, column);
        }
        if (!at) at = syntax::definitionAtLine(f->symbols, line);
        if (!at)
            throw EngramError(ErrorKind::AnchorNotFound,
                              field + ": no definition encloses line " +
                                  std::to_string(*spec.line) + " of " + rel,
                              {{"field", field}, {"path", rel}});
        return symbolAnchor(rel, f->language, f->symbols[*at]);
    }

    Anchor a;
    a.path = rel;
    a.rules = syntax::kDigestRules;
    if (spec.lines) {
        auto [s, e] = *spec.lines;
        if (s < 1 || e < s)
            throw invalidField(field + ".range", "must be START-END with 1 <= START <= END");
        auto text = lineRange(f->text, s, e);
        if (!text)
            throw EngramError(ErrorKind::AnchorNotFound,
                              field + ".range: " + rel + " has fewer than " + std::to_string(e) +
                                  " lines",
                              {{"field", field + ".range"}, {"path", rel}});
        a.nodeKind = "range";
        a.startLine = s;
        a.endLine = e;
        a.hash = textDigest(*text);
    } else {
        a.nodeKind = "file";
        a.hash = textDigest(f->text);
    }
    return a;
}

std::optional<AnchorCheck> Anchorer::findElsewhere(const Anchor& a) {
    if (!shapeLookup_ || a.shape.empty()) return std::nullopt;
    for (auto& c : shapeLookup_(a.shape)) {
        if (c.path == a.path || c.kind != a.nodeKind) continue;
        // The code index may lag behind the files: confirm against the file.
        const CachedFile* f = load(c.path);
        if (!f) continue;
        for (const auto& s : f->symbols) {
            if (s.qualified != c.qualified || s.shapeHash != a.shape) continue;
            AnchorCheck out;
            out.state = "moved";
            out.current = symbolAnchor(c.path, f->language, s);
            out.movedTo = c.path + "#" + s.qualified;
            out.range = symbolRange(s);
            return out;
        }
    }
    return std::nullopt;
}

const std::vector<std::string>& Anchorer::formerShapes(const CachedFile& f,
                                                       const std::string& formerName) {
    auto it = f.masked.find(formerName);
    if (it != f.masked.end()) return it->second;
    std::vector<std::string> shapes;
    auto symbols = syntax::extractSymbols(f.language, f.text, formerName);
    // The same text parsed afresh: the same definitions in the same order
    // (an open document re-parsed incrementally may have recovered from an
    // error differently; then nothing matches).
    if (symbols.size() == f.symbols.size()) {
        shapes.reserve(symbols.size());
        for (size_t i = 0; i < symbols.size(); ++i)
            shapes.push_back(symbols[i].startByte == f.symbols[i].startByte &&
                                     symbols[i].qualified == f.symbols[i].qualified
                                 ? std::move(symbols[i].shapeHash)
                                 : std::string());
    }
    return f.masked[formerName] = std::move(shapes);
}

std::optional<int> Anchorer::shiftedRange(const CachedFile& f, const Anchor& a) {
    const int count = a.endLine - a.startLine + 1;
    if (count < 1) return std::nullopt;
    std::string key = a.hash + "/" + std::to_string(count);
    auto it = f.shifted.find(key);
    if (it == f.shifted.end()) {
        // Windows of `count` lines, digested as the anchor was (the digest
        // folds white space, so a window is the text from its first line's
        // start to its last line's end), nearest the old place first. Found
        // twice, which one it is cannot be told. The hashing is bounded
        // (an edit in the editor asks again): past kShiftBudget bytes with
        // the file not yet covered, it is not found either.
        std::vector<size_t> starts{0};
        for (size_t i = 0; i < f.text.size(); ++i)
            if (f.text[i] == '\n' && i + 1 < f.text.size()) starts.push_back(i + 1);
        const long windows = long(starts.size()) - count + 1;
        const long was = a.startLine - 1;
        size_t hashed = 0;
        int found = 0;
        bool covered = true;
        auto matches = [&](long first) {
            size_t last = size_t(first) + size_t(count) - 1;
            size_t end = last + 1 < starts.size() ? starts[last + 1] : f.text.size();
            hashed += end - starts[size_t(first)];
            return textDigest(std::string_view(f.text).substr(
                       starts[size_t(first)], end - starts[size_t(first)])) == a.hash;
        };
        for (long d = 1; windows > 0 && (was - d >= 0 || was + d < windows); ++d) {
            if (hashed > kShiftBudget) {
                covered = false;
                break;
            }
            for (long first : {was - d, was + d}) {
                if (first < 0 || first >= windows || !matches(first)) continue;
                found = found ? -1 : int(first) + 1;
            }
            if (found < 0) break;
        }
        it = f.shifted.emplace(std::move(key), covered && found > 0 ? found : 0).first;
    }
    if (it->second == 0) return std::nullopt;
    return it->second;
}

Anchorer::PlacedRange Anchorer::placeRange(const CachedFile& f, const Anchor& a) {
    PlacedRange p{a, lineRange(f.text, a.startLine, a.endLine), {}, false};
    if (p.text) p.digest = textDigest(*p.text);
    if (a.hash.empty() || (p.text && p.digest == a.hash)) return p;
    if (auto at = shiftedRange(f, a)) {
        p.at.startLine = *at;
        p.at.endLine = *at + (a.endLine - a.startLine);
        p.text = lineRange(f.text, p.at.startLine, p.at.endLine);
        p.digest = a.hash;
        p.shifted = true;
    }
    return p;
}

namespace {
// Where a file or range anchor points: its lines, or a whole file's start.
TextRange spanOf(const Anchor& a) {
    if (a.startLine <= 0) return TextRange{0, 0, 0, 0};
    return TextRange{uint32_t(a.startLine - 1), 0, uint32_t(a.endLine), 0};
}
} // namespace

AnchorCheck Anchorer::check(const Anchor& a) {
    AnchorCheck out;
    out.state = "orphaned";
    // What cannot be judged says so: never orphaned for want of a look.
    auto unjudged = [&](std::string_view reason, std::string note) {
        out.state = "unjudged";
        out.reason = std::string(reason);
        out.note = std::move(note);
        return out;
    };
    const CachedFile* f = load(a.path);
    if (!f) {
        if (tooLarge(a.path))
            return unjudged(not_judged::kFileTooLarge,
                            a.path + " has grown past " +
                                std::to_string(kMaxAnchoredFileBytes >> 20) +
                                " MiB, which engram does not read");
        if (!a.symbol.empty())
            if (auto moved = findElsewhere(a)) return *moved;
        if (auto renamed = renamedFile(a)) return *renamed;
        return out;
    }
    if (!a.symbol.empty()) {
        if (f->language.empty())
            return unjudged(not_judged::kNoGrammar,
                            a.path + " is in no language engram parses now, so " + a.symbol +
                                " cannot be looked for");
        // The same qualified name (and kind, when the file has several).
        std::vector<size_t> same;
        for (size_t i = 0; i < f->symbols.size(); ++i)
            if (f->symbols[i].qualified == a.symbol) same.push_back(i);
        if (same.size() > 1 && std::any_of(same.begin(), same.end(), [&](size_t i) {
                return f->symbols[i].kind == a.nodeKind;
            }))
            std::erase_if(same, [&](size_t i) { return f->symbols[i].kind != a.nodeKind; });
        if (!same.empty()) {
            auto pick = identify(f->symbols, same, a);
            if (!pick) {
                out.state = "drifted";
                for (size_t i : same)
                    out.ambiguous.push_back(describe(f->symbols[i]));
                return out;
            }
            const auto& s = f->symbols[*pick];
            out.state = unchanged(s, a) ? "intact" : "drifted";
            out.current = symbolAnchor(a.path, f->language, s);
            out.range = symbolRange(s);
            if (out.state == "drifted" && a.head.empty())
                out.note = "the anchor was recorded by an earlier engram, whose digest of the "
                           "code differs; if the code did not change, re-verify to re-stamp it";
            return out;
        }
        // Gone under its name: the same body under another name is a move,
        // reported and not applied until re-verified.
        if (!a.shape.empty()) {
            auto movedTo = [&](const syntax::Symbol& s) {
                out.state = "moved";
                out.movedTo = s.qualified;
                out.current = symbolAnchor(a.path, f->language, s);
                out.range = symbolRange(s);
                return out;
            };
            for (const auto& s : f->symbols)
                if (s.shapeHash == a.shape && s.kind == a.nodeKind) return movedTo(s);
            // A rename that left other spellings of the old name in the body
            // (a local variable named like the function, kept when the
            // function was renamed): the shape masked the old name there,
            // the renamed definition's shape does not. Its shapes again,
            // with the old name masked as well.
            const auto& shapes = formerShapes(*f, std::string(syntax::ownName(a.symbol)));
            for (size_t i = 0; i < shapes.size(); ++i)
                if (shapes[i] == a.shape && f->symbols[i].kind == a.nodeKind)
                    return movedTo(f->symbols[i]);
            if (auto moved = findElsewhere(a)) return *moved;
        }
        // Not found, and the file holds code the parser could not read
        // that spells the name: whether the definition is still there
        // cannot be told.
        std::string_view name = syntax::ownName(a.symbol);
        if (spelledIn(f->text, f->unreadable, name))
            return unjudged(not_judged::kParseError,
                            a.path + " holds code the parser cannot read where " +
                                std::string(name) + " is written, so whether " + a.symbol +
                                " is still there cannot be told");
        return out;
    }
    std::string digest;
    if (a.startLine > 0) {
        PlacedRange p = placeRange(*f, a);
        if (p.shifted) {
            // The same lines, unchanged, under lines that came or went
            // above them: a move, reported and not applied until
            // re-verified, as a renamed definition's is.
            out.state = "moved";
            out.range = spanOf(p.at);
            out.current = std::move(p.at);
            return out;
        }
        if (!p.text) return out;
        digest = std::move(p.digest);
    } else {
        digest = textDigest(f->text);
    }
    Anchor current = a;
    current.hash = digest;
    out.current = current;
    out.range = spanOf(a); // a whole-file anchor points at the file's start
    out.state = a.hash.empty() || digest == a.hash ? "intact" : "drifted";
    return out;
}

void addNotJudged(NotJudged& n, const std::vector<AnchorPlace>& places) {
    for (auto& p : places)
        if (!p.reason.empty()) n.add(p.reason);
}

std::string anchorName(const Anchor& a) {
    if (!a.symbol.empty()) return a.path + "#" + a.symbol;
    if (a.startLine > 0)
        return a.path + ":" + std::to_string(a.startLine) + "-" + std::to_string(a.endLine);
    return a.path;
}

std::string Anchorer::identity(const Anchor& a, const AnchorCheck* checked) {
    if (a.symbol.empty()) return anchorName(a); // a file or a range is its name
    AnchorCheck own;
    if (!checked) {
        own = check(a);
        checked = &own;
    }
    // Found: the definition's place now names it (one definition, one place).
    if (checked->range) {
        const TextRange& r = *checked->range;
        return (checked->current ? checked->current->path : a.path) + "@" +
               std::to_string(r.startLine) + ":" + std::to_string(r.startColumn) + "-" +
               std::to_string(r.endLine) + ":" + std::to_string(r.endColumn);
    }
    return recordedIdentity(a);
}

std::string recordedIdentity(const Anchor& a) {
    if (a.symbol.empty()) return anchorName(a);
    return anchorName(a) + "\t" + a.nodeKind + "\t" + a.head + "\t" + std::to_string(a.ordinal) +
           "/" + std::to_string(a.twins);
}

Anchorer::HistoryScope::HistoryScope(Anchorer& a)
    : a_(a) {
    if (a_.historyScopes_++ > 0 || !a_.history_ || !a_.history_->headMoved()) return;
    // A stamp no commit held then may be committed now.
    std::erase_if(a_.rederived_, [](const auto& kv) { return !kv.second.anchor; });
}

Anchorer::HistoryScope::~HistoryScope() {
    if (--a_.historyScopes_ > 0) return;
    if (a_.history_) a_.history_->endSession();
    if (a_.former_) a_.former_->endSession();
    if (a_.renames_) a_.renames_->endSession();
}

std::optional<std::string> Anchorer::renamedTo(const std::string& rel) {
    if (historyScopes_ == 0) return std::nullopt;
    if (!renames_) renames_ = std::make_unique<GitRenames>(root_);
    return renames_->of(rel);
}

std::optional<AnchorCheck> Anchorer::renamedFile(const Anchor& a) {
    auto to = renamedTo(a.path);
    if (!to) return std::nullopt;
    const CachedFile* f = load(*to);
    if (!f) return std::nullopt;
    Anchor now = a;
    now.path = *to;
    if (!a.symbol.empty()) {
        // Its definition judged in the renamed file (which exists, so no
        // rename is looked up again): unchanged there is a move to another
        // file, as the code index finds one; edited, drifted there.
        AnchorCheck there = check(now);
        if (there.state == "intact") {
            there.state = "moved";
            there.movedTo = now.path + "#" + a.symbol;
        } else if (there.state == "moved") {
            there.movedTo = now.path + "#" + there.movedTo;
        } else if (there.state == "drifted") {
            there.note =
                "its file renamed to " + now.path + (there.note.empty() ? "" : "; " + there.note);
        } else {
            return std::nullopt;
        }
        return there;
    }
    AnchorCheck out;
    if (a.startLine > 0) {
        PlacedRange p = placeRange(*f, a);
        if (!p.text) return std::nullopt; // renamed, and shorter than the range: orphaned
        now.startLine = p.at.startLine;
        now.endLine = p.at.endLine;
        now.hash = std::move(p.digest);
    } else {
        now.hash = textDigest(f->text);
    }
    // Unchanged: moved, as a renamed definition is. Changed as well: the
    // file git paired with it by content, drifted there.
    out.state = a.hash.empty() || now.hash == a.hash ? "moved" : "drifted";
    out.note = out.state == "drifted" ? "renamed to " + now.path + " and changed" : "";
    out.range = spanOf(now);
    out.current = std::move(now);
    return out;
}

std::optional<AnchorCheck> Anchorer::byKeptRules(const Anchor& a, const AnchorCheck& plain) {
    if (a.symbol.empty() || a.rules >= syntax::kDigestRules) return std::nullopt;
    // No version recorded (written before versions): the kept versions
    // reproduce it or not; a recorded one is the version to judge by.
    int from = a.rules > 0 ? a.rules : syntax::kKeptRules;
    int to = a.rules > 0 ? a.rules : syntax::kDigestRules - 1;
    if (from < syntax::kKeptRules) return std::nullopt;
    const CachedFile* f = load(a.path);
    if (!f || f->language.empty()) return std::nullopt;
    for (int v = from; v <= to; ++v) {
        // A version that extracts this language as today's does needs no
        // extraction of its own (recall pays for none in a Python file).
        const std::vector<syntax::Symbol>* kept = &f->symbols;
        if (!syntax::extractsAsToday(f->language, v)) {
            auto it = f->kept.find(v);
            if (it == f->kept.end())
                it =
                    f->kept.emplace(v, syntax::extractSymbols(f->language, f->text, {}, nullptr, v))
                        .first;
            kept = &it->second;
        }
        for (const auto& s : *kept) {
            if (s.qualified != a.symbol || s.hash != a.hash) continue;
            // Unchanged by the rules that stamped it: the definition today's
            // rules find at the same place is the one to re-stamp.
            for (const auto& now : f->symbols)
                if (now.startByte == s.startByte && now.qualified == s.qualified) {
                    AnchorCheck out;
                    out.state = "intact";
                    out.current = symbolAnchor(a.path, f->language, now);
                    out.range = symbolRange(now);
                    out.keptRules = v;
                    return out;
                }
        }
    }
    // The version that stamped it finds the code changed: today's verdict.
    if (a.rules > 0) return plain;
    return std::nullopt;
}

std::optional<SuccessorHint> Anchorer::successor(const Anchor& a) {
    if (historyScopes_ == 0 || a.symbol.empty()) return std::nullopt;
    const CachedFile* f = load(a.path);
    if (!f || f->language.empty()) return std::nullopt;
    if (!former_) former_ = std::make_unique<FormerCode>(root_);
    const FormerCode::Found* was = former_->stamped(a);
    if (!was) return std::nullopt;
    auto pick =
        likelySuccessor(was->index, was->file->symbols, was->file->text, f->symbols, f->text);
    if (!pick) return std::nullopt;
    const syntax::Symbol& s = f->symbols[pick->index];
    return SuccessorHint{symbolAnchor(a.path, f->language, s), s.qualified, symbolRange(s),
                         pick->likeness};
}

const Rederived* Anchorer::rederived(const std::string& claimId, const Anchor& a) {
    std::string key = claimId + "\t" + a.path + "\t" + a.symbol + "\t" + a.hash;
    if (auto it = rederived_.find(key); it != rederived_.end()) return &it->second;
    if (historyScopes_ == 0) return nullptr;
    if (!history_) history_ = std::make_unique<StampHistory>(root_);
    return &(rederived_[key] = history_->rederive(claimId, a));
}

AnchorCheck Anchorer::check(const Anchor& a, const std::string& claimId) {
    AnchorCheck plain = check(a);
    // File and range anchors' digest (white space collapsed) is the same
    // under every version so far; a hash today's rules reproduce needs no
    // history whichever rules wrote it.
    // What cannot be judged for another reason (a file too large, no
    // grammar) is not a question of rules.
    if (plain.state == "intact" || plain.state == "unjudged" || a.symbol.empty() ||
        a.rules == syntax::kDigestRules || claimId.empty())
        return plain;
    auto unjudged = [&](std::string why) {
        AnchorCheck out;
        out.state = "unjudged";
        out.reason = std::string(a.rules > syntax::kDigestRules ? not_judged::kNewerRules
                                                                : not_judged::kEarlierRules);
        out.note = std::move(why);
        if (plain.ambiguous.empty()) {
            out.current = std::move(plain.current);
            out.range = plain.range;
        }
        return out;
    };
    if (a.rules > syntax::kDigestRules)
        return unjudged("stamped by a newer engram's digest rules (rules=" +
                        std::to_string(a.rules) + "; this engram's are " +
                        std::to_string(syntax::kDigestRules) + "): upgrade engram to judge it");
    if (auto kept = byKeptRules(a, plain)) return *kept;
    const Rederived* d = rederived(claimId, a);
    if (!d)
        return unjudged("stamped by an earlier engram's digest rules, and not yet re-derived "
                        "from the commit that stamped it (engram check does)");
    if (!d->anchor)
        return unjudged("stamped by an earlier engram's digest rules, and " + d->reason);
    AnchorCheck out = check(*d->anchor);
    out.stampCommit = d->commit;
    if (out.state != "intact")
        out.note = "judged against commit " + d->commit.substr(0, 12) +
                   ", where an earlier engram's digest rules stamped it";
    return out;
}

std::string Anchorer::claimState(const Claim& c, std::vector<AnchorPlace>* places) {
    if (c.anchors.empty()) return "unanchored";
    auto rank = [](const std::string& s) {
        // Not judged is not known good: above moved (found, only elsewhere).
        return s == "orphaned"   ? 4
               : s == "drifted"  ? 3
               : s == "unjudged" ? 2
               : s == "moved"    ? 1
                                 : 0;
    };
    std::string worst = "intact";
    for (auto& a : c.anchors) {
        auto checked = check(a, c.id);
        if (rank(checked.state) > rank(worst)) worst = checked.state;
        if (!places) continue;
        AnchorPlace p;
        p.state = checked.state;
        p.reason = checked.reason;
        p.movedTo = checked.movedTo;
        if (checked.range) {
            p.path = checked.current ? checked.current->path : a.path;
            // The text check() just read (cached): the open document's when
            // the editor holds the file, so columns match what it shows.
            if (const CachedFile* f = load(p.path)) {
                TextRange r = *checked.range;
                r.startColumn = utf16Column(f->text, r.startLine, r.startColumn);
                r.endColumn = utf16Column(f->text, r.endLine, r.endColumn);
                p.range = r;
            } else {
                p.path.clear();
            }
        }
        places->push_back(std::move(p));
    }
    return worst;
}

} // namespace engram
