"""Acceptance plans: a TOML file naming IOR/mdtest tests, the layout and the targets.

    name = "Lustre acceptance"
    datadir = "/lustre/acceptance"        # $DIR in the command lines; the launches' cwd
    drop_caches = "srun --ntasks-per-node=1 sudo /sbin/drop_caches"   # default for all tests
    [layout]
    nodes = 2
    ppn = 4                                # processes per node
    [vars]                                 # ${name} in the command lines (--var overrides)
    segments = 1638
    [[test]]
    name = "fpp-write-read"
    command = "ior -F -C -e -g -b 4m -t 4m -s ${segments} -w -r -k -o $DIR/IOR_file"
    launch = "separate"                    # the read is its own launch, after drop_caches
    targets = ["write >= 700 GB/s", "read >= 650 GB/s"]

A test is a ``command`` (an IOR or mdtest command line, the program named ior, IOR or mdtest)
or a ``pattern`` (one of ``PATTERNS``, IO500's phases as command lines); ``launch =
"separate"`` splits it into a write (create) launch and a read (remove) launch, and a ``read``
command line gives the second launch explicitly (e.g. a 90 s wear-out write, then a 30 s
read). Without -G, both IOR launches get the same signature so the read verifies the data.
Every error names the plan file, the line and the field.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from ioscore.acceptance.targets import (
    IOR_OPERATIONS,
    MDTEST_OPERATIONS,
    Target,
    TargetError,
    parse_target,
)

MAX_PLAN_BYTES = 1 << 20
MAX_TESTS = 200
PROGRAMS = {"ior": "ior", "IOR": "ior", "mdtest": "mdtest"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# Options the runner sets itself (each launch's results go to its own directory).
RESERVED_OPTIONS = ("--resultdir",)

# IO500's phases as command lines (io500's generated options, sizes from the plan's vars).
PATTERN_DEFAULTS = {
    "block": "1g",
    "segments": "10000",
    "files": "100000",
    "stonewall": "300",
    # IO500 writes and reads with one signature (-G) so a read launch can verify the data
    "signature": "1801675109",
}
_IO500_IOR = "ior -C -Q 1 -g -G ${signature} -k -e -a POSIX"
PATTERNS = {
    "ior-easy-write": f"{_IO500_IOR} -t 2m -b ${{block}} -F -w -D ${{stonewall}} "
    "-O stoneWallingWearOut=1 -o $DIR/ior-easy/ior_file_easy",
    "ior-easy-read": f"{_IO500_IOR} -t 2m -b ${{block}} -F -r -R -o $DIR/ior-easy/ior_file_easy",
    "ior-hard-write": f"{_IO500_IOR} -t 47008 -b 47008 -s ${{segments}} -w -D ${{stonewall}} "
    "-O stoneWallingWearOut=1 -o $DIR/ior-hard/file",
    "ior-hard-read": f"{_IO500_IOR} -t 47008 -b 47008 -s ${{segments}} -r -R -o $DIR/ior-hard/file",
    "ior-rnd4k-read": f"{_IO500_IOR} -t 4k -b ${{block}} -F -r -z -D ${{stonewall}} "
    "-o $DIR/ior-easy/ior_file_easy",
    "mdtest-easy-write": "mdtest -n ${files} -u -L -F -P -N 1 -C -Y -W ${stonewall} "
    "-d $DIR/mdtest-easy",
    "mdtest-easy-stat": "mdtest -n ${files} -u -L -F -P -N 1 -T -d $DIR/mdtest-easy",
    "mdtest-easy-delete": "mdtest -n ${files} -u -L -F -P -N 1 -r -d $DIR/mdtest-easy",
    "mdtest-hard-write": "mdtest -n ${files} -w 3901 -e 3901 -P -N 1 -F -C -Y "
    "-W ${stonewall} -d $DIR/mdtest-hard",
    "mdtest-hard-stat": "mdtest -n ${files} -w 3901 -e 3901 -P -N 1 -F -T -d $DIR/mdtest-hard",
    "mdtest-hard-read": "mdtest -n ${files} -w 3901 -e 3901 -P -N 1 -F -E -d $DIR/mdtest-hard",
    "mdtest-hard-delete": "mdtest -n ${files} -w 3901 -e 3901 -P -N 1 -F -r -d $DIR/mdtest-hard",
}
TEST_KEYS = {
    "name",
    "command",
    "read",
    "pattern",
    "launch",
    "drop_caches",
    "targets",
    "nodes",
    "ppn",
}
PLAN_KEYS = {"name", "datadir", "drop_caches", "layout", "vars", "test", "results"}


class PlanError(ValueError):
    """A plan that cannot run; the message names the file, line and field."""


@dataclass(frozen=True)
class Part:
    """One launch of a test: `program` (ior|mdtest) with its arguments."""

    role: str  # "run" (a one-launch test), "write", "read", "create", "remove"
    program: str
    args: tuple[str, ...]
    drop_caches_before: str | None = None
    make_dirs: tuple[str, ...] = ()  # created before the launch (IO500 patterns' directories)

    @property
    def command_line(self) -> str:
        return shlex.join([self.program, *self.args])


@dataclass
class PlanTest:
    name: str
    source: str  # the command line or pattern as written (after variables)
    program: str
    parts: list[Part]
    targets: list[Target]
    nodes: int
    ppn: int

    @property
    def ranks(self) -> int:
        return self.nodes * self.ppn

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "program": self.program,
            "nodes": self.nodes,
            "ppn": self.ppn,
            "parts": [
                {
                    "role": p.role,
                    "command": p.command_line,
                    "drop_caches_before": p.drop_caches_before,
                }
                for p in self.parts
            ],
            "targets": [t.to_dict() for t in self.targets],
        }


@dataclass
class Plan:
    path: Path
    name: str
    datadir: str
    nodes: int
    ppn: int
    tests: list[PlanTest]
    variables: dict[str, str] = field(default_factory=dict)
    results: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": str(self.path),
            "name": self.name,
            "datadir": self.datadir,
            "layout": {"nodes": self.nodes, "ppn": self.ppn},
            "variables": self.variables,
            "tests": [t.to_dict() for t in self.tests],
        }


class _Where:
    """Line numbers for fields: TOML parsers keep none, so find them in the text."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.test_lines = [i + 1 for i, line in enumerate(self.lines) if line.strip() == "[[test]]"]

    def line_of(self, key: str, test: int | None = None) -> int | None:
        start = self.test_lines[test] if test is not None and test < len(self.test_lines) else 0
        stop = len(self.lines)
        if test is not None and test + 1 < len(self.test_lines):
            stop = self.test_lines[test + 1] - 1
        for number in range(start, stop):
            if self.lines[number].lstrip().startswith(re.split(r"[.\[]", key)[0]):
                return number + 1
        return start or None

    def error(self, field_name: str, message: str, test: int | None = None) -> PlanError:
        line = self.line_of(field_name, test)
        where = f"{self.path}:{line}" if line else str(self.path)
        label = f"test[{test + 1}].{field_name}" if test is not None else field_name
        return PlanError(f"{where}: {label}: {message}")


