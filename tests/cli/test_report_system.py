"""`ioscore report --system FILE`: a real acceptance plan run (two ranks on this machine,
POSIX files in a scratch directory) and a real IO500 archive run, each compared with a system
description whose network is too slow for them: warnings with the arithmetic in the text,
JSON and HTML reports; client-cache notes for data that fits in a client node's memory; a
clear refusal of a description that cannot be used."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.system_description import EXAMPLE_PATH, validate
from tests.cli.test_acceptance_plan import cli, plan_results
from tests.results.conftest import SC25_RUN

PLAN = """\
name = "two ranks"
datadir = "{data}"

[layout]
nodes = 1
ppn = 2

[[test]]
name = "fpp"
command = "ior -a POSIX -F -b 4m -t 1m -w -r -k -i 2 -o $DIR/f"

[[test]]
name = "synced"
command = "ior -a POSIX -F -b 4m -t 1m -w -e -k -i 1 -o $DIR/s"
"""


def description(link_mbit: float, nodes: int = 1) -> dict[str, Any]:
    """The schema's example with ``nodes`` client nodes of one ``link_mbit`` Mbit/s link,
    declared as their sum for the run."""
    data: dict[str, Any] = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["run"]["client_nodes"] = nodes
    data["run"]["client_network_bandwidth"] = {"value": link_mbit * nodes, "unit": "Mbit/s"}
    data["client_node_groups"][0]["interconnects"][0]["speed"] = {
        "value": link_mbit,
        "unit": "Mbit/s",
    }
    assert validate(data) == []
    return data


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with plan_results("ioscore-report-system-", PLAN) as path:
        yield path


def test_an_acceptance_run_faster_than_its_network_is_warned(results: Path, tmp_path: Path) -> None:
    system = tmp_path / "system.json"
    system.write_text(json.dumps(description(link_mbit=1)))  # 125 kB/s: far too slow
    html_file = tmp_path / "report.html"
    done = cli("report", str(results), "--system", str(system), "--html", str(html_file))
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    assert f"against the declared hardware ({system}):" in text
    arithmetic = (
        "1 client nodes x (1 x 1 Mbit/s), as declared for the run's client nodes (1 Mbit/s) "
        "= 125 kB/s = 122 KiB/s"
    )
    assert f"  client network: {arithmetic}" in text
    warnings = [line for line in text.splitlines() if line.startswith("  WARNING: ")]
    assert [w.split()[1:3] for w in warnings] == [
        ["fpp", "write"],
        ["fpp", "read"],
        ["synced", "write"],
    ]
    assert all("times what the client network can carry: " + arithmetic in w for w in warnings)
    # 2 ranks x 4 MiB on one node: fits in a client node's 512 GiB, read back on that node
    assert "note: fpp write wrote at most 8.00 MiB per client node" in text
    assert "synced write wrote" not in text  # fsync'd inside the write's time: not cached
    assert "note: fpp read read data written on the same node: at most 8.00 MiB per node" in text

    page = html_file.read_text()
    assert '<h2 id="hardware">Against the declared hardware</h2>' in page
    assert page.count('data-hardware="beyond-hardware"') == 3
    assert "= 125 kB/s = 122 KiB/s" in page

    as_json = cli(
        "report", str(results), "--system", str(system), "--json", "--html", str(html_file)
    )
    hardware = json.loads(as_json.stdout)["hardware"]
    assert [c["name"] for c in hardware["ceilings"]] == ["client network", "server network"]
    kinds = sorted((f["phase"], f["kind"]) for f in hardware["findings"])
    # the read may also have come from the servers' memory (6 OSS x 512 GiB)
    assert kinds == [
        ("fpp read", "beyond-hardware"),
        ("fpp read", "cache"),
        ("fpp read", "cache"),
        ("fpp write", "beyond-hardware"),
        ("fpp write", "cache"),
        ("synced write", "beyond-hardware"),
    ]
    # without --system the report says nothing of hardware
    plain = cli("report", str(results), "--json", "--html", str(html_file))
    assert json.loads(plain.stdout)["hardware"] is None


def test_an_io500_archive_run_gets_the_same_arithmetic(corpus_dir: Path, tmp_path: Path) -> None:
    system = tmp_path / "system.json"
    system.write_text(json.dumps(description(link_mbit=100_000, nodes=2)))  # 2 x 100 Gbit/s
    html_file = tmp_path / "report.html"
    run = corpus_dir / "io500-submissions" / "dev" / SC25_RUN
    done = cli("report", str(run), "--system", str(system), "--html", str(html_file))
    assert done.returncode == 0, done.stderr
    assert (
        "WARNING: ior-easy-read moved 39.5 GB/s = 36.8 GiB/s, 1.58 times what the client "
        "network can carry: 2 client nodes x (1 x 100,000 Mbit/s), as declared for the run's "
        "client nodes (200,000 Mbit/s) = 25.0 GB/s = 23.3 GiB/s"
    ) in done.stdout
    assert "ior-hard-read" not in done.stdout.split("against the declared hardware")[1]
    assert html_file.read_text().count('data-hardware="beyond-hardware"') == 2


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read: No such file or directory"),
        ('{"schema": ', "not JSON: "),
        ('{"schema": "ioscore-system/1"}', "not a valid system description: (top level): 'site'"),
    ],
)
def test_a_description_that_cannot_be_used_is_refused_before_any_report(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    system = tmp_path / "system.json"
    if content is not None:
        system.write_text(content)
    html_file = tmp_path / "report.html"
    done = cli("report", str(tmp_path), "--system", str(system), "--html", str(html_file))
    assert done.returncode == 2
    assert done.stderr.startswith(f"ioscore report: --system {system}: {reason}")
    assert "Traceback" not in done.stderr and not html_file.exists()
