"""The IO500 results archive in its published layout, read without Django.

Layout (a git clone of IO500/submission-data, or any subset of it)::

    <institution>/<system>/<fs>[/...]/<year>/submission-<N>/...

Every ``submission-<N>`` directory is one website submission (N = website id). What it holds
changed with the benchmark:

* bash era (SC17-ISC20): ``result_summary.txt`` (the [RESULT] lines of the submitted run) beside
  ``io-500-summary.<date>.txt`` logs of the io500.sh runs. The log whose score equals the
  summary dates the submitted run; every other log with a complete score is a further run of a
  *bundle* directory and kept as its own run; logs without a score are aborted attempts.
* C app (ISC20 on): a run directory with ``result_summary.txt`` + ``result.txt`` (+ config,
  per-rank CSVs), often ``results/<date>/`` with a top-level copy of its summary beside it.
  The dated run directory wins over an identical top-level copy; a top-level summary that
  differs is a run of its own.

macOS ``._*`` files and ``__MACOSX`` are ignored everywhere. Every directory is accounted for:
it yields runs, or a reason why not.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ioscore.results import is_macos_metadata

_SUBMISSION_DIR = re.compile(r"submission-(\d{1,9})")
_LOG_NAME = re.compile(r"io-500-summary\..*\.txt")
_STAMP = re.compile(r"(\d{4})\.(\d\d)\.(\d\d)-\d\d\.\d\d\.\d\d")
_RESULT_LINE = re.compile(r"\[RESULT[^\]\n]{0,20}\][^\n]{0,300}")
_SCORE_LINE = re.compile(r"\[SCORE[^\]\n]{0,20}\][^\n]{0,300}")
_PHASE_NAME = re.compile(r"\[RESULT\]\s+(?:(?:BW|IOPS)\s+phase\s+\d+\s+)?(\S+)")
# Where a run states its client nodes: io500.sh info lines (logs, system-information.txt),
# the system-information.json of the C app, and job scripts (Slurm, PBS).
_NODE_PATTERNS = (
    re.compile(r'^io500_info_client_nodes="?(\d{1,7})"?\s*$', re.MULTILINE),
    re.compile(r'"number_clientNodes"\s*:\s*"(\d{1,7})"'),
    re.compile(r"^#SBATCH[ \t]+(?:--nodes[ \t]*=?|-N)[ \t]*(\d{1,7})[ \t]*$", re.MULTILINE),
    re.compile(r"^#PBS[ \t]+-l[ \t]+(?:select|nodes)=(\d{1,7})\b", re.MULTILINE),
)
MAX_SCANNED_FILE = 512 * 1024  # text files read for node counts and summary lines


@dataclass
class ArchiveRun:
    """One run found in a submission directory."""

    member: str  # "" for the directory's primary run, else the run's path inside it
    run_dir: Path  # directory holding the run's files
    summary_text: str | None = None  # bash-era log: the [RESULT]/[SCORE] lines of this run
    source: str = ""  # the file the run was read from (for messages)
    day: date | None = None  # run date, when the files say it

    @property
    def is_primary(self) -> bool:
        return self.member == ""


@dataclass
class ArchiveDir:
    number: int
    path: Path
    relpath: str
    institution: str
    system: str
    filesystem: str
    year: int | None
    runs: list[ArchiveRun] = field(default_factory=list)
    client_nodes: int | None = None
    notes: list[str] = field(default_factory=list)


def stamp_day(text: str) -> date | None:
    match = _STAMP.search(text)
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_SCANNED_FILE:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _files(top: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not is_macos_metadata(d))
        found += [Path(root) / f for f in sorted(files) if not is_macos_metadata(f)]
    return found


def log_run_lines(text: str) -> str | None:
    """The summary lines of the last complete run in an io500.sh log, or None.

    The script prints each [RESULT] line while it runs and again at the end; the last
    ``[SCORE]`` line closes the run, and the last line of every phase before it is its value.
    Shell trace lines (``++ echo '[SCORE] ...'``) do not start with the tag and are ignored.
    """
    lines = text.splitlines()
    score_at = None
    for index in range(len(lines) - 1, -1, -1):
        if _SCORE_LINE.fullmatch(lines[index].strip()) and lines[index].startswith("[SCORE"):
            score_at = index
            break
    if score_at is None or lines[score_at].startswith("[SCORE-invalid]"):
        return None
    phases: dict[str, str] = {}
    for line in lines[:score_at]:
        if line.startswith("[RESULT") and _RESULT_LINE.fullmatch(line.strip()):
            name = _PHASE_NAME.match(line)
            if name:
                phases.pop(name.group(1), None)
                phases[name.group(1)] = line.rstrip()
    if len(phases) < 12:
        return None
    return "\n".join([*phases.values(), lines[score_at].rstrip()]) + "\n"


def _signature(summary_text: str) -> tuple[str, ...]:
    """Compare runs by their [RESULT]/[SCORE] lines, whitespace- and order-insensitive (the
    log prints the phases grouped by kind, the summary in run order)."""
    return tuple(
        sorted(
            " ".join(line.split())
            for line in summary_text.splitlines()
            if line.startswith("[RESULT") or line.startswith("[SCORE")
        )
    )


def _select_runs(directory: ArchiveDir, files: list[Path]) -> None:
    summaries = [f for f in files if f.name == "result_summary.txt"]
    logs = [f for f in files if _LOG_NAME.fullmatch(f.name)]
    if not summaries and not logs:
        directory.notes.append("no result_summary.txt and no io-500-summary log")
        return
    texts = {f: _read_text(f) or "" for f in summaries}
    # C app: the deepest run directory with result.txt (dated) first; a summary with the same
    # lines elsewhere is a copy of it.
    order = sorted(
        summaries,
        key=lambda f: (
            not (f.parent / "result.txt").is_file(),
            stamp_day(str(f.parent.relative_to(directory.path))) is None,
            -len(f.relative_to(directory.path).parts),
            str(f),
        ),
    )
    seen: dict[tuple[str, ...], str] = {}
    for summary in order:
        signature = _signature(texts[summary])
        rel = str(summary.parent.relative_to(directory.path))
        if signature and signature in seen:
            directory.notes.append(
                f"{summary.relative_to(directory.path)}: copy of the run in {seen[signature]}"
            )
            continue
        seen[signature] = rel
        member = "" if not directory.runs else str(summary.relative_to(directory.path))
        directory.runs.append(
            ArchiveRun(member, summary.parent, source=str(summary), day=stamp_day(rel))
        )
    primary_signature = _signature(texts[order[0]]) if order else ()
    for log in sorted(logs):
        rel = str(log.relative_to(directory.path))
        text = _read_text(log)
        lines = log_run_lines(text) if text is not None else None
        if lines is None:
            directory.notes.append(f"{rel}: no complete run in this log (aborted attempt)")
            continue
        day = stamp_day(log.name)
        signature = _signature(lines)
        if signature == primary_signature and directory.runs:
            # The log of the submitted run: it dates the run (bash summaries carry no date).
            directory.runs[0].day = directory.runs[0].day or day
            continue
        if signature in seen:
            directory.notes.append(f"{rel}: same run as {seen[signature]}")
            continue
        seen[signature] = rel
        member = "" if not directory.runs else rel
        directory.runs.append(
            ArchiveRun(member, log.parent, summary_text=lines, source=str(log), day=day)
        )


def client_nodes_from_files(files: list[Path]) -> int | None:
    """The client node count the run's own files state (first one found, most specific
    source first), None when none does."""
    for pattern in _NODE_PATTERNS:
        for path in files:
            if path.suffix.lower() in (".csv", ".ini") or "mdtest" in path.name:
                continue
            text = _read_text(path)
            if text is None:
                continue
            match = pattern.search(text)
            if match and int(match.group(1)) > 0:
                return int(match.group(1))
    return None


def scan_archive(root: Path) -> tuple[list[ArchiveDir], list[tuple[str, str]]]:
    """Every ``submission-<N>`` directory below ``root`` with its runs; plus directories that
    could not be used, each with its reason."""
    root = Path(root)
    found: list[ArchiveDir] = []
    skipped: list[tuple[str, str]] = []
    numbers: dict[int, str] = {}
    for current, dirs, _files_here in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not is_macos_metadata(d))
        match = _SUBMISSION_DIR.fullmatch(os.path.basename(current))
        if not match:
            continue
        dirs[:] = []  # a submission directory is a leaf of the layout
        path = Path(current)
        rel = path.relative_to(root)
        parts = rel.parts[:-1]
        if len(parts) < 4:
            skipped.append((str(rel), "not <institution>/<system>/<fs>/<year>/submission-<N>"))
            continue
        number = int(match.group(1))
        if number in numbers:
            skipped.append((str(rel), f"submission-{number} also at {numbers[number]}"))
            continue
        numbers[number] = str(rel)
        year = int(parts[-1]) if parts[-1].isdigit() else None
        directory = ArchiveDir(
            number=number,
            path=path,
            relpath=str(rel),
            institution=parts[0],
            system=parts[1],
            filesystem="/".join(parts[2:-1]),
            year=year,
        )
        files = _files(path)
        _select_runs(directory, files)
        directory.client_nodes = client_nodes_from_files(files)
        if directory.runs:
            found.append(directory)
        else:
            skipped.append((str(rel), "; ".join(directory.notes)))
    found.sort(key=lambda d: d.number)
    return found, skipped
