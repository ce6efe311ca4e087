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

from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.limits import (
    INT64_MAX,
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    number_problem,
    text_problem,
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


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if number_problem(value, negative_ok=True):
        raise ValueError(f"number {text[:40]} is beyond the double-precision range")
    return value


def _int64(text: str) -> int:
    if len(text) > 20:  # before int(): no quadratic conversion of a huge literal
        raise ValueError(f"integer {text[:40]}... is beyond the 64-bit range")
    value = int(text)
    if len(text) >= 19 and abs(value) > INT64_MAX:
        raise ValueError(f"integer {text} is beyond the 64-bit range")
    return value


def load_json_document(text: str, source: str) -> Any:
    """JSON text -> document, refusing what cannot be stored or walked (limits module).

    NaN/Infinity, numbers that overflow a double, integers beyond 64 bits, nesting deeper
    than MAX_JSON_DEPTH, NUL characters and lone surrogates are refused with a message.
    """
    try:
        document = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int64
        )
    except json.JSONDecodeError as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except ValueError as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise ResultFormatError(
            source, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
        ) from None
    _check_tree(document, source)
    return document


def _check_tree(document: Any, source: str) -> None:
    """Depth and string checks over the whole document, iteratively (no recursion)."""
    # (node, depth, path of its container, its key there): paths are only built when needed
    stack: list[tuple[Any, int, str, Any]] = [(document, 1, "", None)]
    while stack:
        node, depth, parent, key = stack.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem:
                raise ResultFormatError(source, f"string at {_path(parent, key)} {problem}")
            continue
        if not isinstance(node, (dict, list)):
            continue
        where = _path(parent, key)
        if depth > MAX_JSON_DEPTH:
            raise ResultFormatError(source, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, list):
            stack.extend((value, depth + 1, where, i) for i, value in enumerate(node))
            continue
        for name, value in node.items():
            problem = text_problem(name)
            if problem:
                raise ResultFormatError(source, f"a key in {where} {problem}")
            stack.append((value, depth + 1, where, name))


def _path(parent: str, key: Any) -> str:
    if key is None:
        return "(top level)"
    base = "" if parent == "(top level)" else parent
    return f"{base}/{key}"[:200]


def parse_result_json(path: Path) -> RunResult:
    text = read_text(path, max_bytes=MAX_JSON_BYTES, max_line=None)  # JSON may be one line
    return parse_result_json_text(text, str(path))


def parse_result_json_text(text: str, source: str) -> RunResult:
    document = load_json_document(text, source)
    if not isinstance(document, dict):
        raise ResultFormatError(source, "top level is not a JSON object")
    if document.get("schema") != SCHEMA_ID:
        raise ResultFormatError(
            source, f"unknown schema {document.get('schema')!r} (expected {SCHEMA_ID!r})"
        )
    _validate_schema(document, source)
    if document.get("finished") is False or document.get("scores") is None:
        # The suite rewrites result.json after every phase: this run stopped part-way.
        how = "aborted by an I/O error" if document.get("aborted") else "did not finish"
        raise ResultFormatError(source, f"truncated: the run {how} (no final scores)")
    scores = _need(document, "scores", dict, source)
    phases: dict[str, PhaseResult] = {}
    for index, raw in enumerate(_need(document, "phases", list, source)):
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
        phases[name] = PhaseResult(
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
