"""ioscore's own result.json (contract: docs/ARCHITECTURE.md, schema `ioscore-result/1`).

Parsed by the contract; always validated against the schema shipped as package data
(``ioscore/schemas/ioscore-result-1.schema.json``, a byte copy of the suite's
``suite/schema/``), so schema errors name the JSON path.
"""

from __future__ import annotations

import codecs
import itertools
import json
from array import array
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema

from ioscore.results import storable_json
from ioscore.results.errors import ResultFormatError, mapped, read_text, release
from ioscore.results.gc_pause import gc_paused
from ioscore.results.limits import (
    MAX_JSON_DEPTH,
    MAX_RESULT_JSON_BYTES,
    number_problem,
)
from ioscore.results.model import (
    QUANTILE_KEYS,
    RANK_FIELDS,
    CountRows,
    HostAggregate,
    PhaseResult,
    RankColumns,
    RankStat,
    RankSummary,
    RunResult,
    ScoreGroup,
    Scores,
)
from ioscore.results.rank_check import ranks_problem
from ioscore.results.storable_json import Table, Tables

SCHEMA_ID = "ioscore-result/1"
SCHEMA_FILE = "ioscore-result-1.schema.json"
_MAX_SCHEMA_ERRORS = 100


@cache
def result_schema() -> dict[str, Any]:
    """The result.json schema, shipped inside the package (``ioscore/schemas``).

    Package data, not a path into the repository: the service's image holds only
    ``runners/`` and ``webapp/``, and a result must be checked there too. A missing or
    broken copy is an installation defect and raises, never a silent skip.
    """
    text = resources.files("ioscore.schemas").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def schema_ids() -> tuple[str, ...]:
    """The ``schema`` values the shipped schema accepts (its const or enum): the full and the
    summary form of the suite's result.json may carry different ones."""
    declared = result_schema()["properties"]["schema"]
    return tuple(declared["enum"]) if "enum" in declared else (declared["const"],)


@cache
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(result_schema())


def _validate_schema(document: Any, source: str, tables: Tables | None = None) -> None:
    """Schema errors as ResultFormatError; `tables`: the columns of the rank tables, when
    the decoding's checks have them (storable_json.fast_loads)."""
    document = _without_bulk_arrays(document, source, tables or {}, model=False)[0]
    # The first errors are enough to explain the problem: a document with 600,000 wrong
    # items would otherwise build (and rank) 600,000 error objects.
    first_errors = itertools.islice(_validator().iter_errors(document), _MAX_SCHEMA_ERRORS)
    error = jsonschema.exceptions.best_match(first_errors)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ResultFormatError(source, f"schema violation at {where}: {error.message[:200]}")


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _count_rows(rows: list[Any], table: Table | None = None) -> bool:
    """Whether every row is a list of counts (integers >= 0); at C speed when all are ints
    (a 100,000-rank phase has 100,000 rows), from `table`'s facts when the decoding's
    checks have them."""
    if table is not None and table.kinds.get("") == {int} and table.lowest_int[""] >= 0:
        return True
    if not all(map(list.__instancecheck__, rows)):
        return False
    values = list(itertools.chain.from_iterable(rows))
    if not values or (set(map(type, values)) == {int} and min(values) >= 0):
        return True
    return all(_is_count(v) for v in values)


class _Bulk(NamedTuple):
    """A phase's per-rank arrays, checked by hand, in the model's form."""

    ranks: Sequence[RankStat]
    timeseries: Any  # the phase's time series, its arrays included


def _without_bulk_arrays(
    document: Any, source: str, tables: Tables, model: bool = True
) -> tuple[Any, list[_Bulk | None]]:
    """(the document as the schema pass sees it, each phase's ``_phase_bulk``; without
    `model`, the arrays are only checked)."""
    if not isinstance(document, dict) or not isinstance(document.get("phases"), list):
        return document, []
    strings: dict[str, str] | None = {} if model else None
    taken = [_phase_bulk(p, i, source, tables, strings) for i, p in enumerate(document["phases"])]
    return {**document, "phases": [phase for phase, _ in taken]}, [bulk for _, bulk in taken]


