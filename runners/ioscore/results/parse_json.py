"""ioscore's own result.json (contract: docs/ARCHITECTURE.md, schema `ioscore-result/1`).

Parsed by the contract; validated against suite/schema/ioscore-result-1.schema.json when that
file can be found (next to the installed source tree), so schema errors name the JSON path.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.model import PhaseResult, RankStat, RunResult, ScoreGroup, Scores

SCHEMA_ID = "ioscore-result/1"
_SCHEMA_FILE = "ioscore-result-1.schema.json"


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
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ResultFormatError(source, f"schema violation at {where}: {error.message[:200]}")


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


def parse_result_json(path: Path) -> RunResult:
    source = str(path)
    text = read_text(path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
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
            value=float(_need(raw, "score", (int, float), where)),
            unit=str(raw.get("unit", "GiB/s" if name.startswith("i") else "kIOPS")),
            time=float(raw["time"]) if isinstance(raw.get("time"), (int, float)) else None,
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
        bw=float(_need(scores, "bw", (int, float), source)),
        md=float(_need(scores, "md", (int, float), source)),
        total=float(_need(scores, "total", (int, float), source)),
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
