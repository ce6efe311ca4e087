"""Recomputation rules per era: SC17's product TOTAL and the zero handling
(BENCHMARK-RULES §3.2)."""

from __future__ import annotations

import math

import pytest

from ioscore.results import load_run, recompute_scores
from ioscore.results.scoring import geometric_mean, release_order, zeros_skipped

from .conftest import BASH_GB_RUN, DEV, ISC20_RUN, SC25_RUN, edit


def test_geometric_mean() -> None:
    assert geometric_mean([2.0, 8.0], skip_zeros=True) == pytest.approx(4.0)
    assert geometric_mean([2.0, 0.0, 8.0], skip_zeros=True) == pytest.approx(4.0)
    assert geometric_mean([2.0, 0.0, 8.0], skip_zeros=False) == 0.0
    assert geometric_mean([], skip_zeros=True) == 0.0


def test_sc17_product_total_is_detected_and_recomputed(copy_run) -> None:  # type: ignore[no-untyped-def]
    # SC17 printed TOTAL = BW x MD; rewrite a real bash summary's score line that way.
    run_dir = copy_run(BASH_GB_RUN)
    edit(run_dir / "result_summary.txt", "TOTAL 933.635", f"TOTAL {183.364 * 4753.79:.3f}")
    run = load_run(run_dir)
    assert run.total_formula == "product"
    scores = recompute_scores(run)
    assert scores.total == pytest.approx(scores.bw * scores.md)
    assert scores.total == pytest.approx(183.364 * 4753.79, rel=1e-4)


def test_sqrt_total_for_later_bash_runs() -> None:
    run = load_run(DEV / BASH_GB_RUN)
    assert run.total_formula == "sqrt"
    scores = recompute_scores(run)
    assert scores.total == pytest.approx(math.sqrt(scores.bw * scores.md))


def test_zero_phase_skipped_since_sc21(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    before = recompute_scores(load_run(run_dir))
    edit(run_dir / "result_summary.txt", "71.617650 kIOPS", "0.000000 kIOPS")
    run = load_run(run_dir)
    assert zeros_skipped(run)
    after = recompute_scores(run)
    assert after.valid is False
    assert after.bw == pytest.approx(before.bw)
    md_values = [run.phases[n].value for n in run.phases if run.phases[n].group.value == "md"]
    expected_md = math.exp(sum(math.log(v) for v in md_values if v > 0) / 7)
    assert after.md == pytest.approx(expected_md)


def test_zero_phase_multiplied_in_before_sc21(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(ISC20_RUN)
    edit(run_dir / "result_summary.txt", "6637.833981 kIOPS", "0.000000 kIOPS")
    run = load_run(run_dir)
    assert run.format == "c-app-2020"
    assert not zeros_skipped(run)
    scores = recompute_scores(run)
    assert scores.md == 0.0 and scores.total == 0.0 and scores.bw > 0


def test_release_order() -> None:
    assert release_order("io500-sc20_v3-5-gee79fd4bcd36") == (2020, 1)
    assert release_order("io500-isc21") == (2021, 0)
    assert release_order("aramco-custom") is None
    assert release_order("") is None