def _phase_bulk(
    phase: Any, index: int, source: str, tables: Tables, strings: dict[str, str] | None
) -> tuple[Any, _Bulk | None]:
    """(the phase with its per-rank arrays emptied, what they hold): the arrays checked here,
    the first violation raised as the schema pass would name it.

    ``ranks`` and the time-series count arrays hold nearly all of a large run's numbers
    (ranks x phases); jsonschema spends ~10 us on a rank object and ~60 us on a count array,
    the hand-written checks (rank_check, the counts loop) well under 1 us for the schema's
    own rules. The schema then validates the rest, which is small at any rank count.
    `strings`: the host names met so far, each kept once (``_rank_model``); None: the
    ranks are only checked (``_Bulk.ranks`` empty).
    """
    if not isinstance(phase, dict):
        return phase, None  # the schema reports the shape
    ranks, series = phase.get("ranks"), phase.get("timeseries")
    model: Sequence[RankStat] = []
    if isinstance(ranks, list):
        table = _table(tables, ranks)
        found = ranks_problem(ranks, table)
        if found is not None:
            rank, problem = found
            raise ResultFormatError(
                source, f"schema violation at phases/{index}/ranks/{rank}: rank object {problem}"
            )
        model = [] if strings is None else _rank_model(ranks, table, strings)
        phase = {**phase, "ranks": []}
    if isinstance(series, dict):
        aggregate, per_rank = series.get("aggregate"), series.get("per_rank")
        if isinstance(aggregate, list) and isinstance(per_rank, list):
            rows = _table(tables, per_rank)
            if not (_count_rows([aggregate]) and _count_rows(per_rank, rows)):
                raise ResultFormatError(
                    source,
                    f"schema violation at phases/{index}/timeseries: "
                    "aggregate and per_rank must hold counts (integers >= 0)",
                )
            phase = {**phase, "timeseries": {**series, "aggregate": [], "per_rank": []}}
            if strings is not None and rows is not None and len(set(map(len, per_rank))) == 1:
                # Counts vouched within 64 bits: 8 bytes each in one array, not a list a rank.
                series = {**series, "per_rank": CountRows(per_rank, rows.columns[""])}
    return phase, _Bulk(model, series)


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


def _table(tables: Tables, rows: list[Any]) -> Table | None:
    """`rows` taken apart by the decoding's checks, when they were."""
    found = tables.get(id(rows))
    return found if found is not None and found.rows is rows else None


def load_json_document(text: str, source: str, tables: Tables | None = None) -> Any:
    """JSON text -> document, refusing what cannot be stored or walked (storable_json)."""
    try:
        return storable_json.loads(text, MAX_JSON_DEPTH, tables)
    except json.JSONDecodeError as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except storable_json.UnstorableJSON as exc:
        raise ResultFormatError(source, f"invalid JSON: {exc}") from None


def parse_result_json(path: Path) -> RunResult:
    tables: Tables = {}
    with gc_paused():
        document, bulk = _decoded(path, tables)
        document = _result_document(document, str(path))
        return _run_from_document(document, str(path), tables, bulk)


_Taken = _Bulk | ResultFormatError | None  # a phase's _phase_bulk, or why it has none


def _decoded(path: Path, tables: Tables) -> tuple[Any, list[_Taken] | None]:
    """result.json -> (document, each phase's ``_phase_bulk`` when taken while decoding).

    The fast path maps the file (no copy of its bytes in the process's memory) and decodes
    it one phase at a time: each phase's ranks become the model's columns before the next
    is decoded, and the pages read so far go back to the page cache, so a 100,000-rank
    result needs ~1/4 of the memory it needs decoded whole (bench/scale_read.py). A file it
    cannot vouch for is read again, as ``read_text`` reads text files (its messages: NUL,
    not UTF-8), and decoded whole by the careful path.
    """
    source = str(path)
    with mapped(path, MAX_RESULT_JSON_BYTES) as data:
        taken: list[_Taken] = []
        strings: dict[str, str] = {}

        def take(phase: Any, index: int, phase_tables: Tables) -> Any:
            if any(isinstance(t, ResultFormatError) for t in taken):
                taken.append(None)  # raised at the first: the rest only has to be vouched
                return None
            try:
                slim, bulk = _phase_bulk(phase, index, source, phase_tables, strings)
            except ResultFormatError as exc:  # raised after the top-level checks, in order
                taken.append(exc)
                return None
            taken.append(bulk)
            return slim

        start = 3 if data[:3] == codecs.BOM_UTF8 else 0
        document = storable_json.fast_loads_by_item(
            data, start, MAX_JSON_DEPTH, "phases", take, lambda: release(data)
        )
        if document is not storable_json.UNSURE:
            return document, taken if isinstance(document, dict) else None
        del document
    text = read_text(path, max_bytes=MAX_RESULT_JSON_BYTES, max_line=None)  # may be one line
    return load_json_document(text, source, tables), None


