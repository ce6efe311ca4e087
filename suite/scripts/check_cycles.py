#!/usr/bin/env python3
"""Finds dependency cycles in the suite (run by `make -C suite check`).

Two graphs, both must be acyclic:
  headers  a header includes another (`#include "..."` in include/ and src/)
  files    a source file uses what another defines: a global symbol one object file leaves
           undefined and another defines (`nm`), e.g. run.c calling report/log.c while log.c
           calls back into run.c, which is what "include cycle" means for a .c file.
Prints every cycle with the edges that form it and exits 1, else prints a one-line summary.
Usage: check_cycles.py SUITE_DIR OBJ_DIR
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def header_graph(suite: Path) -> dict[str, dict[str, str]]:
    """header -> {included header: why}, names relative to the suite directory."""
    headers = sorted(suite.glob("include/**/*.h")) + sorted(suite.glob("src/**/*.h"))
    by_name = {str(h.relative_to(suite)): h for h in headers}
    graph: dict[str, dict[str, str]] = {}
    for name, path in by_name.items():
        graph[name] = {}
        for inc in INCLUDE.findall(path.read_text(encoding="utf-8")):
            for candidate in (f"include/{inc}", str(path.parent.relative_to(suite) / inc)):
                if candidate in by_name and candidate != name:
                    graph[name][candidate] = f'#include "{inc}"'
    return graph


def symbols(obj: Path) -> tuple[set[str], set[str]]:
    """(defined, undefined) global symbols of one object file."""
    out = subprocess.run(["nm", "-g", str(obj)], capture_output=True, text=True, check=True)
    defined: set[str] = set()
    undefined: set[str] = set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBCGSV":
            defined.add(parts[2])
    return defined, undefined


def file_graph(suite: Path, objdir: Path) -> dict[str, dict[str, str]]:
    """source file -> {source file whose symbols it uses: one such symbol}."""
    # objects of sources that no longer exist (a stale build directory) do not count
    objects = [
        obj
        for obj in sorted(objdir.glob("**/*.o"))
        if (suite / "src" / obj.relative_to(objdir).with_suffix(".c")).is_file()
    ]
    owner: dict[str, str] = {}
    needs: dict[str, set[str]] = {}
    for obj in objects:
        name = str(obj.relative_to(objdir).with_suffix(".c"))
        defined, undefined = symbols(obj)
        needs[name] = undefined
        for sym in defined:
            owner[sym] = name
    graph: dict[str, dict[str, str]] = {}
    for name, undefined in needs.items():
        graph[name] = {}
        for sym in sorted(undefined):
            other = owner.get(sym)
            if other and other != name:
                graph[name].setdefault(other, sym)
    return graph


def cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def report(kind: str, graph: dict[str, dict[str, str]]) -> int:
    bad = cycles(graph)
    for component in bad:
        members = set(component)
        print(f"check_cycles: {kind} cycle among {', '.join(component)}:", file=sys.stderr)
        for node in component:
            for other, why in sorted(graph[node].items()):
                if other in members:
                    print(f"  {node} -> {other} ({why})", file=sys.stderr)
    return len(bad)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    suite, objdir = Path(argv[1]), Path(argv[2])
    headers, files = header_graph(suite), file_graph(suite, objdir)
    if not files:
        print(f"check_cycles: no object files under {objdir}; build first", file=sys.stderr)
        return 2
    bad = report("header include", headers) + report("source file", files)
    if bad:
        return 1
    print(f"check_cycles: no cycles ({len(headers)} headers, {len(files)} source files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
