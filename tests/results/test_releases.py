"""Release table: built in, narrowed by the real io500-releases.csv for sc17-sc19."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ioscore.results import BUILTIN_RELEASES, Release, ResultFormatError, get_release
from ioscore.results.releases import base_tag, load_releases_csv

from .conftest import DATA


def test_csv_is_a_submission_list_that_narrows_old_windows() -> None:
    table = load_releases_csv(DATA / "io500-releases.csv")
    sc19 = table["SC19"]
    # Dates of the 50 sc19 submissions in the CSV (2019-06-24 .. 2019-11-12).
    assert sc19.window_start == date(2019, 6, 24)
    assert sc19.window_end == date(2019, 11, 12)
    assert sc19.notes and "submissions" in sc19.notes[0]
    assert table["SC25"] == BUILTIN_RELEASES["SC25"]  # newer releases are not in the CSV


def test_accepts_tag_families() -> None:
    sc25 = get_release("sc25")
    assert sc25.accepts("io500-sc25")
    assert sc25.accepts("io500-sc25-3-g0123456789ab")
    assert not sc25.accepts("io500-isc25_v2")
    assert not sc25.accepts("")
    assert not sc25.accepts("aramco-custom")
    assert get_release("SC20").accepts("io500-sc20_v3")
    assert get_release("SC23").accepts("io500-isc23")  # same commit as sc23


def test_unknown_release() -> None:
    with pytest.raises(KeyError, match="unknown release"):
        get_release("SC99")


def test_broken_csv(tmp_path: Path) -> None:
    bad = tmp_path / "releases.csv"
    bad.write_text('"a";"b"\n"1";"2"\n', encoding="utf-8")
    with pytest.raises(ResultFormatError, match="missing columns"):
        load_releases_csv(bad)


def test_ioscore_versions_against_service_releases() -> None:
    # The service builds Release objects from its own table; ioscore's own tags work too.
    release = Release("TST1", ("v1.0",), date(2026, 1, 1), date(2026, 12, 31))
    assert release.accepts("v1.0")
    assert release.accepts("v1.0-3-gabcdef0")
    assert release.accepts("v1.0-3-gabcdef0-dirty")
    assert not release.accepts("v1.1")
    assert not release.accepts("941acbd-dirty")
    assert base_tag("io500-sc25-26") == "io500-sc25"
    assert base_tag("v1.0-dirty") == "v1.0"
