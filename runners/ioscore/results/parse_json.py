"""ioscore's own result.json (contract: docs/ARCHITECTURE.md, schema `ioscore-result/1`).

Parsed by the contract; validated against suite/schema/ioscore-result-1.schema.json when that
file can be found (next to the installed source tree), so schema errors name the JSON path.
"""

from __future__ import annotations

import itertools
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ioscore.results import storable_json
from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.limits import (
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    number_problem,
)
from ioscore.results.model import PhaseResult, RankStat, RunResult, ScoreGroup, Scores

SCHEMA_ID = "ioscore-result/1"
_SCHEMA_FILE = "ioscore-result-1.schema.json"
_MAX_SCHEMA_ERRORS = 100


def schema_path() -> Path | None:
    """The schema in the repository (runners/ioscore/results -> repo/suite/schema)."""
    candidate = Path(__file__).resolve().parents[3] / "suite" / "schema" / _SCHEMA_FILE
    return candidate if candidate.is_file() else None


def _validate_schema(document: Any, source: str) -> None:
    path = schema_path()
    if path is None:
        return
    import jsonschema

    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # a broken schema file is the suite's problem, not the result's
    validator = jsonschema.Draft202012Validator(schema)
    document = _without_count_series(document, source)
    # The first errors are enough to explain the problem: a document with 600,000 wrong
    # items would otherwise build (and rank) 600,000 error objects.
    first_errors = itertools.islice(validator.iter_errors(document), _MAX_SCHEMA_ERRORS)
    error = jsonschema.exceptions.best_match(first_errors)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ResultFormatError(source, f"schema violation at {where}: {error.message[:200]}")


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _without_count_series(document: Any, source: str) -> Any:
    """The document with each phase's time-series count arrays checked here and emptied.

    These arrays hold most of a large run's numbers (ranks x buckets); jsonschema spends
    ~60 us on each, this loop well under 1 us, for the schema's own rule: counts >= 0.
    """
    if not isinstance(document, dict) or not isinstance(document.get("phases"), list):
        return document
    phases = []
    for index, phase in enumerate(document["phases"]):
        series = phase.get("timeseries") if isinstance(phase, dict) else None
        if not isinstance(series, dict):
            phases.append(phase)
            continue
        aggregate, per_rank = series.get("aggregate"), series.get("per_rank")
        if not isinstance(aggregate, list) or not isinstance(per_rank, list):
            phases.append(phase)  # the schema reports the shape
            continue
        rows = [aggregate, *per_rank]
        if not all(isinstance(row, list) and all(_is_count(v) for v in row) for row in rows):
            raise ResultFormatError(
                source,
                f"schema violation at phases/{index}/timeseries: "
                "aggregate and per_rank must hold counts (integers >= 0)",
            )
        phases.append({**phase, "timeseries": {**series, "aggregate": [], "per_rank": []}})
    return {**document, "phases": phases}


def _phase_number(raw: dict[str, Any], key: str, where: str, optional: bool = False) -> Any:
    """A finite, non-negative phase or score number; the message names the phase."""
    if optional and raw.get(key) is None:
        return None
    value = _need(raw, key, (int, float), where)
    problem = number_problem(float(value))
    if problem:
        raise ResultFormatError(where, f"{key} {problem}: {value!r}")
    return float(value)


