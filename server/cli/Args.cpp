// Argument parsing.
#include "cli/Args.h"

namespace engram::cli {

std::optional<std::string> Args::get(const std::string& flag) const {
    auto it = values.find(flag);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::vector<std::string> Args::all(const std::string& flag) const {
    auto it = values.find(flag);
    return it == values.end() ? std::vector<std::string>{} : it->second;
}

Args parseArgs(int argc, char** argv, const std::map<std::string, FlagSpec>& commands,
               const FlagSpec& global) {
    Args a;
    const FlagSpec* spec = nullptr;
    bool endOfFlags = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (endOfFlags || arg.size() < 2 || arg[0] != '-' || arg == "-") {
            if (a.command.empty() && !endOfFlags) {
                auto it = commands.find(arg);
                if (it == commands.end()) throw UsageError("unknown command '" + arg + "'");
                a.command = arg;
                spec = &it->second;
            } else {
                a.positionals.push_back(arg);
            }
            continue;
        }
        if (arg == "--") {
            endOfFlags = true;
            continue;
        }
        std::string name = arg, value;
        bool inlineValue = false;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
            inlineValue = true;
        }
        auto known = [&](const std::set<std::string> FlagSpec::*field) {
            return (global.*field).count(name) || (spec && (spec->*field).count(name));
        };
        if (known(&FlagSpec::boolean)) {
            if (inlineValue) throw UsageError(name + " takes no value");
            a.switches.insert(name);
        } else if (known(&FlagSpec::valued) || known(&FlagSpec::repeated)) {
            if (!inlineValue) {
                if (i + 1 >= argc) throw UsageError(name + " needs a value");
                value = argv[++i];
            }
            auto& vs = a.values[name];
            if (!vs.empty() && !known(&FlagSpec::repeated))
                throw UsageError(name + " may be given only once");
            vs.push_back(value);
        } else {
            throw UsageError("unknown flag '" + name + "'" +
                             (a.command.empty() ? "" : " for '" + a.command + "'"));
        }
    }
    return a;
}

} // namespace engram::cli
