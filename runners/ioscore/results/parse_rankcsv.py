"""Per-rank CSVs of the IO500 C app (``<phase>.csv`` beside result.txt) as ``RankStat`` rows.

* IOR (``saveRankPerformanceDetailsCSV``): ``access,rank,runtime-with-openclose,runtime,
  throughput-withopenclose,throughput``, one row per rank (and iteration; the first is kept).
  end = runtime with open/close (s), rate = throughput (bytes/s).
* mdtest (``-Y`` per-rank summary): ``rank,items,rate-<op>,time-<op>,...``; an ``all`` row,
  then one row per rank holding only the columns of the phase's operation (File creation,
  stat, read or removal). end = time (s), rate = operations/s.
* find writes no per-rank times and is left out.
* ioscore-suite's every-rank file of the summary form (``--rank-detail-full``,
  result.json's ``rank_detail.full_file``, e.g. ``ranks-<phase>.csv.gz``): ``rank,host,start,
  first_done,end,items,bytes,rate,verify_errors,io_error``, gzip-compressed when named .gz;
  read by ``suite_rank_file`` with the same bounds (decompressed bytes included).

Files are read only up to ``MAX_CSV_BYTES``; anything malformed leaves the phase without
per-rank data (the CSV is extra information, never a reason to reject a run). Amounts
(bytes, items) are not stored: they are rate x time, and the archive holds ~a million ranks.
Above the rank-detail threshold (``rank_summary.RANK_DETAIL_THRESHOLD``, the suite's default)
a phase gets the summary form the suite writes (``phase_ranks_from_csv``): Aurora's 62,400
ranks become 32 named ranks and their distributions, with no host (the CSVs name none).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

from ioscore.results.model import RankStat, RankSummary, RunResult
from ioscore.results.rank_summary import RANK_DETAIL_THRESHOLD, bounded_ranks

MAX_CSV_BYTES = 64 * 1024 * 1024
MAX_RANKS = 1_000_000
MDTEST_OPERATION = {
    "mdtest-easy-write": "File creation",
    "mdtest-hard-write": "File creation",
    "mdtest-easy-stat": "File stat",
    "mdtest-hard-stat": "File stat",
    "mdtest-hard-read": "File read",
    "mdtest-easy-delete": "File removal",
    "mdtest-hard-delete": "File removal",
}


def finite_number(text: str | None) -> float | None:
    """``text`` as a finite float, None when it is not one (empty, "nan", "inf", words)."""
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _lines(path: Path) -> list[str] | None:
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace").splitlines()[: MAX_RANKS + 2]
    except OSError:
        return None


def _header(lines: list[str] | None) -> list[str]:
    return [cell.strip() for cell in lines[0].split(",")] if lines else []


def ior_ranks(path: Path) -> list[dict[str, float | int]]:
    lines = _lines(path)
    header = _header(lines)
    if header[:2] != ["access", "rank"] or "throughput" not in header or lines is None:
        return []
    rank_at, end_at = header.index("rank"), header.index("runtime-with-openclose")
    rate_at = header.index("throughput")
    ranks: dict[int, dict[str, float | int]] = {}
    for line in lines[1:]:
        cells = line.split(",")  # numbers and fixed names only: no quoting in these files
        if len(cells) < len(header) or not cells[rank_at].strip().isdigit():
            continue
        rank = int(cells[rank_at])
        end, rate = finite_number(cells[end_at]), finite_number(cells[rate_at])
        if rank in ranks or end is None:
            continue
        ranks[rank] = {"rank": rank, "start": 0.0, "end": end}
        if rate is not None:
            ranks[rank]["rate"] = rate
    return [ranks[r] for r in sorted(ranks)]


def mdtest_ranks(path: Path, operation: str) -> list[dict[str, float | int]]:
    lines = _lines(path)
    header = _header(lines)
    if header[:2] != ["rank", "items"] or lines is None:
        return []
    try:
        rate_at, time_at = header.index(f"rate-{operation}"), header.index(f"time-{operation}")
    except ValueError:
        return []
    ranks = []
    for line in lines[1:]:
        cells = line.split(",")
        if len(cells) <= time_at or not cells[0].strip().isdigit():
            continue
        seconds = finite_number(cells[time_at])
        if seconds is None:
            continue
        rank: dict[str, float | int] = {"rank": int(cells[0]), "start": 0.0, "end": seconds}
        rate = finite_number(cells[rate_at])
        if rate is not None:
            rank["rate"] = rate
        ranks.append(rank)
    return sorted(ranks, key=lambda r: r["rank"])


def rank_csv(run_dir: Path, phase: str) -> list[dict[str, float | int]]:
    """The per-rank rows of one phase from ``<run_dir>/<phase>.csv`` as ``RankStat`` fields
    (only those the file carries); [] when there are none."""
    path = Path(run_dir) / f"{phase}.csv"
    if not path.is_file():
        return []
    if phase.startswith("ior-"):
        return ior_ranks(path)
    if phase in MDTEST_OPERATION:
        return mdtest_ranks(path, MDTEST_OPERATION[phase])
    return []


def phase_ranks_from_csv(
    run_dir: Path, phase: str, threshold: int = RANK_DETAIL_THRESHOLD
) -> tuple[list[RankStat], RankSummary | None]:
    """One phase's ranks from its CSV as the suite would keep them: every rank up to
    `threshold`, above it the named slowest and fastest plus the summary of all of them."""
    ranks = [RankStat(**row) for row in rank_csv(run_dir, phase)]  # type: ignore[arg-type]
    return bounded_ranks(ranks, threshold)


def attach_rank_csvs(run: RunResult, run_dir: Path) -> list[str]:
    """Fill ``phase.ranks`` (and above the threshold ``phase.rank_summary``) from the CSVs in
    ``run_dir`` (phases that have no ranks yet); returns the phases that got per-rank data."""
    filled = []
    for name, phase in run.phases.items():
        if not phase.ranks:
            phase.ranks, phase.rank_summary = phase_ranks_from_csv(run_dir, name)
            if phase.ranks:
                filled.append(name)
    return filled


SUITE_RANK_COLUMNS = (
    "rank",
    "host",
    "start",
    "first_done",
    "end",
    "items",
    "bytes",
    "rate",
    "verify_errors",
    "io_error",
)


def _bounded_lines(path: Path) -> list[str] | None:
    """The lines of a (possibly gzip-compressed) file, None when it (decompressed) exceeds
    MAX_CSV_BYTES or cannot be read: a small .gz of zeros cannot blow up memory."""
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as handle:
            data = handle.read(MAX_CSV_BYTES + 1)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if len(data) > MAX_CSV_BYTES:
        return None
    return data.decode("utf-8", errors="replace").splitlines()[: MAX_RANKS + 1]


def suite_rank_file(path: Path) -> list[RankStat]:
    """Every rank of one phase from the suite's per-rank file (see the module docstring);
    [] when it is absent, too large or not in that format."""
    lines = _bounded_lines(path)
    if not lines or tuple(cell.strip() for cell in lines[0].split(",")) != SUITE_RANK_COLUMNS:
        return []
    ranks = []
    for line in lines[1:]:
        cells = line.split(",")  # host names hold no commas
        if len(cells) != len(SUITE_RANK_COLUMNS) or not cells[0].isdigit():
            continue
        numbers = [finite_number(cell) for cell in cells[2:9]]
        if any(n is None for n in numbers):
            continue
        start, first_done, end, items, size, rate, errors = numbers
        ranks.append(
            RankStat(
                rank=int(cells[0]),
                host=cells[1],
                start=start,
                first_done=first_done,
                end=end,
                items=int(items or 0),
                rate=rate,
                bytes=int(size or 0),
                verify_errors=int(errors or 0),
            )
        )
    return sorted(ranks, key=lambda r: r.rank)
