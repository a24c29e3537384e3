// The command table, and the completions and man page made from it.
#include "cli/Generate.h"

#include "ops/Operation.h"

#include <sstream>

namespace engram::cli {

CommandTable commandTable() {
    CommandTable t;
    t.global = {{"--root", "--home"}, {}, {"--json", "--help", "--version"}};
    t.commands = {
        {"serve", {{"--log"}, {}, {"--stdio"}}},
        {"mcp", {{"--log"}, {}, {"--output-schemas", "--structured"}}},
        {"check", {{"--format", "--fail-on", "--changed-since", "--max-findings"}, {}, {}}},
        {"init", {}},
        {"merge-driver", {}},
        {"hook", {{"--event", "--format", "--max-chars", "--prompt", "--floor"}, {}, {"--repeat"}}},
        {"doctor", {}},
        {"setup", {{"--scope"}, {}, {"--list", "--check", "--dry-run", "--remove"}}},
        {"team", {}},
        {"sync", {}},
        {"medulla", {}},
        {"completions", {}},
        {"man", {}},
        {"help", {}},
    };
    for (auto& op : ops::operations()) {
        if (op.cli.name.empty()) continue;
        FlagSpec& spec = t.commands[op.cli.name];
        for (auto& f : op.cli.flags) {
            if (f.kind == ops::FlagKind::Switch) {
                spec.boolean.insert(f.name);
                continue;
            }
            spec.valued.insert(f.name);
            if (f.kind == ops::FlagKind::Texts) spec.repeated.insert(f.name);
        }
    }
    // `reverify --file PATH[:LINE]` is reverify_file's form (Cli.cpp).
    t.commands["reverify"].valued.insert("--file");
    return t;
}

namespace {

std::string joined(const std::set<std::string>& a, const std::set<std::string>& b = {}) {
    std::string out;
    for (auto* set : {&a, &b})
        for (auto& s : *set)
            out += (out.empty() ? "" : " ") + s;
    return out;
}

std::string bash(const CommandTable& t) {
    std::ostringstream s;
    s << "# bash completion for engram (engram completions bash)\n"
         "_engram() {\n"
         "    local cur prev cmd i\n"
         "    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
         "    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "    cmd=\"\"\n"
         "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "        case \"${COMP_WORDS[i]}\" in\n"
         "            --root|--home) ((i++)) ;;\n"
         "            -*) ;;\n"
         "            *) cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
         "        esac\n"
         "    done\n"
         "    case \"$prev\" in\n"
         "        --root|--home) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
         "    esac\n"
         "    if [[ -z \"$cmd\" ]]; then\n"
         "        COMPREPLY=($(compgen -W \""
      <<
        [&] {
            std::set<std::string> names;
            for (auto& [name, _] : t.commands)
                names.insert(name);
            return joined(names, {});
        }()
      << " " << joined(t.global.valued, t.global.boolean)
      << "\" -- \"$cur\"))\n"
         "        return\n"
         "    fi\n"
         "    local flags=\"\"\n"
         "    case \"$cmd\" in\n";
    for (auto& [name, spec] : t.commands)
        s << "        " << name << ") flags=\"" << joined(spec.valued, spec.boolean) << "\" ;;\n";
    s << "    esac\n"
         "    if [[ \"$cur\" == -* ]]; then\n"
         "        COMPREPLY=($(compgen -W \"$flags "
      << joined(t.global.valued, t.global.boolean)
      << "\" -- \"$cur\"))\n"
         "    else\n"
         "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    fi\n"
         "}\n"
         "complete -F _engram engram\n";
    return s.str();
}

std::string zsh(const CommandTable& t) {
    std::ostringstream s;
    s << "#compdef engram\n"
         "# zsh completion for engram (engram completions zsh)\n"
         "_engram() {\n"
         "    local -a commands\n"
         "    commands=(";
    for (auto& [name, _] : t.commands)
        s << " " << name;
    s << " )\n"
         "    if (( CURRENT == 2 )); then\n"
         "        _describe -t commands 'engram command' commands\n"
         "        return\n"
         "    fi\n"
         "    local -a flags\n"
         "    case ${words[2]} in\n";
    for (auto& [name, spec] : t.commands) {
        s << "        " << name << ") flags=(";
        for (auto& f : spec.valued)
            s << " '" << f << "=:value:'";
        for (auto& f : spec.boolean)
            s << " '" << f << "'";
        s << " ) ;;\n";
    }
    s << "    esac\n"
         "    _arguments -s $flags";
    for (auto& f : t.global.valued)
        s << " '" << f << "=:directory:_files -/'";
    for (auto& f : t.global.boolean)
        s << " '" << f << "'";
    // Installed on fpath, the file is autoloaded as _engram and runs it;
    // sourced (`source <(engram completions zsh)` after compinit), it
    // registers the function instead: calling it outside a completion
    // would fail.
    s << " '*:file:_files'\n"
         "}\n"
         "if [ \"${funcstack[1]}\" = _engram ]; then\n"
         "    _engram \"$@\"\n"
         "else\n"
         "    compdef _engram engram\n"
         "fi\n";
    return s.str();
}

std::string fish(const CommandTable& t) {
    std::ostringstream s;
    s << "# fish completion for engram (engram completions fish)\n"
         "complete -c engram -f\n";
    for (auto& f : t.global.valued)
        s << "complete -c engram -l " << f.substr(2) << " -r -a '(__fish_complete_directories)'\n";
    for (auto& f : t.global.boolean)
        s << "complete -c engram -l " << f.substr(2) << "\n";
    for (auto& [name, spec] : t.commands) {
        s << "complete -c engram -n __fish_use_subcommand -a " << name << "\n";
        std::string when = "-n '__fish_seen_subcommand_from " + name + "'";
        for (auto& f : spec.valued) {
            s << "complete -c engram " << when << " -l " << f.substr(2) << " -r\n";
        }
        for (auto& f : spec.boolean)
            s << "complete -c engram " << when << " -l " << f.substr(2) << "\n";
        s << "complete -c engram " << when << " -F\n";
    }
    return s.str();
}

// roff escapes: a backslash, and a line starting with . or '.
std::string roffLine(const std::string& line) {
    std::string out;
    for (char c : line)
        out += c == '\\' ? std::string("\\e") : std::string(1, c);
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
    return out;
}

} // namespace

std::string completionScript(const std::string& shell, const CommandTable& table) {
    if (shell == "bash") return bash(table);
    if (shell == "zsh") return zsh(table);
    if (shell == "fish") return fish(table);
    throw UsageError("completions: expected bash, zsh or fish" +
                     (shell.empty() ? std::string() : ", not '" + shell + "'"));
}

std::string manPage(const std::string& usage, const std::string& version) {
    std::ostringstream s;
    s << ".TH ENGRAM 1 \"\" \"engram " << version << "\" \"User Commands\"\n"
      << ".SH NAME\nengram \\- memory for coding agents, anchored to code\n"
      << ".SH SYNOPSIS\n.B engram\n[\\-\\-root DIR] [\\-\\-home DIR] [\\-\\-json] COMMAND "
         "[ARGS]\n"
      << ".SH DESCRIPTION\n"
         "engram keeps what agents and people learn about a code base as claims, each "
         "anchored to the code it describes, and flags a claim when that code changes. Editors "
         "start it as a language server (\\fBengram serve\\fR), agents as an MCP server "
         "(\\fBengram mcp\\fR); people and CI use the commands below.\n"
      << ".SH COMMANDS\n.nf\n";
    std::istringstream in(usage);
    std::string line;
    bool body = false;
    while (std::getline(in, line)) {
        // The usage's first lines are the synopsis above.
        if (!body && line.rfind("commands:", 0) == 0) {
            body = true;
            continue;
        }
        if (body) s << roffLine(line) << "\n";
    }
    s << ".fi\n"
      << ".SH ENVIRONMENT\n"
         ".TP\n.B ENGRAM_ROOT\nThe workspace root, when \\-\\-root is not given.\n"
         ".TP\n.B ENGRAM_HOME\nWhere the medulla (the user's global memory), the registry "
         "of projects and the packet key live; default $XDG_DATA_HOME/engram, else "
         "~/.local/share/engram.\n"
         ".TP\n.B ENGRAM_AGENT\nWho acts, as tool:role, when a command does not say.\n"
      << ".SH FILES\n"
         ".TP\n.I .engram/claims/\nThe project's claims, one Markdown file each, reviewed "
         "and merged with git like code.\n"
      << ".SH SEE ALSO\n\\fBgit\\fR(1)\n";
    return s.str();
}

} // namespace engram::cli
