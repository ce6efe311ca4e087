"""The one formatting module (portal/templatetags/formatting.py) and the run-page helpers
(rankings/run_page.py): numbers rounded to what they measure with their units, ISO dates in
UTC, rule values in words, description and questionnaire with human labels."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from portal.templatetags import formatting as fmt
from rankings import run_page
from rankings.charts import DESCRIPTION_FIELDS
from tests.webapp.helpers import EXAMPLE_SYSTEM, QUESTIONNAIRE


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.00003075599670410156, "0.0000308"),
        (1.23456, "1.23"),
        (12.3456, "12.3"),
        (123.456, "123"),
        (123456.7, "123,457"),  # integer digits are never rounded away
        (-2.5, "-2.50"),
        (0, "0"),
        (None, "\u2013"),
        ("", "\u2013"),
        ("abc", "\u2013"),
        (float("nan"), "\u2013"),
        (float("inf"), "\u2013"),
        (True, "\u2013"),
    ],
)
def test_three_significant_digits(value: object, shown: str) -> None:
    assert fmt.sig(value) == shown


def test_units_are_always_printed_with_the_value() -> None:
    nbsp = "\u00a0"
    assert fmt.gibs(12.3456) == f"12.3{nbsp}GiB/s"
    assert fmt.kiops(1234.5678) == f"1,235{nbsp}kIOPS"
    assert fmt.measured(0.5, "GiB/s") == f"0.500{nbsp}GiB/s"
    assert fmt.gibs(None) == "\u2013"  # no unit after a missing value


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.00003075599670410156, "30.8\u00a0µs"),
        (0.0123, "12.3\u00a0ms"),
        (1.5, "1.50\u00a0s"),
        (301.23456, "301\u00a0s"),
        (0, "0\u00a0s"),
        (None, "\u2013"),
    ],
)
def test_seconds_pick_a_readable_unit(value: object, shown: str) -> None:
    assert fmt.seconds(value) == shown


def test_sizes_rates_and_counts() -> None:
    assert fmt.bytes_iec(1536) == "1.50\u00a0KiB"
    assert fmt.bytes_iec(1.5e15) == "1.33\u00a0PiB"
    assert fmt.bytes_per_second(650e9) == "650\u00a0GB/s"
    assert fmt.count(1234567) == "1,234,567"
    assert fmt.count(2.5) == "2.50"


def test_list_columns_keep_fixed_decimals() -> None:
    assert fmt.num(1234.5) == "1,234.50"
    assert fmt.num(7) == "7"
    assert fmt.num(None) == "\u2013"


def test_ratios_keep_three_significant_digits() -> None:
    """Compare's ratios span decades: fixed decimals would print "0.00" and "1614.02"."""
    assert fmt.ratio(1.2345) == "1.23\u00d7"
    assert fmt.ratio(0.0012345) == "0.00123\u00d7"
    assert fmt.ratio(1614.02) == "1,614\u00d7"
    assert fmt.ratio(None) == "\u2013"


def test_dates_are_iso_and_times_utc() -> None:
    berlin = timezone(timedelta(hours=1))
    assert fmt.iso_date(date(2025, 11, 18)) == "2025-11-18"
    assert fmt.iso_datetime(datetime(2025, 11, 18, 0, 30, tzinfo=berlin)) == "2025-11-17 23:30 UTC"
    assert fmt.iso_date(datetime(2025, 11, 18, 0, 30, tzinfo=berlin)) == "2025-11-17"
    assert fmt.iso_datetime(datetime(2025, 1, 2, 3, 4, tzinfo=UTC)) == "2025-01-02 03:04 UTC"
    assert fmt.iso_datetime(None) == "\u2013"


def test_django_default_date_format_is_iso(settings: object) -> None:
    from django.template import Context, Template

    out = Template("{{ d|date }} {{ d }}").render(Context({"d": date(2025, 3, 4)}))
    assert out == "2025-03-04 2025-03-04"


def _phase(name: str, value: float, valid: bool = True) -> SimpleNamespace:
    return SimpleNamespace(name=name, value=value, valid=valid, unit="kIOPS")


