"""`ioscore report` at scale: summary-form result.json and Aurora-sized IO500 CSVs
are reported with histograms and per-host bars, never one bar per rank."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from ioscore.report.charts import MAX_RANK_BARS, all_figures
from ioscore.results import find_runs, load_run, synthetic
from ioscore.results.parse_rankcsv import attach_rank_csvs
from tests.cli.conftest import DEV
from tests.results.test_scale_rankcsv import AURORA_RANKS, SLOW, write_archive_csvs

Cli = Callable[..., subprocess.CompletedProcess[str]]
IO500_RUN = DEV / "760"  # io500-sc25 result_summary.txt + result.txt, one run below results/


def _largest_trace(figures: list[tuple[str, object]]) -> int:
    return max(len(trace.y) for _, figure in figures for trace in figure.data)  # type: ignore[attr-defined]


def test_summary_form_result_reported_with_its_stragglers(ioscore_cli: Cli, tmp_path: Path) -> None:
    ranks, ppn, slow_host = 6000, 60, 42
    document = synthetic.summarised(
        synthetic.full_document(ranks, ppn=ppn, slow_hosts=(slow_host,)), threshold=4096
    )
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "result.json").write_text(json.dumps(document), encoding="utf-8")
    done = ioscore_cli("report", str(run_dir), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["per_rank_data"] is True
    assert len(report["phases"]) == 12
    slow_host_ranks = range(slow_host * ppn, (slow_host + 1) * ppn)
    for row in report["phases"]:
        assert row["ranks"] == ranks
        assert row["straggler_hosts"] == [f"node{slow_host:05d}"], row["phase"]
        # The summary names the K slowest ranks: all on the slow host, all flagged.
        flagged = row["straggler_ranks"]
        assert len(flagged) == synthetic.EXTREME_RANKS, row["phase"]
        assert all(rank in slow_host_ranks for rank in flagged), row["phase"]
        assert row["slowest_host"] == f"node{slow_host:05d}"
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "6000 ranks by rate" in html and "slowest and fastest ranks" in html
    figures = all_figures(load_run(run_dir))
    titles = [figure.layout.title.text for _, figure in figures]
    assert sum("by rate" in t for t in titles) == 12
    assert sum("mean work rate per host" in t for t in titles) == 12
    assert _largest_trace(figures) <= ranks // ppn  # a bar per host at most


def test_aurora_sized_io500_csvs_reported_as_histograms(ioscore_cli: Cli, tmp_path: Path) -> None:
    run_copy = tmp_path / "760"
    shutil.copytree(IO500_RUN, run_copy)
    (run_dir,) = find_runs(run_copy)
    write_archive_csvs(run_dir)
    done = ioscore_cli("report", str(run_copy), "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {row["phase"]: row for row in json.loads(done.stdout)["phases"]}
    for name in ("ior-easy-write", "mdtest-easy-write"):
        assert rows[name]["ranks"] == AURORA_RANKS
        assert rows[name]["straggler_ranks"] == list(SLOW), name
    assert rows["ior-hard-write"]["ranks"] == 0  # no CSV for it
    run = load_run(run_dir)
    assert attach_rank_csvs(run, run_dir) == ["ior-easy-write", "mdtest-easy-write"]
    figures = all_figures(run)
    titles = [figure.layout.title.text for _, figure in figures]
    assert any(t.startswith(f"ior-easy-write: {AURORA_RANKS} ranks by rate") for t in titles)
    assert _largest_trace(figures) <= MAX_RANK_BARS  # 32 bins, not 62,400 bars
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert f"{AURORA_RANKS} ranks by rate" in page
    assert len(page) < 8 * 1024 * 1024