def result_mode(path: Path) -> str | None:
    """The ``mode`` of the ioscore result.json at `path` (``"standard"``, ``"ior"``, ...),
    told from its ``schema`` and ``mode`` alone, without decoding the rest (a 100,000-rank
    full form is ~300 MB); None when unsure (unreadable, malformed, another schema): then
    only reading it whole tells what it is and what is wrong with it."""
    try:
        with mapped(path, MAX_RESULT_JSON_BYTES) as data:
            found = storable_json.fast_fields(data, ("schema", "mode"))
    except ResultFormatError:
        return None
    if found is storable_json.UNSURE or found.get("schema") not in schema_ids():
        return None
    mode = found.get("mode")
    return mode if isinstance(mode, str) else None


def load_result_document(text: str, source: str, tables: Tables | None = None) -> dict[str, Any]:
    """result.json text -> its top-level object, when it is an ioscore-result/1 document."""
    return _result_document(load_json_document(text, source, tables), source)


def _result_document(document: Any, source: str) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise ResultFormatError(source, "top level is not a JSON object")
    if document.get("schema") not in schema_ids():
        expected = " or ".join(repr(i) for i in schema_ids())
        raise ResultFormatError(
            source, f"unknown schema {document.get('schema')!r} (expected {expected})"
        )
    return document


def parse_result_json_text(text: str, source: str) -> RunResult:
    with gc_paused():
        return _parse_result_json_text(text, source)


def _parse_result_json_text(text: str, source: str) -> RunResult:
    tables: Tables = {}
    return _run_from_document(load_result_document(text, source, tables), source, tables)


def _run_from_document(
    document: dict[str, Any],
    source: str,
    tables: Tables | None = None,
    taken: list[_Taken] | None = None,
) -> RunResult:
    """A decoded result.json -> RunResult, after validating it. `tables`: see
    ``_validate_schema``; `taken`: the phases' ``_phase_bulk`` when the decoding took them
    (the document's phases then have their per-rank arrays emptied)."""
    bulks: Sequence[_Taken] = taken if taken is not None else ()
    if taken is None:
        document, bulks = _without_bulk_arrays(document, source, tables or {})
    for found in bulks:
        if isinstance(found, ResultFormatError):
            raise found
    _validate_schema(document, source)  # the rest: the per-rank arrays are empty now
    if document.get("finished") is False or document.get("scores") is None:
        # The suite rewrites result.json after every phase: this run stopped part-way.
        how = "aborted by an I/O error" if document.get("aborted") else "did not finish"
        raise ResultFormatError(source, f"truncated: the run {how} (no final scores)")
    scores = _need(document, "scores", dict, source)
    phases: dict[str, PhaseResult] = {}
    for index, raw in enumerate(_need(document, "phases", list, source)):
        bulk = bulks[index] if index < len(bulks) else None
        phase = phase_from_json(raw, index, source, bulk if isinstance(bulk, _Bulk) else None)
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
        extra={
            k: document.get(k)
            for k in ("nodes", "ppn0", "hosts", "valid", "rank_detail", "mpi_library")
            if k in document
        },
        timestamp=document.get("timestamp"),
    )


def phase_from_json(raw: Any, index: int, source: str, bulk: _Bulk | None = None) -> PhaseResult:
    """One entry of result.json's ``phases`` -> PhaseResult (also used for acceptance runs,
    whose result.json has no scores; see ioscore.acceptance.results). `bulk`: its per-rank
    arrays, when ``_phase_bulk`` took them out of `raw`."""
    if not isinstance(raw, dict):
        raise ResultFormatError(source, f"phases[{index}] is not an object")
    name = _need(raw, "name", str, f"{source} phases[{index}]")
    where = f"{source} phases[{index}] ({name})"
    group = str(raw.get("group", "none"))
    if group not in ("bw", "md", "none"):
        raise ResultFormatError(where, f"unknown group {group!r}")
    if bulk is None:
        bulk = _Bulk(_rank_stats(raw.get("ranks") or []), raw.get("timeseries"))
    extra = dict(raw.get("extra") or {})
    for key in (
        "items",
        "bytes",
        "verify_errors",
        "data_ranks",
        "io_errors",
        "stonewall",
        "t_start",
        "t_end",
        "ran",
        "latency",
    ):
        if raw.get(key) is not None:
            extra[key] = raw[key]
    return PhaseResult(
        rank_summary=rank_summary_from_json(raw.get("rank_summary"), where),
        name=name,
        value=_phase_number(raw, "score", where),
        unit=str(raw.get("unit", "GiB/s" if name.startswith("i") else "kIOPS")),
        time=_phase_number(raw, "time", where, optional=True),
        group=ScoreGroup(group),
        valid=bool(raw.get("valid", True)),
        invalid_reasons=[str(r) for r in raw.get("invalid_reasons") or []],
        ranks=bulk.ranks,
        timeseries=bulk.timeseries,
        extra=extra,
    )


