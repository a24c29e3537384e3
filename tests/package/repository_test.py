#!/usr/bin/env python3
"""The repository engram is published from is named once, in CMakeLists.txt
(project's HOMEPAGE_URL); everything that points users at it says the same:
the VS Code extension's package.json, the documented workflow's action (at
the version CMake names), the README. No placeholder is left."""
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
failed = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failed.append(what)


cmake = open(os.path.join(root, "CMakeLists.txt")).read()
m = re.search(r'project\(engram VERSION (\S+) HOMEPAGE_URL "([^"]+)"', cmake)
check(m is not None, "CMakeLists.txt names the version and the repository")
if not m:
    sys.exit(1)
version, url = m.group(1), m.group(2)
owner_repo = re.fullmatch(r"https://github\.com/([^/]+/[^/]+)", url)
check(owner_repo is not None, f"{url} is a GitHub repository")
slug = owner_repo.group(1)

pkg = json.load(open(os.path.join(root, "editors/vscode/package.json")))
check(pkg["repository"]["url"] == url + ".git",
      f"editors/vscode/package.json's repository is {url}.git")

workflow = open(os.path.join(root, "docs/engram-workflow.yml")).read()
uses = re.findall(r"uses: (\S+)/editors/github@(\S+)", workflow)
check(uses == [(slug, "v" + version)],
      f"docs/engram-workflow.yml uses {slug}/editors/github@v{version} (found {uses})")
check(os.path.isfile(os.path.join(root, "editors/github/action.yml")),
      "the action it uses is editors/github/action.yml")

# Every tracked file: no placeholder, and every github.com/<x>/engram is ours.
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                       check=True).stdout.split()
others = set()
for f in files:
    path = os.path.join(root, f)
    if not os.path.isfile(path) or "node_modules" in f or f.endswith("package-lock.json"):
        continue
    try:
        text = open(path, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    if "YOUR" + "-ORG" in text:  # spelled apart: this file is tracked too
        others.add(f"{f}: a placeholder")
    for hit in re.findall(r"github\.com/([\w.-]+/engram)\b", text):
        if hit != slug:
            others.add(f"{f}: {hit}")
check(not others, "no other name for the repository: " + "; ".join(sorted(others)))
sys.exit(1 if failed else 0)
