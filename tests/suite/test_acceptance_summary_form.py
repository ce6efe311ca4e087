"""The acceptance subcommands above the rank-detail threshold: `ioscore-suite ior`
and `mdtest` take --rank-detail-threshold / --rank-detail-full like the IO500 run and then
write the bounded result.json (rank_summary, named slowest and fastest ranks) with the same
printed tables, test manifest and measurement notes. Real runs: 4 ranks oversubscribed with a
threshold of 2, so the summary form is used with few ranks; the named ranks and quantiles are
checked against the same run's every-rank file, and `ioscore report` reads the result."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import SCHEMA_PATH, run_subcommand, suite_bin  # noqa: F401

from ioscore.acceptance.modality import operation_hints
from ioscore.acceptance.results import load_launch
from ioscore.results import suite_rank_file
from tests.fixtures.acceptance_suite import scratch

pytestmark = [pytest.mark.mpi, pytest.mark.usefixtures("suite_bin")]

NP = 4
SUMMARY = ["--rank-detail-threshold", "2", "--rank-detail-full"]
IOR = ["-F", "-e", "-b", "256k", "-t", "64k", "-w", "-r", "-i", "2", "-vv"]
RUNNERS = Path(__file__).resolve().parents[2] / "runners"
# the -vv row of one named rank: rank, host, start, end, MiB, MiB/s
RANK_ROW = re.compile(r"^ +(\d+) (\S+) +[\d.]+ +[\d.]+ +[\d.]+ +([\d.]+)$")


@pytest.fixture(scope="module")
def scratch_dir() -> Iterator[Path]:
    with scratch("ioscore-acc-summary-") as root:
        yield root


def launch(root: Path, name: str, args: list[str]) -> tuple[Path, str]:
    """One launch with results in root/NAME; (result dir, stdout)."""
    results = root / name
    done = run_subcommand(root, args[0], [*args[1:], "--resultdir", str(results)], np=NP)
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return results, done.stdout


@pytest.fixture(scope="module")
def ior_summary(scratch_dir: Path) -> tuple[Path, str]:
    (scratch_dir / "ior").mkdir()
    return launch(scratch_dir, "ior-summary", ["ior", *IOR, *SUMMARY, "-o", f"{scratch_dir}/ior/f"])


@pytest.fixture(scope="module")
def mdtest_summary(scratch_dir: Path) -> Path:
    (scratch_dir / "md").mkdir()
    args = ["mdtest", "-n", "20", "-u", "-i", "2", *SUMMARY, "-d", f"{scratch_dir}/md"]
    return launch(scratch_dir, "mdtest-summary", args)[0]


def document(results: Path) -> dict:
    doc = json.loads((results / "result.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(doc)
    return doc


def nearest_rank(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


def check_against_full_file(results: Path, phase: dict) -> None:
    """The summary's named ranks, quantiles and totals agree with every rank's row."""
    summary = phase["rank_summary"]
    every = suite_rank_file(results / summary["full_file"])
    assert [r.rank for r in every] == list(range(NP)), phase["name"]
    rate = {r.rank: r.rate for r in every}
    by_rate = sorted(rate, key=lambda r: (rate[r], r))
    assert summary["count"] == NP and summary["slowest"] == by_rate, phase["name"]
    assert summary["fastest"] == by_rate[::-1], phase["name"]
    named = {r["rank"]: r for r in phase["ranks"]}
    assert sorted(named) == list(range(NP))
    for r in every:
        assert named[r.rank]["rate"] == pytest.approx(r.rate, rel=1e-9)
        assert named[r.rank]["host"] == r.host
    quantiles = summary["quantiles"]["rate"]
    assert quantiles["p0"] == pytest.approx(min(rate.values()), rel=1e-9)
    assert quantiles["p100"] == pytest.approx(max(rate.values()), rel=1e-9)
    bound = summary["quantile_rel_error"]
    for pct in (25, 50, 75):
        exact = nearest_rank(list(rate.values()), pct)
        assert quantiles[f"p{pct}"] == pytest.approx(exact, rel=bound * 1.01), (phase["name"], pct)
    assert sum(summary["histogram"]["rate"]["counts"]) == NP
    assert sum(r.items or 0 for r in every) == phase["items"]


def test_ior_writes_the_summary_form_with_every_rank_in_the_full_file(
    ior_summary: tuple[Path, str],
) -> None:
    results, _ = ior_summary
    doc = document(results)
    assert doc["schema"] == "ioscore-result/1.1" and doc["mode"] == "ior"
    assert doc["rank_detail"]["form"] == "summary" and doc["rank_detail"]["threshold"] == 2
    names = [p["name"] for p in doc["phases"]]
    assert names == ["ior-write-0", "ior-read-0", "ior-write-1", "ior-read-1"]
    for phase in doc["phases"]:
        assert phase["timeseries"]["per_rank"] == []
        check_against_full_file(results, phase)
    # what the acceptance report is made of is unaffected by the form
    assert {n["operation"] for n in doc["measurement_notes"]} == {"write", "read"}
    assert [s["operation"] for s in doc["summary"]] == ["write", "read"]
    assert doc["acceptance_test"] is None  # without -k no test spans launches


def test_ior_tables_are_bounded_and_agree_with_result_json(ior_summary: tuple[Path, str]) -> None:
    results, out = ior_summary
    doc = document(results)
    lines = out.splitlines()
    rows = [line.split() for line in lines if line.startswith(("write ", "read "))]
    rows = [row for row in rows if len(row) == 11]  # IOR's results table, not the summary
    assert len(rows) == 4
    for row, phase in zip(rows, doc["phases"], strict=True):
        # bw(MiB/s) is the phase score (GiB/s x 1024), taken from every rank's totals
        mib = phase["score"] * 1024  # IOR's PPDouble: no decimals from 3600 up
        assert float(row[1]) == pytest.approx(mib, abs=0.5 if mib >= 3600 else 0.01)
    assert out.count(f"rank MiB/s over all {NP} ranks: p0 ") == 4
    assert out.count(f"only the {NP} slowest and {NP} fastest ranks:") == 4
    named = [RANK_ROW.match(line) for line in out.splitlines()]
    printed = [m for m in named if m]
    assert len(printed) == 4 * NP
    first = {int(m.group(1)): float(m.group(3)) for m in printed[:NP]}
    ranks = {r["rank"]: r["rate"] / (1 << 20) for r in doc["phases"][0]["ranks"]}
    assert first == pytest.approx(ranks, abs=0.01)


def test_the_manifest_and_a_read_launch_work_in_the_summary_form(scratch_dir: Path) -> None:
    """A -k write launch leaves its manifest (pairs = what every rank wrote, from the
    reduced totals); the separate read launch finds it and verifies the data."""
    (scratch_dir / "pair").mkdir()
    common = ["-F", "-b", "256k", "-t", "64k", *SUMMARY, "-o", f"{scratch_dir}/pair/f"]
    launch(scratch_dir, "pair-write", ["ior", "-w", "-k", *common])
    manifest = json.loads(Path(f"{scratch_dir}/pair/f.ioscore-test.json").read_text())
    assert manifest["pairs"] == 4 and manifest["tasks"] == NP
    assert manifest["file_bytes"] == 256 * 1024  # per file (-F)
    read, _ = launch(scratch_dir, "pair-read", ["ior", "-r", "-R", *common])
    doc = document(read)
    assert doc["acceptance_test"]["id"] == manifest["id"]
    assert [p["role"] for p in doc["acceptance_test"]["parts"]] == ["write", "read"]
    read = next(p for p in doc["phases"] if p["name"] == "ior-read-0")
    assert read["verify_errors"] == 0 and read["rank_summary"]["count"] == NP


def test_mdtest_writes_the_summary_form(mdtest_summary: Path) -> None:
    doc = document(mdtest_summary)
    assert doc["schema"] == "ioscore-result/1.1" and doc["mode"] == "mdtest"
    creates = [p for p in doc["phases"] if p["name"].startswith("mdtest-file-write-")]
    assert len(creates) == 2
    for phase in doc["phases"]:
        check_against_full_file(mdtest_summary, phase)
    for phase in creates:  # the mdtest rate: items over the slowest rank's span
        ends = suite_rank_file(mdtest_summary / phase["rank_summary"]["full_file"])
        span = max((r.end or 0) - (r.start or 0) for r in ends)
        # (the file's times have 1 us resolution)
        assert phase["score"] * 1e3 == pytest.approx(NP * 20 / span, rel=2e-2)


def test_the_library_reads_the_summary_form_and_says_so(
    ior_summary: tuple[Path, str], mdtest_summary: Path
) -> None:
    launch_ = load_launch(ior_summary[0])
    write = launch_.operations["write"]
    assert len(write.iterations) == 2
    for it in write.iterations:
        assert it.phase.rank_summary is not None and it.phase.rank_summary.count == NP
    # two ranks at a tenth of the others' rate in the first iteration (as a bad link would
    # make), none in the second: the summary's gap test names the slow ranks
    for it, rates in zip(
        write.iterations, ([1e8, 1.05e8, 1e9, 1.05e9], [1e9, 1.01e9, 1.02e9, 1.03e9]), strict=True
    ):
        summary = it.phase.rank_summary
        assert summary is not None
        by_rank = dict(zip(summary.slowest, rates, strict=True))
        for rank in it.phase.ranks:
            rank.rate = by_rank[rank.rank]
        summary.quantiles["rate"].update(p0=rates[0], p50=rates[1], p100=rates[3])
        summary.histogram_edges = [rates[0], rates[1] * 1.001, rates[2], rates[3]]
        summary.histogram_counts = [2, 0, 2]
    hints = operation_hints(write)
    assert len(hints) == 1, hints
    low = write.iterations[0].phase.rank_summary.slowest[:2]
    assert hints[0].over == "ranks" and hints[0].low_members == tuple(map(str, sorted(low)))
    assert f"[from the rank summary of {NP} ranks" in hints[0].text
    assert "1 of 2 iterations show two groups" in hints[0].text
    assert load_launch(mdtest_summary).operations["file-write"].iterations[0].phase.rank_summary


def test_ioscore_report_on_summary_form_launches(
    ior_summary: tuple[Path, str], mdtest_summary: Path, scratch_dir: Path
) -> None:
    root = scratch_dir / "report"
    root.mkdir()
    shutil.copytree(ior_summary[0], root / "ior")
    shutil.copytree(mdtest_summary, root / "mdtest")
    env = {**os.environ, "PYTHONPATH": str(RUNNERS)}
    cli = [sys.executable, "-c", "import sys; from ioscore.cli import main; sys.exit(main())"]
    done = subprocess.run(
        [*cli, "report", "--json", str(root)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    tests = {t["id"]: t for t in report["tests"]}
    assert len(tests) == 2, tests.keys()
    ops = {op["key"]: op for t in tests.values() for op in t["operations"]}
    assert {"write", "read", "file-write"} <= ops.keys()
    assert ops["write"]["stats"]["n"] == 2
    assert "per-rank data summarised" in ops["write"]["measured"]
