"""Find run directories and read one run (summary + result.txt + config*.ini, or result.json).

A run directory holds `result_summary.txt` (IO500 formats) and/or `result.json` (ioscore);
result.json is preferred when both exist. macOS `._*` files and `__MACOSX` are skipped.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ioscore.results.archive import is_macos_metadata
from ioscore.results.errors import ResultFormatError
from ioscore.results.layout_record import attach as attach_layout
from ioscore.results.limits import MAX_TEXT_BYTES, MAX_TREE_DEPTH, number_problem
from ioscore.results.model import PhaseResult, RunResult, Scores
from ioscore.results.parse_ini import parse_ini
from ioscore.results.parse_json import parse_result_json
from ioscore.results.parse_resulttxt import ResultTxt, parse_result_txt
from ioscore.results.parse_summary import Summary, parse_summary, parse_summary_text
from ioscore.results.rules import validate_message_only

RUN_MARKERS = ("result_summary.txt", "result.json")
_TIMESTAMP = re.compile(r"(\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d)")
_STAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


def find_runs(path: Path) -> list[Path]:
    """Run directories below `path` (itself included), sorted, never following symlinks."""
    path = Path(path)
    if not path.is_dir():
        raise ResultFormatError(path, "not a directory")
    runs: list[Path] = []
    base_depth = len(path.parts)
    for root, dirs, files in os.walk(path, followlinks=False):
        if dirs and len(Path(root).parts) - base_depth >= MAX_TREE_DEPTH:
            # os.walk recurses; refusing here also bounds its recursion and its work
            raise ResultFormatError(path, f"directories nested deeper than {MAX_TREE_DEPTH} levels")
        dirs[:] = sorted(d for d in dirs if not is_macos_metadata(d))
        if any(marker in files for marker in RUN_MARKERS):
            runs.append(Path(root))
    return sorted(runs)


def load_run(run_dir: Path) -> RunResult:
    """Parse one run directory into a RunResult; ResultFormatError names the bad file/line."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ResultFormatError(run_dir, "not a directory")
    json_file = run_dir / "result.json"
    if json_file.is_file():
        run = parse_result_json(json_file)
        run.run_dir = str(run_dir)
        run.config_files = _config_files(run_dir)
        attach_layout(run.phases.values(), run_dir)
        return run
    summary_file = run_dir / "result_summary.txt"
    if not summary_file.is_file():
        raise ResultFormatError(run_dir, "no result_summary.txt or result.json in this directory")
    summary = parse_summary(summary_file)
    run = _from_summary(summary, summary_file)
    run.run_dir = str(run_dir)
    txt_file = run_dir / "result.txt"
    for companion in (txt_file, run_dir / "config.ini", run_dir / "config-orig.ini"):
        if companion.exists() and not companion.is_file():
            raise ResultFormatError(companion, "not a regular file")
    if txt_file.is_file() and summary.format != "bash":
        _merge_result_txt(run, parse_result_txt(txt_file), txt_file)
    _attach_config(run, run_dir)
    if run.timestamp is None:
        match = _TIMESTAMP.search(str(run_dir))
        run.timestamp = match.group(1) if match else None
    return run


def load_summary_lines(text: str, source: str) -> RunResult:
    """A run from summary lines found in another file (the [RESULT]/[SCORE] lines of an
    io500.sh log, which kept every run of a bundle directory); dated by the file name."""
    run = _from_summary(parse_summary_text(text, source), Path(source))
    match = _TIMESTAMP.search(Path(source).name)
    run.timestamp = match.group(1) if match else None
    return run


def _config_files(run_dir: Path) -> list[str]:
    return sorted(
        str(p) for p in run_dir.glob("config*.ini") if p.is_file() and not is_macos_metadata(p.name)
    )


def _from_summary(summary: Summary, path: Path) -> RunResult:
    run = RunResult(
        source=str(path),
        format=summary.format,
        version=summary.version,
        mode=summary.mode,
        phases=dict(summary.phases),
        printed=summary.printed,
        printed_extended=summary.printed_extended,
        invalid_markers=list(summary.markers),
        files=[str(path)],
    )
    total_text = summary.score_text.get("total", "")
    run.extra["total_decimals"] = len(total_text.split(".", 1)[1]) if "." in total_text else 0
    run.extra["phase_order"] = list(summary.order)
    if summary.format == "bash" and summary.printed is not None:
        run.total_formula = _bash_total_formula(summary.printed)
    return run


def _bash_total_formula(printed: Scores) -> str:
    """SC17's script printed BW x MD; there is no version line, so tell by the numbers."""
    product = printed.bw * printed.md
    root = math.sqrt(product) if product > 0 else 0.0
    if abs(printed.total - product) <= 1e-3 * max(product, 1e-9) and abs(
        printed.total - root
    ) > 1e-3 * max(root, 1e-9):
        return "product"
    return "sqrt"


def _float(text: str | None, source: str, line: int | None, what: str) -> float | None:
    if text is None:
        return None
    value = text.split()[0] if text.split() else ""
    try:
        number = float(value)
    except ValueError:
        raise ResultFormatError(source, f"{what} is not a number: {text[:40]!r}", line) from None
    problem = number_problem(number)
    if problem:
        raise ResultFormatError(source, f"{what} {problem}: {text[:40]!r}", line)
    return number