def _positive(value: Any, where: _Where, name: str, test: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1_000_000:
        raise where.error(name, f"expected a whole number from 1 to 1000000, got {value!r}", test)
    return value


def _string(value: Any, where: _Where, name: str, test: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 4000:
        raise where.error(name, "expected a non-empty string (at most 4000 characters)", test)
    return value


def _substitute(text: str, variables: dict[str, str], where: _Where, name: str, test: int) -> str:
    try:
        return Template(text).substitute(variables)
    except KeyError as exc:
        known = ", ".join(sorted(variables))
        raise where.error(
            name, f"unknown variable ${exc.args[0]} (defined: {known}; add it to [vars])", test
        ) from None
    except ValueError:
        raise where.error(
            name, "a '$' that is not $NAME or ${NAME} (write $$ for $)", test
        ) from None


def _flag_letters(args: list[str]) -> str:
    return "".join(a[1:] for a in args if re.fullmatch(r"-[A-Za-z]+", a))


def _without_flags(args: list[str], drop: str) -> list[str]:
    """args with the single-letter flags in `drop` removed (also from bundles like -wr)."""
    out = []
    for arg in args:
        if re.fullmatch(r"-[A-Za-z]+", arg):
            kept = "".join(c for c in arg[1:] if c not in drop)
            if kept:
                out.append("-" + kept)
        else:
            out.append(arg)
    return out


def split_separate(program: str, args: list[str], test_name: str) -> list[tuple[str, list[str]]]:
    """A write+read command line -> a write launch (-k) and a read launch (same -G).

    IOR: the write keeps -w (and -W), the read -r (and -R); without -G both get a signature
    derived from the test name, so the read launch can verify what the write launch wrote.
    mdtest: the create launch runs -C (and -T, -E when given), the remove launch -r.
    """
    flags = _flag_letters(args)
    if program == "ior":
        # A flag inside a value (-o -w) cannot occur: values follow options with arguments.
        if "G" not in flags:
            args = [*args, "-G", str(zlib.crc32(test_name.encode()) & 0x7FFFFFFF)]
        write = _without_flags(args, "rR")
        # The read keeps the files for its own repetitions (-i N, N > 1) or when asked to (-k).
        read = _without_flags(args, "wW" if "k" in flags or _repetitions(args) > 1 else "wWk")
        if "k" not in flags and _repetitions(args) > 1:
            read.append("-k")
        if "w" not in flags:
            write.append("-w")
        if "k" not in flags:
            write.append("-k")
        if "r" not in flags:
            read.append("-r")
        return [("write", write), ("read", read)]
    create = _without_flags(args, "r")
    remove = _without_flags(args, "CTE")
    if "C" not in flags:
        create.append("-C")
    if "r" not in flags:
        remove.append("-r")
    return [("create", create), ("remove", remove)]


def _repetitions(args: list[str]) -> int:
    value = args[args.index("-i") + 1] if "-i" in args[:-1] else "1"
    return int(value) if value.isdigit() else 1


def _pattern_dirs(program: str, args: list[str]) -> tuple[str, ...]:
    """The directory of a pattern's -o (IO500 creates it; IOR does not)."""
    if program != "ior" or "-o" not in args[:-1]:
        return ()
    return (str(Path(args[args.index("-o") + 1]).parent),)


def _command(text: str, where: _Where, field_name: str, test: int) -> tuple[str, list[str]]:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise where.error(field_name, f"cannot split the command line: {exc}", test) from None
    if not words or words[0] not in PROGRAMS:
        raise where.error(field_name, "the command line must start with ior, IOR or mdtest", test)
    for word in words[1:]:
        if word.split("=", 1)[0] in RESERVED_OPTIONS:
            raise where.error(field_name, f"{word}: set by `ioscore run` for each launch", test)
    return PROGRAMS[words[0]], words[1:]


def _ior_operations(parts: list[Part]) -> set[str]:
    """The IOR operations a test's launches produce results for: write (-w), read (-r or -R:
    verified inside the one timed read), readback (-W); neither -w, -r, -W nor -R: write and
    read. `reread` is in results of older builds only."""
    out: set[str] = set()
    for part in parts:
        flags = _flag_letters(list(part.args))
        if not any(f in flags for f in "wrWR"):
            flags += "wr"
        out |= {op for f, op in (("w", "write"), ("r", "read"), ("R", "read")) if f in flags}
        out |= {"readback"} if "W" in flags else set()
    return out


def _targets(
    raw: Any, program: str, where: _Where, test: int, produced: set[str] | None = None
) -> list[Target]:
    """The test's targets; with `produced` (IOR), each must name an operation its launches
    run, so no target waits for results that cannot come."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > 100:
        raise where.error("targets", "expected a list of strings like 'write >= 700 GB/s'", test)
    out = []
    allowed = IOR_OPERATIONS if program == "ior" else MDTEST_OPERATIONS
    for index, text in enumerate(raw):
        try:
            target = parse_target(text)
        except TargetError as exc:
            raise where.error(f"targets[{index + 1}]", str(exc), test) from None
        if target.operation not in allowed:
            raise where.error(
                f"targets[{index + 1}]",
                f"{target.text!r}: {target.operation} is not an operation of {program}",
                test,
            )
        if produced is not None and target.operation not in produced:
            why = (
                "this build verifies -R inside the one timed read, as IOR: set the target on 'read'"
                if target.operation == "reread"
                else f"the test's launches run {', '.join(sorted(produced))} only"
            )
            raise where.error(
                f"targets[{index + 1}]",
                f"{target.text!r}: no {target.operation} results: {why}",
                test,
            )
        out.append(target)
    return out


def _variables(raw: Any, overrides: dict[str, str], where: _Where) -> dict[str, str]:
    if raw is not None and not isinstance(raw, dict):
        raise where.error("vars", "expected a table of name = value")
    variables = dict(PATTERN_DEFAULTS)
    for name, value in {**(raw or {}), **overrides}.items():
        if not _VAR.fullmatch(name):
            raise where.error(f"vars.{name}", "variable names are letters, digits and _")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise where.error(f"vars.{name}", "expected a string or a number")
        variables[name] = str(value)
    return variables


def load_plan(path: Path, overrides: dict[str, str] | None = None) -> Plan:
    """Read and validate a plan; PlanError names the file, line and field of any problem."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    if len(data) > MAX_PLAN_BYTES:
        raise PlanError(f"{path}: plan larger than {MAX_PLAN_BYTES} bytes")
    try:
        text = data.decode("utf-8")
        document = tomllib.loads(text)
    except UnicodeDecodeError:
        raise PlanError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path}: not valid TOML: {exc}") from None
    return plan_from_document(path, text, document, overrides or {})


def plan_from_document(
    path: Path, text: str, document: dict[str, Any], overrides: dict[str, str]
) -> Plan:
    where = _Where(path, text)
    for key in document:
        if key not in PLAN_KEYS:
            raise where.error(key, f"unknown field (known: {', '.join(sorted(PLAN_KEYS))})")
    name = _string(document.get("name"), where, "name")
    # --var datadir=DIR moves a plan's data (e.g. a trial on /dev/shm), as $DIR in every line.
    datadir = overrides.get("datadir") or _string(document.get("datadir"), where, "datadir")
    layout = document.get("layout")
    if not isinstance(layout, dict):
        raise where.error("layout", "missing [layout] table with nodes and ppn")
    for key in layout:
        if key not in ("nodes", "ppn"):
            raise where.error(f"layout.{key}", "unknown field (known: nodes, ppn)")
    nodes = _positive(layout.get("nodes"), where, "nodes")
    ppn = _positive(layout.get("ppn"), where, "ppn")
    variables = _variables(document.get("vars"), overrides, where)
    variables["DIR"] = variables["datadir"] = datadir
    default_drop = document.get("drop_caches")
    if default_drop is not None:
        _string(default_drop, where, "drop_caches")
    raw_tests = document.get("test")
    if not isinstance(raw_tests, list) or not raw_tests:
        raise where.error("test", "the plan has no [[test]] entries")
    if len(raw_tests) > MAX_TESTS:
        raise where.error("test", f"more than {MAX_TESTS} tests")
    tests: list[PlanTest] = []
    for index, raw in enumerate(raw_tests):
        tests.append(_test(raw, index, where, variables, default_drop, nodes, ppn))
        if [t.name for t in tests].count(tests[-1].name) > 1:
            raise where.error("name", f"test name {tests[-1].name!r} is used twice", index)
    results = document.get("results")
    return Plan(
        path=path,
        name=name,
        datadir=datadir,
        nodes=nodes,
        ppn=ppn,
        tests=tests,
        variables={k: v for k, v in variables.items() if k not in ("DIR", "datadir")},
        results=_string(results, where, "results") if results is not None else None,
    )


def _test(
    raw: Any,
    index: int,
    where: _Where,
    variables: dict[str, str],
    default_drop: str | None,
    nodes: int,
    ppn: int,
) -> PlanTest:
    if not isinstance(raw, dict):
        raise where.error("test", "expected a table", index)
    for key in raw:
        if key not in TEST_KEYS:
            raise where.error(key, f"unknown field (known: {', '.join(sorted(TEST_KEYS))})", index)
    name = _string(raw.get("name"), where, "name", index)
    if not _NAME.fullmatch(name):
        raise where.error("name", "letters, digits, '.', '_' and '-' (at most 64)", index)
    if ("command" in raw) == ("pattern" in raw):
        raise where.error("command", "give exactly one of command or pattern", index)
    if "pattern" in raw:
        pattern = _string(raw["pattern"], where, "pattern", index)
        if pattern not in PATTERNS:
            raise where.error(
                "pattern", f"unknown pattern {pattern!r} (known: {', '.join(PATTERNS)})", index
            )
        text, field_name = PATTERNS[pattern], "pattern"
        make_dirs = True
    else:
        text, field_name = _string(raw["command"], where, "command", index), "command"
        make_dirs = False
    source = _substitute(text, variables, where, field_name, index)
    program, args = _command(source, where, field_name, index)
    launch = raw.get("launch", "single")
    if launch not in ("single", "separate"):
        raise where.error("launch", "expected 'single' or 'separate'", index)
    drop = raw.get("drop_caches", default_drop)
    if drop is not None:
        drop = _substitute(
            _string(drop, where, "drop_caches", index), variables, where, "drop_caches", index
        )
    dirs = _pattern_dirs(program, args) if make_dirs else ()
    if "read" in raw:
        parts = _explicit_parts(raw, name, program, args, where, variables, index, drop, dirs)
    elif launch == "separate":
        split = split_separate(program, args, name)
        parts = [
            Part(split[0][0], program, tuple(split[0][1]), make_dirs=dirs),
            Part(split[1][0], program, tuple(split[1][1]), drop_caches_before=drop),
        ]
    else:
        parts = [Part("run", program, tuple(args), make_dirs=dirs)]
    return PlanTest(
        name=name,
        source=source,
        program=program,
        parts=parts,
        targets=_targets(
            raw.get("targets"),
            program,
            where,
            index,
            _ior_operations(parts) if program == "ior" else None,
        ),
        nodes=_positive(raw.get("nodes", nodes), where, "nodes", index),
        ppn=_positive(raw.get("ppn", ppn), where, "ppn", index),
    )


def _explicit_parts(
    raw: dict[str, Any],
    name: str,
    program: str,
    args: list[str],
    where: _Where,
    variables: dict[str, str],
    index: int,
    drop: str | None,
    dirs: tuple[str, ...],
) -> list[Part]:
    """`command` then `read` (its own launch, after the cache drop): e.g. a wear-out write
    that makes the dataset and a shorter stonewalled read of it."""
    text = _substitute(_string(raw["read"], where, "read", index), variables, where, "read", index)
    read_program, read_args = _command(text, where, "read", index)
    if read_program != program:
        raise where.error("read", f"must run {program}, like the command", index)
    if raw.get("launch", "separate") != "separate":
        raise where.error(
            "launch", "a test with `read` is two launches: launch = 'separate'", index
        )
    roles = ("write", "read") if program == "ior" else ("create", "remove")
    if program == "ior" and "G" not in _flag_letters(args) + _flag_letters(read_args):
        signature = ["-G", str(zlib.crc32(name.encode()) & 0x7FFFFFFF)]  # the read verifies
        args, read_args = [*args, *signature], [*read_args, *signature]
    return [
        Part(roles[0], program, tuple(args), make_dirs=dirs),
        Part(roles[1], program, tuple(read_args), drop_caches_before=drop),
    ]


_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./${}=:,@+%-]+")
_VAR_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _replace_var(lines: list[str], name: str, value: str) -> None:
    """Set `name = value` in the plan's [vars] table (added there when missing)."""
    start = next((i for i, line in enumerate(lines) if line.strip() == "[vars]"), None)
    if start is None:
        raise PlanError(f"variable ${name} is not in a [vars] table")
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if stripped.startswith("["):
            break
        if re.match(rf"{re.escape(name)}\s*=", stripped):
            lines[i] = f"{name} = {json.dumps(value)}\n"
            return
    lines.insert(start + 1, f"{name} = {json.dumps(value)}\n")


