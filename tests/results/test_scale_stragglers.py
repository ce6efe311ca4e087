"""Straggler findings from the summary form equal those from full data."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import (
    ResultFormatError,
    check,
    find_runs,
    load_run,
    recompute_scores,
    synthetic,
)
from ioscore.results.model import RunResult
from ioscore.results.parse_json import parse_result_json_text
from ioscore.results.parse_rankcsv import suite_rank_file
from ioscore.results.stragglers import PhaseSpread, phase_spread, run_spreads
from tests.fixtures.tiny_suite import LIMITED, SUITE, TINY_CONFIG, _scratch_parent
from tests.mpi_launch import MPI, mpi_env

RANKS, PPN, SLOW_HOST = 480, 8, 7  # 60 hosts; the slow host's 8 ranks fit in the K=16 named


def _both_forms(**kwargs: Any) -> tuple[RunResult, RunResult]:
    full = synthetic.full_document(RANKS, ppn=PPN, **kwargs)
    summary = synthetic.summarised(full, threshold=64)
    return (
        parse_result_json_text(json.dumps(full), "full.json"),
        parse_result_json_text(json.dumps(summary), "summary.json"),
    )


def _findings(spread: PhaseSpread) -> tuple[list[int], list[str]]:
    return spread.straggler_ranks, [flag.host for flag in spread.host_stragglers]


def test_summary_form_is_read_with_only_the_named_ranks() -> None:
    full, summary = _both_forms(slow_hosts=(SLOW_HOST,))
    assert summary.extra["rank_detail"] == {"form": "summary", "threshold": 64, "full_file": None}
    assert "rank_detail" not in full.extra
    for name, phase in summary.phases.items():
        assert phase.rank_summary is not None and full.phases[name].rank_summary is None
        assert phase.rank_summary.count == RANKS
        assert len(phase.ranks) == 2 * synthetic.EXTREME_RANKS
        named = {*phase.rank_summary.slowest, *phase.rank_summary.fastest}
        assert [r.rank for r in phase.ranks] == sorted(named)
        assert len(phase.rank_summary.hosts) == RANKS // PPN
        assert sum(phase.rank_summary.histogram_counts) == RANKS
        assert phase.timeseries is not None and phase.timeseries["per_rank"] == []
        # Scores and the phase model are the same in both forms.
        assert phase.value == full.phases[name].value


def test_slow_host_gives_the_same_findings_from_full_data_and_its_summary() -> None:
    full, summary = _both_forms(slow_hosts=(SLOW_HOST,))
    slow_ranks = list(range(SLOW_HOST * PPN, (SLOW_HOST + 1) * PPN))
    for from_full, from_summary in zip(run_spreads(full), run_spreads(summary), strict=True):
        assert _findings(from_full) == (slow_ranks, [f"node{SLOW_HOST:05d}"]), from_full.phase
        assert _findings(from_summary) == _findings(from_full), from_full.phase
        assert from_summary.ranks == from_full.ranks == RANKS
        assert from_summary.slowest_rank == from_full.slowest_rank
        assert from_summary.slowest_host == from_full.slowest_host
        assert from_summary.rate_median == pytest.approx(from_full.rate_median, rel=0.01)
        assert from_summary.rate_min == pytest.approx(from_full.rate_min, rel=0.01)
        assert from_summary.tail_s == pytest.approx(from_full.tail_s, rel=0.01)
        # The host flag names the host's ranks the summary names (all 8 here).
        (host_flag,) = from_summary.host_stragglers
        assert list(host_flag.ranks) == slow_ranks


def test_uniform_run_has_no_findings_in_either_form() -> None:
    full, summary = _both_forms()
    for from_full, from_summary in zip(run_spreads(full), run_spreads(summary), strict=True):
        assert _findings(from_full) == _findings(from_summary) == ([], [])


def test_summary_with_inconsistent_histogram_refused() -> None:
    document = synthetic.summarised(synthetic.full_document(100, ppn=10), threshold=32)
    document["phases"][0]["rank_summary"]["histogram"]["rate"]["edges"].pop()
    with pytest.raises(ResultFormatError, match="histogram needs one edge more than counts"):
        parse_result_json_text(json.dumps(document), "r.json")


def test_summary_form_validated_by_the_schema() -> None:
    document = synthetic.summarised(synthetic.full_document(100, ppn=10), threshold=32)
    del document["phases"][4]["rank_summary"]["quantiles"]["rate"]["p99"]
    with pytest.raises(ResultFormatError, match=r"phases/4/rank_summary/quantiles/rate"):
        parse_result_json_text(json.dumps(document), "r.json")


# --- a real suite run in the summary form ---------------------------------------------------

DELAYED_RANK = 1
MDTEST_JUDGED = (
    "mdtest-easy-write",
    "mdtest-hard-write",
    "mdtest-easy-stat",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
)


@pytest.mark.mpi
def test_real_summary_form_run_flags_the_delayed_rank_like_its_full_file() -> None:
    """4 ranks forced into the summary form (threshold 2) with every rank's numbers in
    ranks-<phase>.csv.gz: the summary's findings are the delayed rank, and a subset of what the
    full per-rank data of the same run finds."""
    if not SUITE.is_file() or shutil.which(MPI.launcher) is None:
        pytest.fail(f"{SUITE} not built or {MPI.launcher} missing: run `make -C suite` first")
    scratch = Path(tempfile.mkdtemp(prefix="ioscore-summary-", dir=_scratch_parent()))
    try:
        config = scratch / "tiny.ini"
        config.write_text(
            TINY_CONFIG.format(root=scratch) + "\n[ior-rnd4K-easy-read]\nrun = FALSE\n",
            encoding="utf-8",
        )
        env = mpi_env()
        args = ["--debug-delay-rank", str(DELAYED_RANK), "--debug-delay-us", "3000"]
        args += ["--rank-detail-threshold", "2", "--rank-detail-full"]
        command = [*LIMITED, *MPI.launch(4), str(SUITE), str(config)]
        done = subprocess.run(
            [*command, "-q", *args],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=400,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        (run_dir,) = find_runs(scratch / "results")
        run = load_run(run_dir)
        detail = run.extra["rank_detail"]
        assert detail["form"] == "summary" and detail["threshold"] == 2
        full = {
            name: dataclasses.replace(
                phase,
                rank_summary=None,
                ranks=suite_rank_file(run_dir / detail["full_file"].format(phase=name)),
            )
            for name, phase in run.phases.items()
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name, phase in run.phases.items():
        assert phase.rank_summary is not None and phase.rank_summary.count == 4, name
        assert [r.rank for r in full[name].ranks] == [0, 1, 2, 3], name
        from_summary = phase_spread(phase).straggler_ranks
        from_full = phase_spread(full[name]).straggler_ranks
        assert set(from_summary) <= set(from_full), (name, from_summary, from_full)
        if name in MDTEST_JUDGED:  # the late rule finds it from the first_done quantiles
            assert from_summary == [DELAYED_RANK], (name, from_summary)


def test_scores_and_rules_are_the_same_in_both_forms() -> None:
    full, summary = _both_forms(slow_hosts=(SLOW_HOST,))
    assert recompute_scores(summary) == recompute_scores(full)
    as_tuples = [(i.rule, i.severity, i.message, i.phase) for i in check(full)]
    assert [(i.rule, i.severity, i.message, i.phase) for i in check(summary)] == as_tuples
    assert any(i.rule == "write-phase-min-runtime" for i in check(summary))  # rules did run
