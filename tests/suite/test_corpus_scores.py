"""Scores and hashes recomputed by the suite's own code for the real IO500 corpus.

For every submission in ../shared/data/io500-submissions/index.csv, `ioscore-suite
--score-from` reads the primary result_summary.txt (and result.txt where there is one),
recomputes BW, MD and TOTAL from the printed phase values with the suite's scoring code, and the
test compares them with the published scores.

Documented exceptions (BENCHMARK-RULES §3.3, §7.3):
* bash-era summaries (output_format "legacy-script") print phase values with 3 decimals, so a
  group score recomputed from them can differ from the published one by up to
  (1/n) * sum(0.0005 / v_i). There the test checks that bound, and checks the published TOTAL
  against sqrt(BW * MD) of the printed group scores within 1e-5.
* rows without any result file (output_format empty) have nothing to recompute.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest
from suite_helpers import CORPUS_DIR, run_helper

pytestmark = pytest.mark.mpi

REL_TOL = 1e-5


def corpus_rows() -> list[dict[str, str]]:
    index = CORPUS_DIR / "index.csv"
    if not index.is_file():
        pytest.skip(f"IO500 corpus not found at {CORPUS_DIR}")
    with index.open(newline="") as f:
        return list(csv.DictReader(f))


def parse_blocks(text: str) -> dict[str, dict[str, str]]:
    """--score-from output: blocks of `key = value` lines, one per file, keyed by file."""
    blocks: dict[str, dict[str, str]] = {}
    for chunk in text.strip().split("\n\n"):
        fields = dict(line.split(" = ", 1) for line in chunk.splitlines() if " = " in line)
        blocks[fields["file"]] = fields
    return blocks


def score_files(suite_bin: Path, files: list[Path]) -> dict[str, dict[str, str]]:
    proc = run_helper("--score-from", *map(str, files))
    assert proc.returncode == 0, proc.stderr
    return parse_blocks(proc.stdout)


def rel_err(a: float, b: float) -> float:
    return abs(a - b) / abs(b) if b else abs(a)


def rounding_bound(values: list[float], half_unit: float) -> float:
    """Relative error of a geometric mean whose inputs were rounded to +-half_unit."""
    positive = [v for v in values if v > 0]
    return sum(half_unit / v for v in positive) / len(positive) if positive else 0.0


def test_every_submission_score_recomputed(suite_bin: Path) -> None:
    rows = corpus_rows()
    with_files = [r for r in rows if r["primary_result_summary"]]
    files = [
        CORPUS_DIR / "dev" / r["submission_id"] / r["primary_result_summary"] for r in with_files
    ]
    blocks = score_files(suite_bin, files)
    checked_exact = checked_legacy = 0
    for row, path in zip(with_files, files, strict=True):
        got = blocks[str(path)]
        published = {k: float(row[f"score_{k}"]) for k in ("bandwidth", "iops", "total")}
        recomputed = {
            "bandwidth": float(got["BW"]),
            "iops": float(got["MD"]),
            "total": float(got["SCORE"]),
        }
        assert int(got["phases"]) == 12, (row["submission_id"], got)
        if row["output_format"] == "c-app":
            for key in published:
                assert rel_err(recomputed[key], published[key]) <= REL_TOL, (
                    row["submission_id"],
                    key,
                    recomputed[key],
                    published[key],
                )
            checked_exact += 1
        else:
            phases = {k[6:]: float(v) for k, v in got.items() if k.startswith("phase.")}
            bw_vals = [v for k, v in phases.items() if k.startswith("ior")]
            md_vals = [v for k, v in phases.items() if not k.startswith("ior")]
            for key, vals in (("bandwidth", bw_vals), ("iops", md_vals)):
                bound = rounding_bound(vals, 0.0005) * 1.01 + REL_TOL
                assert rel_err(recomputed[key], published[key]) <= bound, (
                    row["submission_id"],
                    key,
                    recomputed[key],
                    published[key],
                    bound,
                )
            # sqrt era: TOTAL from the printed group scores (themselves ~6 digits)
            expected_total = math.sqrt(published["bandwidth"] * published["iops"])
            assert rel_err(expected_total, published["total"]) <= REL_TOL, row["submission_id"]
            assert rel_err(float(got["SCORE-from-printed-groups"]), published["total"]) <= REL_TOL
            checked_legacy += 1
    skipped = [r["submission_id"] for r in rows if not r["primary_result_summary"]]
    assert checked_exact + checked_legacy + len(skipped) == len(rows)
    assert checked_exact >= 90 and checked_legacy >= 60
    assert len(skipped) <= 2, skipped


def result_txt_rows() -> list[dict[str, str]]:
    return [r for r in corpus_rows() if r["primary_result_txt"]]


def test_score_hash_recomputed_for_real_result_txt(suite_bin: Path) -> None:
    rows = result_txt_rows()
    files = [CORPUS_DIR / "dev" / r["submission_id"] / r["primary_result_txt"] for r in rows]
    blocks = score_files(suite_bin, files)
    equal, modified_builds = 0, []
    for row, path in zip(rows, files, strict=True):
        got = blocks[str(path)]
        if got["score-hash"] == got["printed.hash"]:
            equal += 1
            continue
        # Exception (BENCHMARK-RULES §3.3): locally modified reference builds (version with a bare
        # "-<changed lines>" suffix, or empty) hashed something else than they printed.
        version = got.get("version", "")
        assert re.fullmatch(r"(.*-\d+)?", version), (
            row["submission_id"],
            version,
            got["score-hash"],
            got["printed.hash"],
        )
        modified_builds.append(row["submission_id"])
    print(f"score hash: {equal} of {len(rows)} equal; modified builds: {modified_builds}")
    assert equal >= len(rows) - 6, modified_builds
    # the recomputed group scores also agree with result.txt's [SCORE] section
    for path in files:
        got = blocks[str(path)]
        for key in ("MD", "BW", "SCORE"):
            assert rel_err(float(got[key]), float(got[f"printed.{key}"])) <= REL_TOL, (path, key)


def test_config_hash_recomputed_from_config_ini(suite_bin: Path) -> None:
    rows = result_txt_rows()
    pairs: list[tuple[str, Path, str]] = []
    missing = []
    for row in rows:
        result_txt = CORPUS_DIR / "dev" / row["submission_id"] / row["primary_result_txt"]
        printed = next(
            line.split("=", 1)[1].strip()
            for line in result_txt.read_text(errors="replace").splitlines()
            if line.startswith("config-hash")
        )
        config_ini = result_txt.parent / "config.ini"
        if config_ini.is_file():
            pairs.append((row["submission_id"], config_ini, printed))
        else:
            missing.append(row["submission_id"])
    proc = run_helper("--hash-config-ini", *(str(p) for _, p, _ in pairs))
    assert proc.returncode == 0, proc.stderr
    hashes: dict[str, str] = {}
    for line in proc.stdout.splitlines():  # "<hash> <path>"
        value, path = line.split(" ", 1)
        hashes[path] = value
    equal, overwritten = 0, []
    for submission, config_ini, printed in pairs:
        if hashes[str(config_ini)] == printed:
            equal += 1
            continue
        # Exception (BENCHMARK-RULES §3.3, §8.12): io500.sh copies the user's INI over the generated
        # config.ini. The generated file has every section (incl. [timestamp]) and no comments.
        text = config_ini.read_text(errors="replace")
        generated_shape = "\n[timestamp]\n" in text and "#" not in text and ";" not in text
        assert not generated_shape, (submission, hashes[str(config_ini)], printed)
        overwritten.append(submission)
    print(
        f"config hash: {equal} equal, {len(overwritten)} user-overwritten config.ini "
        f"({overwritten}), {len(missing)} without config.ini"
    )
    assert equal >= len(pairs) - 12, overwritten
