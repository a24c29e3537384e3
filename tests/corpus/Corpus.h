// The real-code anchor tests' equipment: the corpus (tests/corpus/corpus.conf,
// installed by scripts/setup.sh), inventories of its definitions made by
// tools that know nothing of engram or tree-sitter (Python's ast, the
// TypeScript compiler, universal-ctags), the formatter passes run over it,
// and the choice of one token to change inside a definition.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace engram::corpus {

// The repository root (tests/corpus/corpus.conf is read relative to it).
std::string repoRoot();

// A whole file, read or (over)written as bytes.
std::string readAll(const std::string& path);
void writeAll(const std::string& path, const std::string& text);

// The corpus files of a language, absolute, in manifest order. Fails the
// test when a line matches nothing (set-up not run, or a package changed).
std::vector<std::string> sources(const std::string& lang);

// A definition as an independent tool reports it.
struct Definition {
    std::string file;  // workspace-relative
    int line = 0;      // 1-based: the definition's first line (decorators, export...)
    int nameLine = 0;  // 1-based: the line of its name
    std::string name;  // the last component, as engram spells it ("operator==", 'it("x")')
    std::string kind;  // the tool's kind
    std::string scope; // the tool's scope, when it gives one (ctags)
};

// The inventory of a language's files in the workspace `root` (files are
// workspace-relative).
std::vector<Definition> inventory(const std::string& lang, const std::string& root,
                                  const std::vector<std::string>& files);

// One formatter pass: rewrites the given files in place (absolute paths).
// Returns an error message, or "" on success.
struct Pass {
    std::string name;
    std::function<std::string(const std::vector<std::string>& files)> run;
    // The pass may give back the original text (gofmt redoing what the
    // de-formatting undid): it checks by itself that it changed something.
    bool restores = false;
};
std::vector<Pass> formatterPasses(const std::string& lang);

// A byte span of the file: an identifier outside comments and strings,
// inside [begin, end), that is no keyword of the language and not one of
// `avoid` (the names of the file's definitions: changing one would rename
// a definition, not change it). Prefers a token outside every span of
// `nested` (the definitions inside this one). {0, 0} when there is none.
struct Span {
    size_t begin = 0, end = 0;
};
Span pickToken(const std::string& lang, const std::string& text, size_t begin, size_t end,
               const std::vector<std::string>& avoid, const std::vector<Span>& nested);

// A Go file with its formatting undone (indentation by three spaces per
// tab, runs of blanks between tokens collapsed, blanks added inside
// parentheses), for gofmt to redo.
std::string deformatGo(const std::string& text);

} // namespace engram::corpus
