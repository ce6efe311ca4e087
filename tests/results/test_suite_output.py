"""The results library reads what ioscore-suite writes: result.json and the IO500 text files.

Runs the real suite (2 ranks, tiny sizes, stonewall 1 s) in a temporary directory; the run is
invalid by design (stonewall != 300, short writes) and the library must say exactly that.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.results import (
    CheckContext,
    Severity,
    check,
    find_runs,
    load_run,
    recompute_scores,
    verify_hashes,
)
from ioscore.results.scoring import relative_difference
from tests.fixtures.tiny_suite import tiny_suite_results


@pytest.fixture(scope="module")
def suite_run() -> Iterator[Path]:
    with tiny_suite_results("ioscore-suite-test-") as results:
        runs = find_runs(results)
        assert len(runs) == 1, runs
        yield runs[0]


@pytest.mark.mpi
def test_result_json_of_the_suite(suite_run: Path) -> None:
    run = load_run(suite_run)
    assert run.format == "ioscore-json"  # preferred over result_summary.txt
    assert run.procs == 2 and run.timestamp
    hashes = verify_hashes(run)
    assert hashes.config_ok is True, hashes
    assert hashes.score_ok is True, hashes  # valid=NO XOR-ed in, as the suite did
    assert run.printed is not None
    assert relative_difference(recompute_scores(run).total, run.printed.total) < 1e-9
    found = {(i.rule, i.severity) for i in check(run, CheckContext())}
    assert ("stonewall-time", Severity.INVALID) in found
    assert ("write-phase-min-runtime", Severity.INVALID) in found
    assert ("invalid-markers", Severity.INVALID) in found


@pytest.mark.mpi
def test_text_files_of_the_suite_agree_with_its_json(suite_run: Path, tmp_path: Path) -> None:
    text_only = tmp_path / "text"
    shutil.copytree(suite_run, text_only, ignore=shutil.ignore_patterns("result.json"))
    from_text = load_run(text_only)
    from_json = load_run(suite_run)
    assert from_text.format == "c-app" and from_text.version == from_json.version
    assert set(from_text.phases) == set(from_json.phases)
    for name, phase in from_text.phases.items():
        assert phase.value == pytest.approx(from_json.phases[name].value, abs=5e-7), name
    hashes = verify_hashes(from_text)
    assert hashes.config_ok is True and hashes.score_ok is True
    assert from_text.config_hash == from_json.config_hash
    assert from_text.score_hash == from_json.score_hash