def update_test_options(path: Path, test_name: str, values: dict[str, str]) -> None:
    """Set options (e.g. {"-b": "12g", "-s": "1"}) in one test's command line, in place.

    A value written as a variable ($block, ${block}) is changed in [vars] instead, so every
    test using it follows. The edited plan must still load, or nothing is written.
    """
    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if line.strip() == "[[test]]"]
    for number, head in enumerate(headers):
        end = headers[number + 1] if number + 1 < len(headers) else len(lines)
        try:
            entry = tomllib.loads("".join(lines[head:end]))["test"][0]
        except (tomllib.TOMLDecodeError, KeyError, IndexError):
            continue
        if entry.get("name") != test_name:
            continue
        if "command" not in entry:
            raise PlanError(
                f"{path}: test {test_name!r} is a pattern: set block/segments/files in [vars]"
            )
        at = next((i for i in range(head, end) if lines[i].lstrip().startswith("command")), None)
        if at is None or tomllib.loads(lines[at]).get("command") != entry["command"]:
            raise PlanError(f"{path}:{head + 1}: the command must be on one line to be updated")
        words = shlex.split(entry["command"])
        var_updates = {}
        for option, value in values.items():
            if option in words:
                index = words.index(option) + 1
                if index == len(words) or words[index].startswith("-"):
                    raise PlanError(f"{path}: test {test_name!r}: {option} has no value to set")
                reference = _VAR_REFERENCE.fullmatch(words[index])
                if reference:
                    var_updates[reference.group(1)] = value
                else:
                    words[index] = value
            else:
                words += [option, value]
        command = " ".join(w if _PLAIN_WORD.fullmatch(w) else shlex.quote(w) for w in words)
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        lines[at] = f"{indent}command = {json.dumps(command)}\n"
        for name, value in var_updates.items():
            _replace_var(lines, name, value)
        new_text = "".join(lines)
        plan_from_document(Path(path), new_text, tomllib.loads(new_text), {})  # still valid
        Path(path).write_text(new_text, encoding="utf-8")
        return
    raise PlanError(f"{path}: no test named {test_name!r}")
