#!/usr/bin/env python3
"""The completions and the man page against `engram --help`.

Every command `engram --help` lists, and every flag it names in that
command's entry, must be offered by each shell's completion script for that
command (or globally); the man page must carry the whole help. The scripts
and the page are generated from the same table as the help, so this fails
when one of them is written by hand and drifts.

ENGRAM_BINARY: the engram binary.
"""
import os
import re
import subprocess
import sys

engram = os.environ["ENGRAM_BINARY"]


def run(*args):
    return subprocess.run([engram, *args], check=True, capture_output=True, text=True).stdout


help_text = run("--help")
commands = {}  # command -> flags named in its entry
current = None
for line in help_text.splitlines():
    if line.startswith("global flags:"):
        break
    m = re.match(r"^  ([a-z][a-z-]*)\b", line)
    if m and not line.startswith("   "):
        current = m.group(1)
        commands.setdefault(current, set())
    if current:
        commands[current].update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line))
global_flags = {"--root", "--home", "--json", "--help", "--version"}
problems = []
if len(commands) < 20:
    problems.append(f"only {len(commands)} commands found in engram --help")

bash = run("completions", "bash")
bash_flags = {c: set(f.split()) for c, f in re.findall(r'^        ([a-z-]+)\) flags="([^"]*)" ;;$', bash, re.M)}
bash_globals = set(re.search(r'compgen -W "\$flags ([^"]*)"', bash).group(1).split())
zsh = run("completions", "zsh")
zsh_flags = {c: set(re.findall(r"'(--[a-z-]+)", f)) for c, f in re.findall(r"^        ([a-z-]+)\) flags=\((.*)\) ;;$", zsh, re.M)}
zsh_commands = set(re.search(r"commands=\(([^)]*)\)", zsh).group(1).split())
fish = run("completions", "fish")
fish_commands = set(re.findall(r"-n __fish_use_subcommand -a ([a-z-]+)$", fish, re.M))
fish_flags = {}
for c, f in re.findall(r"-n '__fish_seen_subcommand_from ([a-z-]+)' -l ([a-z-]+)", fish):
    fish_flags.setdefault(c, set()).add("--" + f)

for command, flags in sorted(commands.items()):
    for shell, table in (("bash", bash_flags), ("zsh", zsh_flags)):
        if command not in table:
            problems.append(f"{shell}: no completion for the command {command}")
    if command not in zsh_commands:
        problems.append(f"zsh: {command} is not among the commands offered")
    if command not in fish_commands:
        problems.append(f"fish: {command} is not among the commands offered")
    for flag in sorted(flags - global_flags):
        for shell, table in (("bash", bash_flags), ("zsh", zsh_flags), ("fish", fish_flags)):
            if flag not in table.get(command, set()):
                problems.append(f"{shell}: engram {command} does not offer {flag}")
for flag in global_flags:
    if flag not in bash_globals:
        problems.append(f"bash: the global flag {flag} is not offered")

man = run("man")
if not man.startswith(".TH ENGRAM 1"):
    problems.append("the man page does not start with .TH ENGRAM 1")
for command in commands:
    if not re.search(rf"^  {re.escape(command)}\b", man, re.M):
        problems.append(f"the man page lacks the command {command}")

# The scripts run in the shells themselves (scripts/setup.sh --tests
# installs them): fish completes commands and a command's flags; zsh loads
# the script under compinit and registers its function for engram.
import tempfile
with tempfile.TemporaryDirectory() as tmp:
    fish_file = os.path.join(tmp, "engram.fish")
    zsh_file = os.path.join(tmp, "_engram")
    with open(fish_file, "w") as f:
        f.write(fish)
    with open(zsh_file, "w") as f:
        f.write(zsh)

    def complete_fish(line):
        r = subprocess.run(["fish", "--no-config", "-c", f"source {fish_file}; complete -C '{line}'"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"fish: complete -C '{line}' failed: {r.stderr.strip()}")
        return {l.split("\t")[0] for l in r.stdout.splitlines()}

    if not {"setup", "serve"} <= complete_fish("engram se"):
        problems.append("fish: 'engram se' does not complete to setup and serve")
    if "--scope" not in complete_fish("engram setup --"):
        problems.append("fish: 'engram setup --' does not offer --scope")
    if "--changed-since" not in complete_fish("engram check --"):
        problems.append("fish: 'engram check --' does not offer --changed-since")
    r = subprocess.run(["zsh", "-f", "-c",
                        f"autoload -Uz compinit && compinit -u -d {tmp}/zcompdump && "
                        f"source {zsh_file} && print -r -- $_comps[engram] && whence -w _engram"],
                       capture_output=True, text=True)
    if r.returncode != 0 or "_engram: function" not in r.stdout or not r.stdout.startswith("_engram"):
        problems.append(f"zsh: the script does not load and register _engram when sourced: "
                        f"{r.stdout.strip()} {r.stderr.strip()}")
    # Installed on fpath (as cmake --install puts it): found by its #compdef.
    r = subprocess.run(["zsh", "-f", "-c",
                        f"fpath=({tmp} $fpath); autoload -Uz compinit && "
                        f"compinit -u -d {tmp}/zcompdump2 && print -r -- $_comps[engram]"],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() != "_engram":
        problems.append(f"zsh: _engram on fpath is not registered for engram: "
                        f"{r.stdout.strip()} {r.stderr.strip()}")

# A shell that is not one of the three is a usage error naming them.
bad = subprocess.run([engram, "completions", "tcsh"], capture_output=True, text=True)
if bad.returncode != 2 or "expected bash, zsh or fish, not 'tcsh'" not in bad.stderr:
    problems.append(f"engram completions tcsh: exit {bad.returncode}: {bad.stderr.strip()}")

if problems:
    print("\n".join("FAIL: " + p for p in problems))
    sys.exit(1)
print(f"ok: {len(commands)} commands and their flags in the bash, zsh and fish completions "
      "(completed by fish, loaded by zsh) and the man page")
