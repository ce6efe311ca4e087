"""Pure functions of the acceptance library: targets, sizing arithmetic, the gap test."""

from __future__ import annotations

import pytest

from ioscore.acceptance.modality import two_groups
from ioscore.acceptance.sizing import format_size, parse_size, size_ior, size_mdtest
from ioscore.acceptance.targets import TargetError, parse_target

GIB = 1 << 30


@pytest.mark.parametrize(
    ("text", "operation", "canonical"),
    [
        ("write >= 700 GB/s", "write", 700e9),
        ("read ≥ 1.5 TiB/s", "read", 1.5 * (1 << 40)),
        ("creates >= 6,800/s", "file-write", 6800.0),
        ("removals >= 20 kIOPS", "file-delete", 20000.0),
        ("write >= 300000 IOPS", "write", 300000.0),
        ("dir-stats >= 1,234,567.5 ops/s", "dir-stat", 1234567.5),
        ("read >= 512MiB/s", "read", 512.0 * (1 << 20)),
        ("dir-renames >= 900/s", "dir-rename", 900.0),
    ],
)
def test_targets_parse_strictly(text: str, operation: str, canonical: float) -> None:
    target = parse_target(text)
    assert target.operation == operation
    assert target.threshold_canonical == pytest.approx(canonical)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("write >= 700 gb/s", "unknown unit 'gb/s'"),
        ("write > 700 GB/s", "expected 'OPERATION >= NUMBER UNIT'"),
        ("write >= 7,00 GB/s", "is not a number"),
        ("writes >= 700 GB/s", "unknown operation 'writes'"),
        ("creates >= 7 GB/s", "give a rate"),
        ("write >= 0 GB/s", "above 0"),
        ("write >= " + "9" * 300 + " GB/s", "longer than"),
    ],
)
def test_bad_targets_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_target(text)


def test_sizes_round_trip() -> None:
    assert parse_size("4k") == 4096 and parse_size("8G") == 8 * GIB and parse_size("47008") == 47008
    assert format_size(3 * GIB) == "3g" and format_size(47008) == "47008"
    with pytest.raises(ValueError, match="not a size"):
        parse_size("4 kb")


def test_ior_size_from_ram_when_the_system_is_slow() -> None:
    # 256 GiB RAM, K=3, 300 s at 1 GiB/s per node (300 GiB): RAM decides: 768 GiB per node.
    size = size_ior(256 * GIB, 64, 1 << 20, 1.0 * GIB, 3.0, 300.0)
    assert size.by_cache and size.per_node_bytes == 768 * GIB
    assert size.block == 12 * GIB and size.segments == 12 * 1024
    assert size.options() == "-t 1m -b 12g -s 1"
    assert size.segmented_options() == "-t 1m -b 1m -s 12288"
    assert size.expected_seconds == pytest.approx(768.0)


def test_ior_size_from_duration_when_the_system_is_fast() -> None:
    # 10 GiB/s per node for 300 s = 3000 GiB > 3 x 64 GiB; rounded up to whole 4 MiB transfers.
    size = size_ior(64 * GIB, 7, 4 << 20, 10.0 * GIB, 3.0, 300.0)
    assert not size.by_cache
    assert size.block % (4 << 20) == 0 and size.block * 7 >= 3000 * GIB
    assert size.block * 7 - 3000 * GIB < 7 * (4 << 20)
    assert size_mdtest(1234.5, 300) == 370350
    with pytest.raises(ValueError):
        size_ior(0, 1, 1, None, 3, 300)


def test_gap_test_finds_two_groups_and_not_noise() -> None:
    rates = [1.1] * 30 + [0.4, 0.41]
    groups = two_groups(rates)
    assert groups is not None and len(groups.low) == 2 and len(groups.high) == 30
    assert groups.high_median == pytest.approx(1.1) and groups.low_median == pytest.approx(0.405)
    # tight noise (a few per cent), a single outlier within the spread, or too few values
    assert two_groups([1.0, 1.02, 0.98, 1.01, 0.99]) is None
    assert two_groups([1.0, 1.5, 2.0, 2.5, 3.0]) is None
    assert two_groups([1.0, 0.1]) is None
