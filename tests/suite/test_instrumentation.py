"""Instrumentation of the native suite: operation latency histograms in result.json, the
test-only straggler delay (--debug-delay-rank/--debug-delay-us) and rank 0's live progress."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from suite_helpers import (
    SCHEMA_PATH,
    Workspace,
    only_result_dir,
    run_suite,
    small_ini,
)

from ioscore.results.model import SCORED_PHASES

PROGRESS_LINE = re.compile(
    r"^ioscore-suite: progress: (?P<phase>[\w-]+): (?P<elapsed>\d+\.\d)(/(?P<limit>\d+))? s  "
    r"(?P<rate>\d+\.\d+) (?P<unit>MiB/s|kIOPS)  (?P<items>\d+) items(  ETA (?P<eta>\d+) s)?$"
)
# phases whose items are individual timed operations: the scored ones but find (find and
# timestamp time none), and the unscored random 4K reads
TIMED_PHASES = (set(SCORED_PHASES) - {"find"}) | {"ior-rnd4K-easy-read"}


def load_result(ws: Workspace) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((only_result_dir(ws) / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    return doc


def phase(doc: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in doc["phases"] if p["name"] == name)
    return found


def loop_rate(rank: dict[str, Any]) -> float:
    """Items per second from the rank's start to the end of its own main loop."""
    return float(rank["items"]) / (rank["first_done"] - rank["start"])


def check_latency(lat: dict[str, Any], with_buckets: bool) -> None:
    assert lat["unit"] == "s"
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99_9"] <= lat["p99_99"]
    assert lat["p99_99"] <= lat["max"]
    if with_buckets:
        assert lat["histogram"] == {"layout": "log-linear", "sub_buckets": 64, "rel_error": 1 / 128}
        bounds = [b["le"] for b in lat["buckets"]]
        assert bounds == sorted(bounds) and len(set(bounds)) == len(bounds)
        assert all(b["count"] > 0 for b in lat["buckets"])
        assert sum(b["count"] for b in lat["buckets"]) == lat["ops"]
        # log-linear ns bounds: integers below 128 ns, then 64 per power of two; the max lies
        # in the last non-empty bucket
        for le in bounds:
            ns = round(le * 1e9)
            assert le == pytest.approx(ns * 1e-9, rel=1e-12)
            if ns > 128:
                width = 1 << max(0, (ns - 1).bit_length() - 1 - 6)
                assert ns % width == 0
        assert bounds[-1] * (1 - 1 / 64) <= lat["max"] <= bounds[-1]
    else:
        assert "buckets" not in lat


@pytest.mark.parametrize("np", [2, 4])
def test_latency_histogram_counts_every_operation(
    suite_bin: Path, workspace: Workspace, np: int
) -> None:
    ini = workspace.write_ini(small_ini(workspace))
    proc = run_suite(np, str(ini), "--quiet", check=True)
    assert "progress:" not in proc.stderr  # --quiet turns live progress off
    doc = load_result(workspace)
    names = set()
    for p in doc["phases"]:
        if p["name"] not in TIMED_PHASES:
            assert "latency" not in p, p["name"]
            continue
        names.add(p["name"])
        lat = p["latency"]
        # one timed operation per item (transfer or file), wear-out included
        assert lat["ops"] == p["items"] > 0, p["name"]
        check_latency(lat, with_buckets=True)
        per_rank = [r["latency"] for r in p["ranks"]]
        assert sum(r["ops"] for r in per_rank) == lat["ops"]
        assert [r["ops"] for r in per_rank] == [r["items"] for r in p["ranks"]]
        assert max(r["max"] for r in per_rank) == pytest.approx(lat["max"], rel=1e-12)
        for r in per_rank:
            check_latency(r, with_buckets=False)
    assert names == TIMED_PHASES
    # exact counts where the workload fixes them: n files per rank, 2m/64k transfers per rank
    assert phase(doc, "mdtest-easy-write")["latency"]["ops"] == 120 * np
    assert phase(doc, "mdtest-hard-read")["latency"]["ops"] == 120 * np
    assert phase(doc, "ior-easy-read")["latency"]["ops"] == 32 * np


