"""Per-rank CSVs of the IO500 archive at Aurora's scale (62,400 processes).

The archive's largest run is not in ../shared/data, so the files are generated here in the
archive's format (the formats of real files in ../shared/data/io500-archive-dev: IOR's
saveRankPerformanceDetailsCSV and mdtest's -Y per-rank summary with its ``all`` row).
"""

from __future__ import annotations

import gzip
import tracemalloc
from pathlib import Path

import pytest

from ioscore.results import (
    RANK_DETAIL_THRESHOLD,
    bounded_ranks,
    phase_ranks_from_csv,
    summarise_ranks,
)
from ioscore.results.model import PhaseResult, RankStat, RunResult
from ioscore.results.parse_rankcsv import (
    MAX_CSV_BYTES,
    attach_rank_csvs,
    rank_csv,
    suite_rank_file,
)
from ioscore.results.stragglers import phase_spread

AURORA_RANKS = 62_400
SLOW = range(1000, 1010)  # ten slow ranks (a third of the others' rate)
MDTEST_OPS = [
    "Directory creation",
    "Directory stat",
    "Directory read",
    "Directory rename",
    "Directory removal",
    "File creation",
    "File stat",
    "File read",
    "File removal",
    "Tree creation",
    "Tree removal",
]


def write_archive_csvs(run_dir: Path, ranks: int = AURORA_RANKS) -> None:
    """ior-easy-write.csv and mdtest-easy-write.csv of `ranks` ranks, SLOW ranks slow."""
    with (run_dir / "ior-easy-write.csv").open("w", encoding="utf-8") as out:
        out.write(
            "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n"
        )
        for rank in range(ranks):
            slow = 3.0 if rank in SLOW else 1.0
            rate = 1.0e8 / slow + rank % 7
            out.write(
                f"write,{rank},{300.5 * slow:.10e},{300.0 * slow:.10e},{rate:.10e},{rate:.10e}\n"
            )
    file_creation = MDTEST_OPS.index("File creation")
    with (run_dir / "mdtest-easy-write.csv").open("w", encoding="utf-8") as out:
        columns = ",".join(f"rate-{op},time-{op}" for op in MDTEST_OPS)
        out.write(f"rank,items,{columns}\n")
        out.write("all,80000" + ",," * file_creation + ",3.07e+05,4.99e+02\n")
        for rank in range(ranks):
            slow = 3.0 if rank in SLOW else 1.0
            out.write(f"{rank}" + ",," * file_creation + f",,{266.5 / slow:.10e},{300.1:.10e}\n")


def test_aurora_sized_csvs_read_in_bounded_memory(tmp_path: Path) -> None:
    write_archive_csvs(tmp_path)
    assert (tmp_path / "ior-easy-write.csv").stat().st_size < MAX_CSV_BYTES
    tracemalloc.start()
    try:
        ior = rank_csv(tmp_path, "ior-easy-write")
        mdtest = rank_csv(tmp_path, "mdtest-easy-write")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [row["rank"] for row in ior] == list(range(AURORA_RANKS))
    assert [row["rank"] for row in mdtest] == list(range(AURORA_RANKS))
    assert ior[1000]["rate"] < ior[999]["rate"] / 2 and mdtest[1005]["end"] == 300.1
    # Linear in the ranks: ~0.5 kB per row of both files held at once, far below a naive
    # whole-file list of dicts of strings; a regression to O(file x columns) fails here.
    assert peak < 96 * 1024 * 1024, peak


def test_aurora_sized_phase_finds_the_slow_ranks(tmp_path: Path) -> None:
    write_archive_csvs(tmp_path)
    for name, unit in (("ior-easy-write", "GiB/s"), ("mdtest-easy-write", "kIOPS")):
        ranks = [RankStat(**row) for row in rank_csv(tmp_path, name)]  # type: ignore[arg-type]
        spread = phase_spread(PhaseResult(name=name, value=1.0, unit=unit, ranks=ranks))
        assert spread.ranks == AURORA_RANKS, name
        assert spread.straggler_ranks == list(SLOW), name


def test_above_the_threshold_a_phase_keeps_the_summary_form(tmp_path: Path) -> None:
    """The suite's summary form from the archive's CSVs: the same findings as from every
    rank, exact quantiles, the slow ranks named, no host."""
    write_archive_csvs(tmp_path)
    for name, unit in (("ior-easy-write", "GiB/s"), ("mdtest-easy-write", "kIOPS")):
        every = [RankStat(**row) for row in rank_csv(tmp_path, name)]  # type: ignore[arg-type]
        named, summary = phase_ranks_from_csv(tmp_path, name)
        assert summary is not None and summary.count == AURORA_RANKS, name
        assert len(named) <= 32 and sorted(summary.slowest[: len(SLOW)]) == list(SLOW), name
        assert summary.hosts == [] and all(r.host is None for r in named), name
        assert sum(summary.histogram_counts) == AURORA_RANKS, name
        ordered = sorted(r.rate for r in every if r.rate is not None)
        for key, value in summary.quantiles["rate"].items():
            assert value == ordered[round(float(key[1:]) / 100 * (AURORA_RANKS - 1))], key
        assert "first_done" not in summary.quantiles  # the CSVs carry no such field
        phase = PhaseResult(name=name, value=1.0, unit=unit, ranks=named, rank_summary=summary)
        assert phase_spread(phase).straggler_ranks == list(SLOW), name