_RANK_FIELDS = itemgetter(*RANK_FIELDS)  # a rank object's values in RankStat's field order


def _rank_model(raw: list[Any], table: Table | None, strings: dict[str, str]) -> Sequence[RankStat]:
    """A validated phase's rank objects -> RankColumns when the decoding's checks took them
    apart as a table (same keys in every object, int ranks), else ``_rank_stats``."""
    if table is None or table.kinds["rank"] != {int}:
        return _rank_stats(raw)
    absent = [None] * len(raw)
    return RankColumns(
        [_packed(table, name, strings) if name in table.columns else absent for name in RANK_FIELDS]
    )


def _packed(table: Table, name: str, strings: dict[str, str]) -> Sequence[Any]:
    """A rank column in the least memory that gives back the same values: 8 bytes a number
    when all are floats or all ints (vouched within 64 bits), not a 24-32 byte object; each
    string (host name) one object for all ranks and phases, not one per rank and phase."""
    column, kinds = table.columns[name], table.kinds[name]
    if kinds == {float}:
        return array("d", column)
    if kinds == {int}:
        return array("q", column)
    if kinds == {str}:
        return list(map(strings.setdefault, column, column))
    return column


def _rank_stats(raw: list[Any]) -> list[RankStat]:
    """A phase's rank objects -> RankStats; positionally when every object has every field
    and an int rank (the suite's form, and the faster path), else each
    field looked up with its default."""
    try:
        stats = [RankStat(*_RANK_FIELDS(r)) for r in raw]
        if all(type(stat.rank) is int for stat in stats):
            return stats
    except (KeyError, TypeError):
        pass
    return [
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
        for i, r in enumerate(raw)
        if isinstance(r, dict)
    ]


def _numbers(raw: Any, where: str, count: bool = False) -> list[Any]:
    kinds = (int,) if count else (int, float)
    if not isinstance(raw, list) or not all(
        isinstance(v, kinds) and not isinstance(v, bool) for v in raw
    ):
        raise ResultFormatError(where, "expected an array of numbers")
    return raw


def rank_summary_from_json(raw: Any, where: str) -> RankSummary | None:
    """A phase's ``rank_summary`` (summary form) -> RankSummary; None when absent.

    The schema has already checked its shape; this builds the typed model and refuses the
    inconsistencies a schema cannot express (histogram edges vs counts, named ranks).
    """
    if raw is None:
        return None
    where = f"{where} rank_summary"
    if not isinstance(raw, dict):
        raise ResultFormatError(where, "is not an object")
    quantiles = {}
    for field, values in (raw.get("quantiles") or {}).items():
        if not isinstance(values, dict) or set(values) != set(QUANTILE_KEYS):
            raise ResultFormatError(
                where, f"quantiles of {field!r} need {', '.join(QUANTILE_KEYS)}"
            )
        quantiles[str(field)] = {k: float(_numbers([values[k]], where)[0]) for k in QUANTILE_KEYS}
    histogram = (raw.get("histogram") or {}).get("rate") or {"edges": [], "counts": []}
    edges = [float(v) for v in _numbers(histogram.get("edges"), f"{where} histogram")]
    counts = _numbers(histogram.get("counts"), f"{where} histogram", count=True)
    if counts and len(edges) != len(counts) + 1:
        raise ResultFormatError(where, "histogram needs one edge more than counts")
    hosts = []
    for host in raw.get("hosts") or []:
        if not isinstance(host, dict) or not isinstance(host.get("host"), str):
            raise ResultFormatError(where, "hosts entries need a host name")
        numbers = _numbers([host.get(k) for k in _HOST_NUMBERS], f"{where} hosts")
        hosts.append(HostAggregate(host["host"], *numbers))
    count = _need(raw, "count", int, where)
    return RankSummary(
        count=count,
        quantiles=quantiles,
        histogram_edges=edges,
        histogram_counts=counts,
        slowest=_numbers(raw.get("slowest") or [], f"{where} slowest", count=True),
        fastest=_numbers(raw.get("fastest") or [], f"{where} fastest", count=True),
        hosts=hosts,
        quantile_rel_error=float(raw.get("quantile_rel_error") or 0.0),
        full_file=raw["full_file"] if isinstance(raw.get("full_file"), str) else None,
    )


_HOST_NUMBERS = (
    "ranks",
    "items",
    "bytes",
    "rate_sum",
    "rate_min",
    "rate_max",
    "start_min",
    "end_max",
)
