"""ioscore's result.json (contract in docs/ARCHITECTURE.md), built from a real sc25 run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import (
    CheckContext,
    ResultFormatError,
    check,
    is_valid,
    load_path,
    load_run,
    recompute_scores,
)
from ioscore.results.model import SCORED_PHASES

from .conftest import DEV, SC25_RUN


def contract_document(run_dir: Path) -> dict[str, Any]:
    """A result.json with every key the contract lists, values taken from a real IO500 run."""
    run = load_run(run_dir)
    phases = []
    for name in run.extra["phase_order"]:
        phase = run.phases[name]
        writes = name.endswith("-write") and name in SCORED_PHASES
        phases.append(
            {
                "name": name,
                "group": phase.group.value,
                "unit": phase.unit,
                "score": phase.value,
                "time": phase.time,
                "t_start": "2025-10-21T12:48:09Z",
                "t_end": "2025-10-21T12:56:12Z",
                "valid": True,
                "invalid_reasons": [],
                "items": 1000,
                "bytes": 4096000,
                "verify_errors": 0,
                "stonewall": {
                    "deadline_s": 300,
                    "items_at_deadline_max": 900,
                    "items_at_deadline_sum": 3500,
                    "wearout_items": 100,
                }
                if writes
                else None,
                "ranks": [
                    {
                        "rank": r,
                        "host": "node1",
                        "start": 0.0,
                        "first_done": 1.0,
                        "end": phase.time,
                        "items": 250,
                        "bytes": 1024000,
                        "rate": 2.5,
                    }
                    for r in range(4)
                ],
                "timeseries": {
                    "bucket_s": 1.0,
                    "aggregate": [1, 2],
                    "per_rank": [[1], [1]],
                },
                "extra": {"found": 69124, "scanned": 4874241} if name == "find" else {},
            }
        )
    assert run.printed is not None
    return {
        "schema": "ioscore-result/1",
        "version": "v0.1.0-3-gabcdef0",
        "mode": "standard",
        "timestamp": "2025.10.21-12.48.03",
        "start": "2025-10-21T12:48:09Z",
        "end": "2025-10-21T13:52:35Z",
        "procs": 320,
        "nodes": 40,
        "ppn0": 8,
        "hosts": ["node1"],
        "valid": True,
        "invalid_reasons": [],
        # config.ini prints unset options empty; result.json says null.
        "config": {
            section: {
                key: (None if value == "" and not key.startswith("external-") else value)
                for key, value in options.items()
            }
            for section, options in run.config.items()
        },
        "config_hash": run.config_hash,
        "score_hash": "0",
        "scores": {
            "bw": run.printed.bw,
            "md": run.printed.md,
            "total": run.printed.total,
            "valid": True,
        },
        "phases": phases,
    }


@pytest.fixture
def json_run(copy_run) -> Path:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    (run_dir / "result.json").write_text(json.dumps(contract_document(run_dir)), "utf-8")
    return run_dir


def test_result_json_preferred_and_parsed(json_run: Path) -> None:
    run = load_run(json_run)
    assert run.format == "ioscore-json"
    assert run.version == "v0.1.0-3-gabcdef0"
    assert run.procs == 320 and run.extra["nodes"] == 40
    assert set(SCORED_PHASES) <= set(run.phases)
    assert run.phases["find"].extra["found"] == 69124
    assert len(run.phases["ior-easy-write"].ranks) == 4
    assert run.phases["ior-easy-write"].extra["stonewall"]["deadline_s"] == 300
    scores = recompute_scores(run)
    assert scores.total == pytest.approx(10.078942, rel=1e-6)
    issues = check(run, CheckContext())
    assert is_valid(issues), issues
    assert run.start is not None and run.start.year == 2025


def test_result_json_through_load_path(json_run: Path) -> None:
    assert [r.format for r in load_path(json_run)] == ["ioscore-json"]


def test_result_json_errors_name_the_problem(json_run: Path) -> None:
    target = json_run / "result.json"
    text = target.read_text("utf-8")
    target.write_text(text[: len(text) // 2], "utf-8")  # truncated
    with pytest.raises(ResultFormatError, match="invalid JSON") as info:
        load_run(json_run)
    assert info.value.line == 1

    document = json.loads(json.dumps(contract_document(DEV / SC25_RUN)))
    document["schema"] = "something-else/9"
    target.write_text(json.dumps(document), "utf-8")
    with pytest.raises(ResultFormatError, match="unknown schema"):
        load_run(json_run)

    document["schema"] = "ioscore-result/1"
    del document["phases"][0]["score"]
    target.write_text(json.dumps(document, indent=1), "utf-8")
    with pytest.raises(ResultFormatError, match="score"):
        load_run(json_run)


def test_invalid_run_in_json_is_flagged(json_run: Path) -> None:
    target = json_run / "result.json"
    document = json.loads(target.read_text("utf-8"))
    document["valid"] = False
    document["invalid_reasons"] = ["pause-dir is set"]
    document["scores"]["valid"] = False
    target.write_text(json.dumps(document), "utf-8")
    issues = check(load_run(json_run), CheckContext())
    assert not is_valid(issues)
    assert any(i.rule == "invalid-markers" and "pause-dir" in str(i.actual) for i in issues)
