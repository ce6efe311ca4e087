"""The typed result model shared by the CLI and the service.

Every parser (bash-era summaries, the C application's result_summary.txt / result.txt,
ioscore's result.json) produces a ``RunResult``; scoring, the rule checks, the CLI and the
Django service only ever see this model, so the verifier cannot drift from the producer.
"""

from __future__ import annotations

import enum
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from itertools import chain
from typing import Any, overload


class ScoreGroup(str, enum.Enum):  # noqa: UP042 (str mix-in kept: contract)
    NONE = "none"
    BW = "bw"  # GiB/s
    MD = "md"  # kIOPS


class Severity(str, enum.Enum):  # noqa: UP042 (str mix-in kept: contract)
    INVALID = "invalid"  # blocks a submission
    WARNING = "warning"  # needs a human look
    INFO = "info"


# The 12 scored phases in execution order (BENCHMARK-RULES §1.1).
BW_PHASES = ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")
MD_PHASES = (
    "mdtest-easy-write",
    "mdtest-hard-write",
    "find",
    "mdtest-easy-stat",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
)
SCORED_PHASES = (
    "ior-easy-write",
    "mdtest-easy-write",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
)
WRITE_PHASES = ("ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write")


@dataclass
class RankStat:
    """One rank's numbers for one phase (only runs that carry them: ioscore result.json, CSVs)."""

    rank: int
    host: str | None = None
    start: float | None = None  # seconds since phase start
    end: float | None = None
    items: int | None = None  # operations (MD) or bytes (BW)
    rate: float | None = None  # items/s
    # Added for `ioscore report` (additive): result.json's per-rank fields.
    first_done: float | None = None  # end of the main loop (before wear-out, sync, close)
    bytes: int | None = None
    verify_errors: int | None = None


RANK_FIELDS = tuple(f.name for f in fields(RankStat))


class RankColumns(Sequence[RankStat]):
    """A phase's ranks as one sequence per RankStat field (``RANK_FIELDS`` order: a list, or
    an ``array`` of the same numbers); a RankStat is made only when one is asked for.

    result.json's full form at 100,000 ranks has 1.2 million rank objects: building a
    RankStat of each cost ~1.2 s and ~200 MB; the columns come from the reader's checks
    anyway and the straggler analysis computes on them (``column``).
    """

    __slots__ = ("_columns",)

    def __init__(self, columns: Sequence[Sequence[Any]]) -> None:
        if len(columns) != len(RANK_FIELDS) or len(set(map(len, columns))) > 1:
            raise ValueError("RankColumns needs one column per RankStat field, of one length")
        self._columns = tuple(columns)

    def column(self, name: str) -> Sequence[Any]:
        """The values of one RankStat field, in rank order (not to be modified)."""
        return self._columns[RANK_FIELDS.index(name)]

    def __len__(self) -> int:
        return len(self._columns[0])

    @overload
    def __getitem__(self, index: int) -> RankStat: ...

    @overload
    def __getitem__(self, index: slice) -> list[RankStat]: ...

    def __getitem__(self, index: int | slice) -> RankStat | list[RankStat]:
        if isinstance(index, slice):
            return list(map(RankStat, *(column[index] for column in self._columns)))
        return RankStat(*(column[index] for column in self._columns))

    def __iter__(self) -> Iterator[RankStat]:
        return map(RankStat, *self._columns)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RankColumns):  # a list equals no array: compared as lists
            return len(self) == len(other) and all(
                mine == theirs or list(mine) == list(theirs)
                for mine, theirs in zip(self._columns, other._columns, strict=True)
            )
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a list

    def __repr__(self) -> str:
        return f"RankColumns({len(self)} ranks)"


