"""ioscore.acceptance.results on real `ioscore-suite ior|mdtest` output (mpirun -np 2).

The loader's statistics must agree with the tables the suite prints (IOR's "Summary of all
tests", mdtest's "SUMMARY rate"), targets must pass and fail by the stated rule, and the
suite's optional acceptance fields (summary, measurement notes, test parts) are read when
present and refused when malformed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.acceptance.results import (
    PASS_RULE,
    Stats,
    find_tests,
    load_launch,
    load_test,
)
from ioscore.acceptance.targets import TargetError
from ioscore.results import ResultFormatError
from tests.fixtures.acceptance_suite import launch, scratch

MIB = float(1 << 20)
IOR_ARGS = ["-F", "-e", "-g", "-b", "1m", "-t", "256k", "-s", "2", "-i", "3", "-w", "-r"]


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Path | str]]:
    """One IOR launch with -i 3 (write and read), one mdtest launch with -i 2, and a
    write/read pair across two launches, all in one scratch directory."""
    with scratch("ioscore-acc-results-") as root:
        ior = launch(
            root,
            "ior",
            [*IOR_ARGS, "-o", str(root / "f"), "--resultdir", str(root / "ior")],
        )
        md = launch(
            root,
            "mdtest",
            ["-n", "40", "-i", "2", "-u", "-d", str(root / "md"), "--resultdir", str(root / "mdt")],
        )
        pair = ["-F", "-C", "-e", "-g", "-b", "1m", "-t", "1m", "-s", "2", "-G", "4711"]
        pair += ["-o", str(root / "p")]
        launch(root, "ior", [*pair, "-w", "-k", "--resultdir", str(root / "pair/write")])
        launch(root, "ior", [*pair, "-r", "--resultdir", str(root / "pair/read")])
        yield {"root": root, "ior_out": ior.stdout, "md_out": md.stdout}


def ior_summary(stdout: str) -> dict[str, list[str]]:
    table = stdout.split("Summary of all tests:\n", 1)[1].splitlines()
    return {line.split()[0]: line.split() for line in table[1:3]}


def test_ior_statistics_agree_with_the_printed_summary(runs: dict) -> None:
    test = load_test([runs["root"] / "ior"])
    assert list(test.operations) == ["write", "read"]
    printed = ior_summary(runs["ior_out"])
    for key, op in test.operations.items():
        stats = op.stats()
        assert stats.n == 3 and [it.index for it in op.iterations] == [0, 1, 2]
        # IOR's columns: Max Min Mean StdDev in MiB/s, two decimals; stddev over n (population)
        shown = [float(v) for v in printed[key][1:5]]
        for mine, theirs in zip(
            (stats.max, stats.min, stats.mean, stats.stddev), shown, strict=True
        ):
            assert abs(mine / MIB - theirs) <= 0.006 + theirs * 1e-9
        ops = op.stats("rate")  # transfers per second: IOR's Max/Min/Mean(OPs)
        assert abs(ops.mean - float(printed[key][7])) <= 0.006 + ops.mean * 1e-9
        for it in op.iterations:
            assert sorted(it.rank_rates) == [0, 1] and all(r > 0 for r in it.rank_rates.values())
            times, rates = it.bandwidth_series()
            # the time series covers the phase: every bucket moved data
            assert len(times) == len(it.phase.timeseries["aggregate"]) >= 1
            assert all(rate > 0 for rate in rates)
    assert test.launches[0].command.startswith("ior -F -e -g")


def test_mdtest_statistics_agree_with_the_printed_summary(runs: dict) -> None:
    test = load_test([runs["root"] / "mdt"])
    ops = test.operations
    assert set(ops) >= {"file-write", "file-stat", "file-read", "file-delete", "dir-write"}
    rows = {}
    for line in runs["md_out"].split("SUMMARY rate", 1)[1].splitlines():
        cells = line.split()
        if len(cells) == 6 and cells[0] in ("Tree", "Directory", "File"):
            rows[" ".join(cells[:2])] = [float(v) for v in cells[2:]]
    for op in ops.values():
        stats = op.stats()
        assert op.unit == "ops/s" and stats.n == 2
        theirs = rows[op.label]
        for mine, printed in zip(
            (stats.max, stats.min, stats.mean, stats.stddev), theirs, strict=True
        ):
            assert abs(mine - printed) <= 0.0006 + printed * 1e-9, op.label


def test_targets_pass_and_fail_by_the_mean(runs: dict) -> None:
    test = load_test([runs["root"] / "ior"])
    write = test.operations["write"].stats()
    mean_mib = write.mean / MIB
    below, above = f"write >= {mean_mib * 0.5:.2f} MiB/s", f"write >= {mean_mib * 2:.2f} MiB/s"
    passed, failed, missing = test.evaluate([below, above, "creates >= 10/s"])
    assert passed.passed and passed.message.startswith("PASS: write >=")
    assert not failed.passed and failed.message.startswith("FAIL: write >=")
    assert failed.stats is not None and math.isclose(failed.stats.mean, mean_mib)
    assert "n=3" in failed.message
    assert not missing.passed and missing.operation is None and "no file-write" in missing.message
    assert PASS_RULE.startswith("a target passes when the mean")
    # A threshold at the mean: passes, and the margin is within one standard deviation.
    at_mean = test.evaluate([f"write >= {mean_mib - 1e-6:.6f} MiB/s"])[0]
    assert at_mean.passed and at_mean.within_stddev == (write.stddev > 0)
    with pytest.raises(TargetError, match="unknown unit 'gb/s'"):
        test.evaluate(["write >= 1 gb/s"])


def test_two_launches_form_one_test(runs: dict) -> None:
    tests = {t.id: t for t in find_tests(runs["root"])}
    assert set(tests) == {"ior", "mdt", "pair"}
    pair = tests["pair"]
    assert [launch.result_dir.name for launch in pair.launches] == ["write", "read"]
    assert list(pair.operations) == ["write", "read"]
    assert all(op.stats().n == 1 for op in pair.operations.values())
    assert pair.valid


def with_fields(source: Path, target: Path, **fields: object) -> Path:
    doc = json.loads((source / "result.json").read_text())
    doc.update(fields)
    target.mkdir(parents=True, exist_ok=True)
    (target / "result.json").write_text(json.dumps(doc))
    return target


def test_suite_summary_notes_and_parts_are_used(runs: dict, tmp_path: Path) -> None:
    source = runs["root"] / "pair" / "read"
    doc = json.loads((source / "result.json").read_text())
    fields = {
        "summary": [
            {
                "operation": "read",
                "unit": "MiB/s",
                "iterations": 3,
                "values": [100, 200, 300],
                "max": 300,
                "min": 100,
                "mean": 200,
                "stddev": 81.65,
            }
        ],
        "measurement_notes": [
            {"operation": "read", "level": "client-cache", "text": "rank shift -C: not cached"}
        ],
        "acceptance_test": {
            "id": "lustre-fpp",
            "parts": [
                {"role": "write", "timestamp": "x"},
                {"role": "read", "timestamp": doc["timestamp"]},
            ],
        },
    }
    loaded = load_launch(with_fields(source, tmp_path / "a", **fields))
    assert loaded.test_id == "lustre-fpp" and loaded.role == "read"
    stats = loaded.operations["read"].stats()
    assert stats == Stats(
        3, 200 * MIB, 81.65 * MIB, 100 * MIB, 300 * MIB, (100 * MIB, 200 * MIB, 300 * MIB)
    )
    assert loaded.notes[0].text == "rank shift -C: not cached"
    bad = {**fields, "summary": [{"operation": "read", "unit": "furlongs", "values": []}]}
    with pytest.raises(ResultFormatError, match=r"summary\[0\]\.unit: unknown unit"):
        load_launch(with_fields(source, tmp_path / "b", **bad))
    bad = {**fields, "measurement_notes": [{"operation": "read", "level": 3, "text": "x"}]}
    with pytest.raises(ResultFormatError, match=r"measurement_notes\[0\]\.level"):
        load_launch(with_fields(source, tmp_path / "c", **bad))


def test_refuses_what_is_not_an_acceptance_launch(runs: dict, tmp_path: Path) -> None:
    source = runs["root"] / "ior"
    with pytest.raises(ResultFormatError, match="is not an acceptance run"):
        load_launch(with_fields(source, tmp_path / "std", mode="standard"))
    with pytest.raises(ResultFormatError, match="truncated"):
        load_launch(with_fields(source, tmp_path / "cut", finished=False, aborted=True))
    with pytest.raises(ResultFormatError, match="schema violation"):
        load_launch(with_fields(source, tmp_path / "neg", procs=-1))
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "result.json").write_text("{not json")
    with pytest.raises(ResultFormatError, match="invalid JSON"):
        load_launch(tmp_path / "junk")


def test_mdtest_deviation_is_the_sample_one_and_ior_the_population_one() -> None:
    """mdtest prints sqrt(sum((x - mean)^2) / (n - 1)) (0 for one iteration); IOR divides by
    n. 'Within one standard deviation' rests on the tool's own number."""

    values = [100.0, 200.0, 300.0]
    assert Stats.of(values, sample=True).stddev == pytest.approx(100.0)
    assert Stats.of(values).stddev == pytest.approx(math.sqrt(20000 / 3))
    assert Stats.of([5.0], sample=True).stddev == 0.0