def test_the_cli_report_reads_the_csvs_in_the_summary_form(tmp_path: Path) -> None:
    write_archive_csvs(tmp_path, RANK_DETAIL_THRESHOLD + 1)
    phase = PhaseResult(name="ior-easy-write", value=1.0, unit="GiB/s")
    run = RunResult(
        source="result.txt",
        format="c-app",
        version="",
        mode=None,
        phases={phase.name: phase},
        printed=None,
    )
    assert attach_rank_csvs(run, tmp_path) == ["ior-easy-write"]
    assert len(phase.ranks) <= 32 and phase.rank_summary is not None
    assert phase.rank_summary.count == RANK_DETAIL_THRESHOLD + 1


def test_threshold_boundary_and_rows_without_a_rate() -> None:
    ranks = [RankStat(rank=r, start=0.0, end=2.0, rate=float(r + 1)) for r in range(8)]
    assert bounded_ranks(ranks, threshold=8) == (ranks, None)
    ranks.append(RankStat(rank=8, start=0.0, end=2.0))  # no rate: counted, never named
    named, summary = bounded_ranks(ranks, threshold=8)
    assert summary is not None and summary.count == 9
    assert summary.slowest == list(range(8)) and summary.fastest == list(range(7, -1, -1))
    assert [r.rank for r in named] == list(range(8))
    assert summary.quantiles["end"]["p50"] == 2.0 and summary.quantiles["rate"]["p100"] == 8.0
    hosted = [RankStat(rank=r, host=f"n{r % 2}", start=0.0, end=1.0, rate=2.0) for r in range(4)]
    summary, _ = summarise_ranks(hosted, k=1)
    assert [(h.host, h.ranks, h.rate_sum) for h in summary.hosts] == [
        ("n0", 2, 4.0),
        ("n1", 2, 4.0),
    ]


def test_oversized_csv_leaves_the_phase_without_rank_data(tmp_path: Path) -> None:
    path = tmp_path / "ior-easy-write.csv"
    with path.open("wb") as out:
        out.write(
            b"access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n"
        )
        out.truncate(MAX_CSV_BYTES + 1)  # sparse: no disk used
    assert rank_csv(tmp_path, "ior-easy-write") == []


# --- the suite's every-rank file of the summary form (--rank-detail-full) --------------------

SUITE_HEADER = "rank,host,start,first_done,end,items,bytes,rate,verify_errors,io_error\n"


def test_suite_rank_file_read_from_gzip_in_rank_order(tmp_path: Path) -> None:
    path = tmp_path / "ranks-ior-easy-write.csv.gz"
    rows = [f"{r},nid{r // 4:03d},0.0,1.5,1.6,16,1048576,655360.0,0,0\n" for r in (2, 0, 1)]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(SUITE_HEADER + "".join(rows) + "3,nid000,0.0,nan,1.6,16,1,1.0,0,0\n")
    ranks = suite_rank_file(path)
    assert [(r.rank, r.host, r.items, r.bytes) for r in ranks] == [
        (0, "nid000", 16, 1048576),
        (1, "nid000", 16, 1048576),
        (2, "nid000", 16, 1048576),
    ]  # the row with a non-finite number is left out
    assert ranks[0].first_done == 1.5 and ranks[0].rate == 655360.0


@pytest.mark.parametrize("case", ["bomb", "header", "not-gzip", "missing"])
def test_suite_rank_file_refusals_leave_no_rank_data(tmp_path: Path, case: str) -> None:
    path = tmp_path / "ranks-find.csv.gz"
    if case == "bomb":  # 64 MiB + 1 of zeros compress to ~64 kB: refused after the limit
        with gzip.open(path, "wb") as out:
            out.write(SUITE_HEADER.encode())
            for _ in range(MAX_CSV_BYTES // (1 << 20) + 1):
                out.write(b"0" * (1 << 20))
        assert path.stat().st_size < 1 << 20
    elif case == "header":
        with gzip.open(path, "wt") as out:
            out.write("rank,host,rate\n0,n,1\n")
    elif case == "not-gzip":
        path.write_text(SUITE_HEADER + "0,n,0,1,1,1,1,1,0,0\n", encoding="utf-8")
    assert suite_rank_file(path) == []