def test_debug_delay_makes_one_rank_a_straggler_and_the_run_invalid(
    suite_bin: Path, workspace: Workspace
) -> None:
    delay_us = 3000
    # rnd4K off: its wear-out would make the slowed rank repeat the fast rank's reads
    ini = workspace.write_ini(
        small_ini(workspace, stonewall=5, extra="[ior-rnd4K-easy-read]\nrun = FALSE\n")
    )
    proc = run_suite(
        2,
        str(ini),
        "--quiet",
        "--debug-delay-rank",
        "1",
        "--debug-delay-us",
        str(delay_us),
        check=True,
        timeout=120,
    )
    assert "test-only --debug-delay-rank 1 --debug-delay-us 3000" in proc.stderr
    doc = load_result(workspace)
    assert doc["valid"] is False
    assert any("--debug-delay-rank 1" in r for r in doc["invalid_reasons"])
    result_txt = (only_result_dir(workspace) / "result.txt").read_text()
    assert "--debug-delay-rank 1 --debug-delay-us 3000" in result_txt
    for name in ("mdtest-easy-write", "mdtest-easy-stat", "ior-easy-write"):
        fast, slow = phase(doc, name)["ranks"]
        assert slow["latency"]["p50"] >= delay_us * 1e-6, name
        assert fast["latency"]["p50"] < delay_us * 1e-6, name
        # ranks[].rate spans start..end, which includes the closing barrier (equal for all);
        # the straggler shows in the rate up to the end of its own loop (first_done)
        assert loop_rate(slow) < 0.5 * loop_rate(fast), name
        assert slow["first_done"] > fast["first_done"], name
        assert phase(doc, name)["latency"]["max"] >= delay_us * 1e-6


@pytest.mark.parametrize("np", [2, 4])
def test_progress_lines_on_stderr(suite_bin: Path, workspace: Workspace, np: int) -> None:
    # a 2 s stonewall keeps rank 0 busy in ior-rnd4K-easy-read for 2 s: at least one report
    ini = workspace.write_ini(small_ini(workspace, stonewall=2))
    proc = run_suite(np, str(ini), check=True)
    assert "\r" not in proc.stderr  # stderr is a pipe: plain lines
    lines = [m for m in map(PROGRESS_LINE.match, proc.stderr.splitlines()) if m]
    assert lines, proc.stderr
    rnd = [m for m in lines if m["phase"] == "ior-rnd4K-easy-read"]
    assert rnd, proc.stderr
    for m in rnd:
        assert m["unit"] == "MiB/s" and m["limit"] == "2"
        assert 0.9 <= float(m["elapsed"]) <= 3.0
        assert int(m["items"]) > 0 and float(m["rate"]) > 0
        assert m["eta"] is not None and int(m["eta"]) <= 2
    items = [int(m["items"]) for m in rnd]
    assert items == sorted(items)
    doc = load_result(workspace)
    assert int(rnd[-1]["items"]) <= phase(doc, "ior-rnd4K-easy-read")["items"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--debug-delay-rank", "1"], "go together"),
        (["--debug-delay-us", "100"], "go together"),
        (["--debug-delay-rank", "5", "--debug-delay-us", "100"], "go together"),
        (["--debug-delay-rank", "x1", "--debug-delay-us", "100"], "expected a number"),
    ],
)
def test_debug_delay_options_are_checked(
    suite_bin: Path, workspace: Workspace, args: list[str], message: str
) -> None:
    ini = workspace.write_ini(small_ini(workspace))
    proc = run_suite(2, str(ini), *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not workspace.results.exists()  # stopped before any file was created


def test_help_documents_debug_options_as_test_only(suite_bin: Path) -> None:
    help_text = run_suite(1, "--help", check=True).stdout
    assert "test only (the run is INVALID)" in help_text
    assert "--debug-delay-rank R --debug-delay-us N" in help_text
    listing = run_suite(1, "--list", check=True).stdout
    assert "test-only command-line options (the run is INVALID): --debug-delay-rank" in listing