class CountRows(Sequence[list[int]]):
    """A phase's per-rank time series (``timeseries["per_rank"]``: a row of counts per
    rank, every row as long) in one array of 8-byte ints; a row (a list) is made only when
    one is asked for.

    The full form at 100,000 ranks has 1.2 million rows: ~160 MB as lists of ints, ~80 MB
    here; the rows' values come from the reader's checks anyway (``values``).
    """

    __slots__ = ("_count", "_values", "_width")

    def __init__(self, rows: Sequence[Sequence[int]], values: Iterable[int] | None = None) -> None:
        """`values`: the rows' values in order, when the caller has them."""
        widths = set(map(len, rows))
        if len(widths) > 1:
            raise ValueError("CountRows needs rows of one length")
        self._count, self._width = len(rows), widths.pop() if widths else 0
        self._values = array("q", chain.from_iterable(rows) if values is None else values)
        if len(self._values) != self._count * self._width:
            raise ValueError("CountRows needs the values of its rows")

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> list[int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[int]]: ...

    def __getitem__(self, index: int | slice) -> list[int] | list[list[int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("CountRows index out of range")
        start = index * self._width
        return self._values[start : start + self._width].tolist()

    def __iter__(self) -> Iterator[list[int]]:
        return map(self.__getitem__, range(self._count))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CountRows):
            return (self._count, self._width, self._values) == (
                other._count,
                other._width,
                other._values,
            )
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a list

    def __repr__(self) -> str:
        return f"CountRows({self._count} rows of {self._width})"


QUANTILE_KEYS = ("p0", "p1", "p5", "p25", "p50", "p75", "p95", "p99", "p100")


@dataclass
class HostAggregate:
    """One host's ranks of one phase, summed (result.json's summary form)."""

    host: str
    ranks: int
    items: float
    bytes: float
    rate_sum: float  # sum of the suite's per-rank rates
    rate_min: float
    rate_max: float
    start_min: float
    end_max: float


@dataclass
class RankSummary:
    """A phase's per-rank data above the suite's rank-detail threshold: distributions instead of
    one record per rank. ``PhaseResult.ranks`` then holds only the named extreme ranks."""

    count: int  # ranks of the phase
    quantiles: dict[str, dict[str, float]]  # field (rate, start, first_done, end) -> p0..p100
    histogram_edges: list[float]  # rate histogram: len(counts) + 1 edges
    histogram_counts: list[int]
    slowest: list[int]  # rank numbers, slowest first
    fastest: list[int]  # rank numbers, fastest first
    hosts: list[HostAggregate]
    quantile_rel_error: float = 0.0  # bound of the quantiles' relative error (0: exact)
    full_file: str | None = None  # the phase's every-rank file in the result directory

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> RankSummary:
        """Back from ``dataclasses.asdict`` (how the service stores it with a phase)."""
        fields = dict(data)
        fields["hosts"] = [HostAggregate(**host) for host in fields.get("hosts", [])]
        return cls(**fields)


@dataclass
class PhaseResult:
    name: str  # canonical dashed name, e.g. "ior-easy-write"
    value: float  # in `unit`
    unit: str  # "GiB/s" or "kIOPS" (normalised; legacy "GB/s" labels mean GiB/s)
    time: float | None = None  # phase wall time in seconds as printed
    group: ScoreGroup = ScoreGroup.NONE
    valid: bool = True  # False when marked [INVALID] / RESULT-invalid
    invalid_reasons: list[str] = field(default_factory=list)
    score_txt: float | None = None  # the `score =` value in result.txt, when present
    ranks: Sequence[RankStat] = field(default_factory=list)  # a list or RankColumns
    timeseries: dict[str, Any] | None = None  # result.json only; per_rank: list or CountRows
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. find found/scanned
    decimals: int | None = None  # decimals of `value` as printed (3 bash, 6 C app)
    # Summary form: set when the file summarised this phase's ranks.
    rank_summary: RankSummary | None = None


@dataclass
class Scores:
    bw: float  # GiB/s
    md: float  # kIOPS
    total: float
    valid: bool = True


@dataclass
class RunResult:
    """One benchmark run, whatever file format it came from."""

    source: str  # path of the primary file, for messages
    format: str  # "bash" | "c-app-2020" | "c-app" | "ioscore-json"
    version: str | None  # e.g. "io500-sc25_v1-3-g..."; None for the bash era
    mode: str | None  # "standard" | "extended" | None
    phases: dict[str, PhaseResult]
    printed: Scores | None  # the [SCORE] line as printed
    printed_extended: Scores | None = None  # [SCOREX]
    invalid_markers: list[str] = field(default_factory=list)  # every marker line seen
    config: dict[str, dict[str, str]] = field(default_factory=dict)  # section -> key -> value
    config_text: str | None = None  # config-orig.ini verbatim, when present
    config_hash: str | None = None  # as printed in result.txt
    score_hash: str | None = None  # as printed in result.txt
    procs: int | None = None
    start: datetime | None = None
    end: datetime | None = None
    files: list[str] = field(default_factory=list)  # the files the run was read from
    extra: dict[str, Any] = field(default_factory=dict)
    # Added by the results library (additive):
    printed_txt: Scores | None = None  # result.txt [SCORE] (MD/BW/SCORE), when present
    printed_txt_extended: Scores | None = None  # result.txt [SCOREX]
    score_hash_extended: str | None = None  # result.txt [SCOREX] hash
    run_dir: str | None = None  # the directory the run was read from
    timestamp: str | None = None  # the run's "%Y.%m.%d-%H.%M.%S" id, when known
    total_formula: str = "sqrt"  # "sqrt" (sqrt(BW*MD)) or "product" (SC17's BW*MD)
    config_files: list[str] = field(default_factory=list)  # config*.ini files next to the run


@dataclass
class Issue:
    """What a rule check found; rule checks are pure functions returning lists of these."""

    rule: str  # stable id, e.g. "write-phase-min-runtime"
    severity: Severity
    message: str
    expected: Any = None
    actual: Any = None
    phase: str | None = None
