#!/usr/bin/env python3
"""manpage.py NAME BINARY OUT: a man page (man(7)) for one of the suite's programs.

The text comes from the built program itself, so the page never disagrees with it: --help for
the synopsis and options, --list (ioscore-suite) for the INI option table with its defaults,
--version (ioscore-suite) for the version and MPI. The program runs as an MPI singleton;
`make install` sets what Open MPI needs to run as root.
"""

from __future__ import annotations

import subprocess
import sys

SUMMARY = {
    "ioscore-suite": "IO500-style storage benchmark: IOR and mdtest phases, find, score",
    "ioscore-find": "parallel find (pfind semantics) as run by the suite's find phase",
}
# (section, option whose output it is): the sections each program's page has after OPTIONS
EXTRA = {
    "ioscore-suite": (("CONFIGURATION", "--list"), ("VERSION", "--version")),
    "ioscore-find": (),
}


def run(binary: str, option: str) -> str:
    done = subprocess.run([binary, option], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or not done.stdout.strip():
        sys.exit(f"manpage.py: {binary} {option} failed (exit {done.returncode}): {done.stderr}")
    return done.stdout


def roff(text: str) -> str:
    """TEXT as literal lines: backslashes escaped, no line read as a request."""
    lines = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def page(name: str, binary: str) -> str:
    lines = run(binary, "--help").rstrip("\n").split("\n")
    # the usage line and its continuations (indented, "[...]") are the synopsis
    n = 1
    while n < len(lines) and lines[n].lstrip().startswith("["):
        n += 1
    usage = "\n".join(line.strip() for line in lines[:n])
    options = "\n".join(lines[n:])
    version = run(binary, "--version").split("\n")[0] if EXTRA[name] else ""
    out = [f'.TH {name.upper()} 1 "" "{("ioscore " + version).strip()}" "User Commands"']
    out += [".SH NAME", f"{name} \\- {SUMMARY[name]}"]
    out += [".SH SYNOPSIS", ".nf", roff(usage.removeprefix("usage: ")), ".fi"]
    out += [".SH OPTIONS", ".nf", roff(options), ".fi"]
    for section, option in EXTRA[name]:
        out += [f".SH {section}", ".nf", roff(run(binary, option)), ".fi"]
    out += [".SH SEE ALSO", ", ".join(f"\\fB{n}\\fR(1)" for n in sorted(SUMMARY) if n != name)]
    return "\n".join(out) + "\n"


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in SUMMARY:
        sys.exit(f"usage: manpage.py {{{'|'.join(SUMMARY)}}} BINARY OUT")
    name, binary, path = sys.argv[1:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(page(name, binary))


if __name__ == "__main__":
    main()