def _merge_result_txt(run: RunResult, txt: ResultTxt, path: Path) -> None:
    source = str(path)
    run.files.append(source)
    head = txt.sections.get("run", {})
    if "version" in head:
        txt_version = head["version"]
        if run.version is None or run.version == "":
            run.version = txt_version
        elif txt_version != run.version:
            run.extra["version_result_txt"] = txt_version
    if run.mode is None and "mode" in head:
        run.mode = head["mode"]
    run.config_hash = head.get("config-hash") or None
    if "procs" in head:
        procs = _float(head["procs"], source, txt.lines.get(("run", "procs")), "procs")
        run.procs = int(procs) if procs is not None else None
    if "result-dir" in head:
        run.extra["result_dir"] = head["result-dir"]
        match = _TIMESTAMP.search(head["result-dir"])
        if match:
            run.timestamp = match.group(1)
    for section, line, text in txt.comments:
        if text.startswith("START "):
            run.start = _stamp(text[6:])
        elif text.startswith("END "):
            run.end = _stamp(text[4:])
        if "INVALID" in text and validate_message_only(section, text, run.version):
            run.extra.setdefault("result_txt_messages", []).append(
                f"[{section}] {text} (a message only in this benchmark version)"
            )
        elif "INVALID" in text:
            run.invalid_markers.append(f"{source}:{line}: [{section}] ; {text}")
            phase = run.phases.get(section)
            if phase is not None:
                phase.valid = False
                phase.invalid_reasons.append(f"result.txt line {line}: {text}")
        elif text.startswith("WARNING") or text.startswith("ERROR"):
            run.extra.setdefault("result_txt_messages", []).append(f"[{section}] {text}")
    for name in txt.order:
        options = txt.sections[name]
        if name in ("SCORE", "SCOREX"):
            continue
        phase = run.phases.get(name)
        if phase is None:
            if "score" in options:  # a phase result.txt scored but the summary lacks
                run.extra.setdefault("phases_only_in_result_txt", []).append(name)
            continue
        score_line = txt.lines.get((name, "score"))
        phase.score_txt = _float(options.get("score"), source, score_line, f"[{name}] score")
        for key, value in options.items():
            if key != "score":
                phase.extra[key] = value
    for name, attr in (("SCORE", "printed_txt"), ("SCOREX", "printed_txt_extended")):
        score_section = txt.sections.get(name)
        if not score_section:
            continue
        values: dict[str, float] = {}
        for key in ("MD", "BW", "SCORE"):
            key_line = txt.lines.get((name, key))
            number = _float(score_section.get(key), source, key_line, f"[{name}] {key}")
            if number is None:
                raise ResultFormatError(source, f"[{name}] lacks {key} (truncated?)", key_line)
            values[key] = number
        invalid = "INVALID" in score_section.get("SCORE", "")
        setattr(run, attr, Scores(values["BW"], values["MD"], values["SCORE"], not invalid))
        if name == "SCORE":
            run.score_hash = score_section.get("hash") or None
        else:
            run.score_hash_extended = score_section.get("hash") or None
    if run.start is None:
        run.start = _first_stamp(run.phases.values(), "t_start")


def _stamp(text: str) -> datetime | None:
    try:
        return datetime.strptime(text.strip(), _STAMP_FORMAT)
    except ValueError:
        return None


def _first_stamp(phases: Iterable[PhaseResult], key: str) -> datetime | None:
    stamps = [_stamp(str(p.extra[key])) for p in phases if key in p.extra]
    valid = [s for s in stamps if s is not None]
    return min(valid) if valid else None


def _attach_config(run: RunResult, run_dir: Path) -> None:
    run.config_files = _config_files(run_dir)
    generated = run_dir / "config.ini"
    original = run_dir / "config-orig.ini"
    if original.is_file():
        try:
            if original.stat().st_size > MAX_TEXT_BYTES:
                raise ResultFormatError(original, f"file too large (limit {MAX_TEXT_BYTES} bytes)")
            run.config_text = original.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ResultFormatError(original, f"cannot read file: {exc.strerror}") from None
    if generated.is_file():
        run.config = parse_ini(generated)  # bounded and strict UTF-8: read it once more below
        run.files.append(str(generated))
        text = generated.read_text(encoding="utf-8")
        # io500.sh copies the user's INI into the result dir; named config.ini it replaces the
        # generated file (then the config hash cannot be recomputed, BENCHMARK-RULES §5.4).
        if run.config_text is not None and text.strip() == run.config_text.strip():
            run.extra["config_overwritten"] = "config.ini is a copy of config-orig.ini"
        elif re.search(r"^[ \t]*[#;]", text, re.MULTILINE):  # not \s*: it spans lines
            run.extra["config_overwritten"] = "config.ini has comments: not the generated file"
        return
    # No generated config.ini: fall back to the user's INI (rules can still read options),
    # but never fail the run over a hand-written file.
    for name in [str(original), *run.config_files]:
        path = Path(name)
        if not path.is_file():
            continue
        try:
            run.config = parse_ini(path)
        except ResultFormatError as exc:
            run.extra.setdefault("config_errors", []).append(str(exc))
            continue
        run.extra["config_source"] = name
        return
