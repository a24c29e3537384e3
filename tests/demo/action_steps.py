#!/usr/bin/env python3
"""Runs the steps of a composite GitHub Action (action.yml) as the runner
does: each `run` step in order, its `if` and `env` evaluated against the
inputs, GITHUB_OUTPUT read back into steps.<id>.outputs, the job failing at
the first step that fails. Steps that use another action (the cache, the
SARIF upload) are GitHub's own and are skipped, as are those named with
--skip.

    action_steps.py ACTION_DIR [--input NAME=VALUE ...] [--skip ID ...]
                    [--runner-temp DIR]

A directory a step appends to GITHUB_PATH is on the PATH of the steps after
it, as on a runner.

Exits with the failing step's code (0 when every step passed) and prints
each step's id and outcome."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("action_dir")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--runner-temp")
    args = ap.parse_args()
    with open(os.path.join(args.action_dir, "action.yml")) as f:
        action = yaml.safe_load(f)
    assert action["runs"]["using"] == "composite", "not a composite action"
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for pair in args.input:
        name, _, value = pair.partition("=")
        if name not in inputs:
            sys.exit(f"action_steps: the action has no input '{name}'")
        inputs[name] = value
    temp = args.runner_temp or tempfile.mkdtemp()
    outputs = {}
    path_file = os.path.join(temp, "github-path")
    open(path_file, "w").close()

    def value_of(expr):
        expr = expr.strip()
        if m := re.fullmatch(r"inputs\.([\w-]+)", expr):
            return inputs[m.group(1)]
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr):
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        if expr == "runner.temp":
            return temp
        if expr == "github.action_path":
            return os.path.abspath(args.action_dir)
        if m := re.fullmatch(r"'([^']*)'", expr):
            return m.group(1)
        sys.exit(f"action_steps: cannot evaluate '{expr}'")

    def substitute(text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: value_of(m.group(1)), str(text))

    def holds(cond):
        if cond is None:
            return True
        cond = cond.strip()
        if cond.startswith("${{") and cond.endswith("}}"):
            cond = cond[3:-2]
        m = re.fullmatch(r"\s*(.+?)\s*(==|!=)\s*(.+?)\s*", cond)
        if not m:
            sys.exit(f"action_steps: cannot evaluate if: {cond}")
        same = value_of(m.group(1)) == value_of(m.group(3))
        return same if m.group(2) == "==" else not same

    for i, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{i}")
        if "uses" in step:
            print(f"{sid}: skipped ({step['uses']} is GitHub's)")
            continue
        if sid in args.skip:
            print(f"{sid}: skipped")
            continue
        if not holds(step.get("if")):
            print(f"{sid}: not run (if)")
            continue
        out_file = os.path.join(temp, f"output-{sid}")
        open(out_file, "w").close()
        env = dict(os.environ)
        env.update({k: substitute(v) for k, v in step.get("env", {}).items()})
        env["GITHUB_ACTION_PATH"] = os.path.abspath(args.action_dir)
        env["GITHUB_OUTPUT"] = out_file
        env["GITHUB_PATH"] = path_file
        env["RUNNER_TEMP"] = temp
        with open(path_file) as f:
            added = [line.strip() for line in f if line.strip()]
        env["PATH"] = os.pathsep.join(list(reversed(added)) + [env.get("PATH", "")])
        shell = step.get("shell")
        assert shell == "bash", f"{sid}: shell {shell}"
        rc = subprocess.call(["bash", "-e", "-c", substitute(step["run"])], env=env)
        with open(out_file) as f:
            outputs[sid] = dict(
                line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        print(f"{sid}: exit {rc}")
        if rc != 0:
            sys.exit(rc)


if __name__ == "__main__":
    main()