def test_phase_tables_follow_the_library_phase_model() -> None:
    rows = [
        _phase("timestamp", 0.0),
        _phase("mdtest-easy-write", 12.0),
        _phase("ior-easy-write", 3.0),
        _phase("ior-rnd4K-easy-read", 0.4),
        _phase("ior-rnd1K-easy-read", 0.0, valid=False),  # disabled: did not run
    ]
    tables = run_page.phase_tables(rows)
    assert [p.name for p in tables["scored"]] == ["ior-easy-write", "mdtest-easy-write"]
    assert [p.name for p in tables["extended"]] == ["ior-rnd4K-easy-read"]
    assert tables["steps"] == ["timestamp", "ior-rnd1K-easy-read"]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ([], ""),
        ({}, ""),
        (None, ""),
        ("", ""),
        (300, "300"),
        (0.00003075599670410156, "0.0000308"),
        (["io500-sc25", "io500-isc25"], "io500-sc25, io500-isc25"),
        ({"min_s": 300, "got_s": 1.5}, "Min s 300; Got s 1.50"),
        (True, "yes"),
    ],
)
def test_rule_values_in_plain_words(value: object, words: str) -> None:
    assert run_page.plain_value(value) == words


def test_issue_without_expected_value_says_nothing_about_it() -> None:
    issue = SimpleNamespace(
        severity="invalid",
        rule="stonewall-time",
        phase="",
        message="stonewall-time is 1 s; at least 300 s needed",
        expected=[],
        actual=None,
    )
    shown = run_page.plain_issue(issue)
    assert shown["verdict"] == "Blocks the submission"
    assert shown["title"] == "Stonewall time"
    assert shown["expected"] == "" and shown["actual"] == ""


def test_description_is_grouped_with_human_labels_and_units() -> None:
    data = json.loads(EXAMPLE_SYSTEM.read_text())
    data["submitter"] = {"show_publicly": True}
    groups = run_page.description_groups(SimpleNamespace(data=data))
    titles = [g["title"] for g in groups]
    assert titles[:3] == ["Site", "Client system", "Client nodes: compute"]
    assert "Storage servers: MDS" in titles and "Storage servers: OSS" in titles
    assert not any("ubmitter" in t for t in titles)
    rows = dict(groups[titles.index("Client nodes: compute")]["rows"])
    assert rows["OS distribution"] == "RockyLinux"
    assert rows["Processor \u203a Frequency"] == "3.10\u00a0GHz"
    assert rows["Memory \u203a Capacity"] == "512\u00a0GiB"
    assert rows["Interconnects \u203a RDMA"] == "yes"
    text = json.dumps(groups)
    assert '{"value"' not in text and "{'value'" not in text


def test_description_without_tree_uses_the_flattened_columns() -> None:
    columns = {name: None for name, _ in DESCRIPTION_FIELDS}
    columns.update(fs_type="Lustre", storage_capacity_bytes=2**50)
    flat = SimpleNamespace(data={}, **columns)
    groups = run_page.description_groups(flat)
    assert groups == [
        {"title": "Summary", "rows": [("FS type", "Lustre"), ("Storage capacity", "1.00\u00a0PiB")]}
    ]


def test_questionnaire_has_question_labels_and_level_explanations() -> None:
    questionnaire = SimpleNamespace(
        answers={**QUESTIONNAIRE, "feedback": "none"},
        claimed_level="fully_reproducible",
        assigned_level="proprietary",
        submission=SimpleNamespace(owner_id=7),
    )
    owner = SimpleNamespace(is_authenticated=True, pk=7, _ioscore_groups=set())
    shown = run_page.questionnaire_view(questionnaire, owner)
    labels = [label for label, _ in shown["answers"]]
    assert labels[0] == "System purpose" and labels[-1] == "Free feedback"
    assert "expected_level" not in labels and "purpose" not in labels
    assert shown["claimed"]["label"] == "Fully Reproducible"
    assert "obtainable by anyone" in shown["claimed"]["explanation"]
    assert shown["assigned"]["label"] == "Proprietary"
    assert "Research lists" in shown["assigned"]["explanation"]
    assert len(shown["levels"]) == 4


def _reversed(value: Any) -> Any:
    """Keys in the opposite order at every level (PostgreSQL's jsonb reorders them too)."""
    if isinstance(value, dict):
        return {k: _reversed(v) for k, v in reversed(list(value.items()))}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def test_description_follows_the_schema_order_whatever_order_was_stored() -> None:
    data = json.loads(EXAMPLE_SYSTEM.read_text())
    groups = run_page.description_groups(SimpleNamespace(data=_reversed(data)))
    assert [g["title"] for g in groups] == [
        "Site",
        "Client system",
        "Client nodes: compute",
        "This run",
        "Storage system",
        "File system",
        "Storage servers: MDS",
        "Storage servers: OSS",
    ]
    site = [label for label, _ in groups[0]["rows"]]
    assert site == ["Abbreviation", "Institution", "Country", "Location", "Web page"]
    nodes = [label for label, _ in groups[2]["rows"]]
    assert nodes[0] == "Name" and nodes.index("Processor \u203a Model") < nodes.index(
        "Memory \u203a Capacity"
    )