def _need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], source: str) -> Any:
    if key not in obj:
        raise ResultFormatError(source, f"missing key {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ResultFormatError(source, f"key {key!r} has the wrong type ({type(value).__name__})")
    return value


def _datetime(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def load_json_document(text: str, source: str) -> Any:
    """JSON text -> document, refusing what cannot be stored or walked (storable_json)."""
    try:
        return storable_json.loads(text, MAX_JSON_DEPTH)
    except json.JSONDecodeError as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except storable_json.UnstorableJSON as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc}") from None


def parse_result_json(path: Path) -> RunResult:
    text = read_text(path, max_bytes=MAX_JSON_BYTES, max_line=None)  # JSON may be one line
    return parse_result_json_text(text, str(path))


def load_result_document(text: str, source: str) -> dict[str, Any]:
    """result.json text -> its top-level object, when it is an ioscore-result/1 document."""
    document = load_json_document(text, source)
    if not isinstance(document, dict):
        raise ResultFormatError(source, "top level is not a JSON object")
    if document.get("schema") != SCHEMA_ID:
        raise ResultFormatError(
            source, f"unknown schema {document.get('schema')!r} (expected {SCHEMA_ID!r})"
        )
    return document


def parse_result_json_text(text: str, source: str) -> RunResult:
    document = load_result_document(text, source)
    _validate_schema(document, source)
    if document.get("finished") is False or document.get("scores") is None:
        # The suite rewrites result.json after every phase: this run stopped part-way.
        how = "aborted by an I/O error" if document.get("aborted") else "did not finish"
        raise ResultFormatError(source, f"truncated: the run {how} (no final scores)")
    scores = _need(document, "scores", dict, source)
    phases: dict[str, PhaseResult] = {}
    for index, raw in enumerate(_need(document, "phases", list, source)):
        phase = phase_from_json(raw, index, source)
        phases[phase.name] = phase
    config_raw = document.get("config") or {}
    # null = unset; config.ini prints unset options empty, and so does this model.
    config = {
        str(section): {str(k): "" if v is None else str(v) for k, v in options.items()}
        for section, options in config_raw.items()
        if isinstance(options, dict)
    }
    valid = bool(document.get("valid", True))
    markers = [f"{source}: {r}" for r in document.get("invalid_reasons") or []]
    for phase in phases.values():
        markers.extend(f"{source} [{phase.name}]: {r}" for r in phase.invalid_reasons)
    printed = Scores(
        bw=_phase_number(scores, "bw", f"{source} scores"),
        md=_phase_number(scores, "md", f"{source} scores"),
        total=_phase_number(scores, "total", f"{source} scores"),
        valid=bool(scores.get("valid", valid)),
    )
    return RunResult(
        source=source,
        format="ioscore-json",
        version=str(document.get("version", "")),
        mode=document.get("mode"),
        phases=phases,
        printed=printed,
        invalid_markers=markers,
        config=config,
        config_hash=document.get("config_hash"),
        score_hash=document.get("score_hash"),
        procs=document.get("procs") if isinstance(document.get("procs"), int) else None,
        start=_datetime(document.get("start")),
        end=_datetime(document.get("end")),
        files=[source],
        extra={k: document.get(k) for k in ("nodes", "ppn0", "hosts", "valid") if k in document},
        timestamp=document.get("timestamp"),
    )


def phase_from_json(raw: Any, index: int, source: str) -> PhaseResult:
    """One entry of result.json's ``phases`` -> PhaseResult (also used for acceptance runs,
    whose result.json has no scores; see ioscore.acceptance.results)."""
    if not isinstance(raw, dict):
        raise ResultFormatError(source, f"phases[{index}] is not an object")
    name = _need(raw, "name", str, f"{source} phases[{index}]")
    where = f"{source} phases[{index}] ({name})"
    group = str(raw.get("group", "none"))
    if group not in ("bw", "md", "none"):
        raise ResultFormatError(where, f"unknown group {group!r}")
    ranks = [
        RankStat(
            rank=int(r.get("rank", i)),
            host=r.get("host"),
            start=r.get("start"),
            end=r.get("end"),
            items=r.get("items"),
            rate=r.get("rate"),
            first_done=r.get("first_done"),
            bytes=r.get("bytes"),
            verify_errors=r.get("verify_errors"),
        )
        for i, r in enumerate(raw.get("ranks") or [])
        if isinstance(r, dict)
    ]
    extra = dict(raw.get("extra") or {})
    for key in (
        "items",
        "bytes",
        "verify_errors",
        "stonewall",
        "t_start",
        "t_end",
        "ran",
        "latency",
    ):
        if raw.get(key) is not None:
            extra[key] = raw[key]
    return PhaseResult(
        name=name,
        value=_phase_number(raw, "score", where),
        unit=str(raw.get("unit", "GiB/s" if name.startswith("i") else "kIOPS")),
        time=_phase_number(raw, "time", where, optional=True),
        group=ScoreGroup(group),
        valid=bool(raw.get("valid", True)),
        invalid_reasons=[str(r) for r in raw.get("invalid_reasons") or []],
        ranks=ranks,
        timeseries=raw.get("timeseries"),
        extra=extra,
    )
