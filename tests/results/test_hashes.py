"""Config and score hashes (BENCHMARK-RULES §5.4) against the spec's vectors and the corpus."""

from __future__ import annotations

import re

from ioscore.results import config_hash, find_runs, kv_hash, load_run, verify_hashes
from ioscore.results.hashing import format_hash, score_hash
from ioscore.results.model import ScoreGroup

from .conftest import DEV, SC21_EXTENDED, SC25_RUN

DIRTY_OR_EMPTY = re.compile(r"^$|-\d+$")


def all_c_app_runs() -> list:  # type: ignore[type-arg]
    runs = [load_run(r) for d in sorted(DEV.iterdir()) for r in find_runs(d)]
    return [run for run in runs if run.format != "bash"]


def test_spec_test_vectors() -> None:
    assert format_hash(kv_hash("run", "TRUE")) == "97DB9"  # 0x00097DB9
    assert format_hash(kv_hash("datadir", "./datafiles")) == "29A18F1D"
    assert format_hash(kv_hash("external-mpi-args", "")) == "699132FB"


def test_sc25_all_defaults_config_hash() -> None:
    # The sc25 table with every default is 9736CCCB; the real run only changed datadir.
    config = load_run(DEV / SC25_RUN).config
    assert config_hash(config) == "263E5AFE"
    config["global"]["datadir"] = "./datafiles"
    assert config_hash(config) == "9736CCCB"


def test_sc25_score_hash_from_the_spec() -> None:
    run = load_run(DEV / SC25_RUN)
    check = verify_hashes(run)
    assert check.score_expected == check.score_actual == "7960B935"
    assert check.config_ok is True


def test_score_hash_marks_invalid_runs() -> None:
    pairs = [("find", 1.0)]
    assert score_hash("v", pairs, 1, 1, 1, True) != score_hash("v", pairs, 1, 1, 1, False)
    # XOR: the valid=NO pair toggles exactly that pair's hash.
    valid = int(score_hash("v", pairs, 1, 1, 1, True), 16)
    invalid = int(score_hash("v", pairs, 1, 1, 1, False), 16)
    assert valid ^ invalid == kv_hash("valid", "NO")


def test_corpus_config_hashes_reproduce_unless_config_ini_was_overwritten() -> None:
    matched = mismatched = 0
    for run in all_c_app_runs():
        check = verify_hashes(run)
        if check.config_ok is None:
            assert check.config_reason  # no result.txt or no config.ini: says why
            continue
        if check.config_ok:
            matched += 1
            assert "config_overwritten" not in run.extra
        else:
            # io500.sh copied the user's INI over the generated config.ini (BENCHMARK-RULES §8.12).
            mismatched += 1
            assert "config_overwritten" in run.extra, run.run_dir
    assert matched >= 80
    assert mismatched == 6


def test_corpus_score_hashes_reproduce_except_modified_builds() -> None:
    matched = 0
    failures = []
    for run in all_c_app_runs():
        check = verify_hashes(run)
        if check.score_ok is None:
            assert run.score_hash is None  # no result.txt next to the summary
            continue
        if check.score_ok:
            matched += 1
        else:
            failures.append(run.version)
    assert matched >= 80
    # Spec §3.3: the only failures are locally modified builds ("-12") or empty versions.
    assert failures and all(DIRTY_OR_EMPTY.search(v or "") for v in failures), failures


def test_extended_score_hash_of_sc21_runs() -> None:
    for submission in (SC21_EXTENDED, "582"):
        run = load_run(DEV / submission)
        check = verify_hashes(run)
        assert check.extended_expected == run.score_hash_extended
        assert check.extended_ok is True
        optional = [p.name for p in run.phases.values() if p.group != ScoreGroup.NONE]
        assert len(optional) == 19  # 12 mandatory + 7 optional scored phases
    assert verify_hashes(load_run(DEV / SC25_RUN)).extended_ok is None  # standard mode
