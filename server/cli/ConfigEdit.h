// Edits to an agent's configuration file that keep everything engram does
// not change exactly as the person wrote it: comments, blank lines, the
// order and layout of other entries.
//
// Both formats work the same way: parse the text to a document, let the
// caller change the document, then `edit` works out which members were
// added, removed or changed and splices only those into the text. The
// result is parsed again and must equal the changed document; when it
// does not (a shape the splicer does not handle), `edit` answers nullopt
// and the caller refuses rather than rewrite the file.
//
// JSON is read as VS Code reads its settings (JSONC): `//` and `/* */`
// comments and trailing commas are allowed. TOML is read with toml++; an
// edit adds or removes whole `[table]` blocks and `key = value` lines.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace engram::cli {

using ConfigDoc = nlohmann::ordered_json;

// Where a file stops being readable: 1-based line and what was expected.
struct ConfigError : std::runtime_error {
    size_t line;
    ConfigError(size_t line, const std::string& what)
        : std::runtime_error(what)
        , line(line) {}
};

namespace jsonc {
// Throws ConfigError.
ConfigDoc parse(const std::string& text);
// Whether the text holds a comment. Throws ConfigError.
bool hasComments(const std::string& text);
// `text` changed to hold `after`, or nullopt (see above). `text` must parse.
std::optional<std::string> edit(const std::string& text, const ConfigDoc& after);
} // namespace jsonc

namespace tomlfile {
// Tables become objects; dates and times become their TOML text. Throws
// ConfigError.
ConfigDoc parse(const std::string& text);
std::optional<std::string> edit(const std::string& text, const ConfigDoc& after);
} // namespace tomlfile

} // namespace engram::cli
