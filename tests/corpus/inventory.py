"""The definitions of Python files as Python's own parser sees them: an
inventory of the corpus made without tree-sitter, so the anchor tests do not
grade engram against its own parser.

Usage: python3 inventory.py FILE...  One JSON object per line:
  {"file", "line" (1-based, the first decorator or the def/class keyword),
   "nameLine", "name", "kind"}
Functions (async too), methods and classes at any depth.
"""
import ast
import json
import sys

for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            print(json.dumps({"file": path, "line": first, "nameLine": node.lineno,
                              "name": node.name, "kind": kind}))
