// Code references in agent instruction files (AGENTS.md, CLAUDE.md, ...):
// what a line names, found without the repository (ARCHITECTURE.md, "Instruction files").
//
// Extraction is a pure function of the text. Whether a candidate is a
// reference at all is decided in two steps: here by its form (a code span
// holding a command, a flag or a sentence is none), and later against the
// repository (engine/Instructions.cpp): a qualified name whose first part
// names nothing of the repository's is someone else's API, not a dangling
// reference, and a path that git ignores is a local file.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::instructions {

enum class RefForm {
    Path,       // `src/auth.py`, `docs/`, [the guide](docs/guide.md)
    PathLine,   // `src/auth.py:42`, `src/auth.py:42-60`, src/auth.py#L42
    PathSymbol, // `src/auth.py#TokenValidator.validate`
    Name,       // `TokenValidator.validate`, `engram::Store::write()`, `validate_token()`
    // A lone word in backticks (`refresh`): too often a term, a value or a
    // package to be a reference by itself; judged only by what it named
    // when its line was written (a definition renamed or removed since).
    Word,
};

struct Reference {
    RefForm form = RefForm::Path;
    std::string written; // as written: a code span's text or a link's target
    std::string path;    // the path forms: without a leading "./"
    // PathSymbol, Name and Word: the name with "::" and "#" read as "." and
    // without a trailing "()"; Name only: `symbol` holds every part.
    std::string symbol;
    int line = 0, lineEnd = 0; // PathLine: 1-based, inclusive
    // A markdown link: its path is relative to the instruction file's
    // directory, as a reader's viewer resolves it. Code spans name paths
    // from the repository's root (or, failing that, the file's directory).
    bool link = false;
    bool directory = false; // written with a trailing '/'
    // Where `written` stands: the 0-based line and its byte columns.
    uint32_t lineIndex = 0, startColumn = 0, endColumn = 0;
};

// Every candidate reference of a markdown instruction file, in document
// order. Fenced code blocks (commands, examples) and a leading front matter
// block (a rules file's globs) are skipped.
std::vector<Reference> extractReferences(std::string_view text);

// A paragraph of an instruction file: what recall and packets carry of it.
struct Paragraph {
    uint32_t line = 0, endLine = 0; // 0-based, inclusive
    std::string heading;            // the nearest heading above it, without '#'s
    std::string text;               // its lines as written
};

// The paragraphs of a markdown instruction file: runs of lines between
// blank lines (a fenced block stays whole, with the text it belongs to), at
// most kMaxParagraphBytes each (a longer run is cut at line ends). Headings
// are not paragraphs; each paragraph carries the one it is under. A leading
// front matter block is skipped.
inline constexpr size_t kMaxParagraphBytes = 1500;
std::vector<Paragraph> splitParagraphs(std::string_view text);

// Whether a workspace-relative path is an instruction file by its name:
// AGENTS.md, CLAUDE.md and GEMINI.md at any depth, .cursorrules,
// .github/copilot-instructions.md, .github/instructions/*.instructions.md
// and .cursor/rules/*.mdc (or .md).
bool isInstructionFile(std::string_view rel);

// A glob from store.conf's `instructions:` key: '*' and '?' match any
// characters, '/' included, so `docs/*.md` reaches docs/a/b.md.
bool globMatches(std::string_view glob, std::string_view rel);

// Whether `ext` ("py", "json") is an extension that names a file when
// written in prose; used to tell `config.json` from `Config.load`.
bool knownExtension(std::string_view ext);

} // namespace engram::instructions
