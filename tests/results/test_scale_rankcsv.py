"""Per-rank CSVs of the IO500 archive at Aurora's scale (62,400 processes; issue 21).

The archive's largest run is not in ../shared/data, so the files are generated here in the
archive's format (the formats of real files in ../shared/data/io500-archive-dev: IOR's
saveRankPerformanceDetailsCSV and mdtest's -Y per-rank summary with its ``all`` row).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from ioscore.results.model import PhaseResult, RankStat
from ioscore.results.parse_rankcsv import MAX_CSV_BYTES, rank_csv
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


def test_oversized_csv_leaves_the_phase_without_rank_data(tmp_path: Path) -> None:
    path = tmp_path / "ior-easy-write.csv"
    with path.open("wb") as out:
        out.write(
            b"access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n"
        )
        out.truncate(MAX_CSV_BYTES + 1)  # sparse: no disk used
    assert rank_csv(tmp_path, "ior-easy-write") == []
