"""Hardware plausibility: ceilings from a system description, findings with their arithmetic,
on a real archive run and on a real run of the suite."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import (
    HostAggregate,
    PhaseResult,
    RankStat,
    RankSummary,
    find_runs,
    load_run,
)
from ioscore.results.plausibility import (
    GiB,
    ReadOfWrite,
    beyond_hardware,
    cache_findings,
    ceilings,
    node_bytes,
    rate,
    run_findings,
    run_rates,
    run_reads,
    size,
    written_per_node,
)
from ioscore.system_description import EXAMPLE_PATH, validate
from tests.fixtures.tiny_suite import tiny_suite_results
from tests.results.conftest import SC25_RUN


def example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
    return data


def with_device_speed(data: dict[str, Any], value: float, unit: str = "GB/s") -> dict[str, Any]:
    data = copy.deepcopy(data)
    for group in data["server_groups"]:
        for media in group["media"]:
            media["peak_throughput"] = {"value": value, "unit": unit}
    assert validate(data) == []
    return data


def test_ceilings_of_the_schema_example_with_their_arithmetic() -> None:
    by_name = {c.name: c for c in ceilings(with_device_speed(example(), 7))}
    assert by_name["client network"].bytes_per_s == 5200e9 / 8
    assert "5,200 Gbit/s" in by_name["client network"].arithmetic
    assert by_name["server network"].bytes_per_s == 3200e9 / 8
    # only the data servers' devices: 6 OSS x 24 SSD x 7 GB/s (the MDS are left out)
    assert by_name["storage devices"].bytes_per_s == 6 * 24 * 7e9
    assert by_name["storage devices"].arithmetic == "6 OSS x 24 SSD x 7 GB/s"


def test_ceilings_from_links_when_the_run_declares_no_aggregate() -> None:
    data = example()
    del data["run"]["client_network_bandwidth"], data["run"]["server_network_bandwidth"]
    by_name = {c.name: c for c in ceilings(data)}
    assert by_name["client network"].bytes_per_s == 13 * 400e9 / 8
    assert by_name["client network"].arithmetic == "13 client nodes x (1 x 400 Gbit/s)"
    assert by_name["server network"].bytes_per_s == 6 * 2 * 400e9 / 8
    assert "storage devices" not in by_name  # no device speed declared: no guess


def test_a_read_beyond_the_client_network_is_named_with_the_arithmetic() -> None:
    findings = beyond_hardware(example(), {"ior-easy-read": 700e9, "ior-easy-write": 300e9})
    assert {(f.phase, f.kind) for f in findings} == {("ior-easy-read", "beyond-hardware")}
    messages = " ".join(f.message for f in findings)
    assert "700 GB/s" in messages and "1.08 times what the client network can carry" in messages
    assert (
        "13 client nodes x (1 x 400 Gbit/s), as declared for the run's client nodes "
        "(5,200 Gbit/s) = 650 GB/s = 605 GiB/s" in messages
    )
    assert "1.75 times what the server network can carry" in messages
    # within the margin for nominal speeds: not a finding
    assert beyond_hardware(example(), {"ior-easy-read": 655e9}) == [
        f
        for f in beyond_hardware(example(), {"ior-easy-read": 655e9})
        if "server network" in f.message
    ]


def test_numbers_are_written_as_the_site_writes_them() -> None:
    """Three significant digits, thousands separated, as on the run page's own table; the
    declared figures as declared, separated; never 1e+06 or 2e+03."""
    link = {"value": 100_000, "unit": "Mbit/s"}
    data = {
        "run": {
            "client_nodes": 10,
            "client_network_bandwidth": {"value": 1_000_000, "unit": "Mbit/s"},
        },
        "client_node_groups": [{"interconnects": [{"speed": link}]}],
    }
    (finding,) = beyond_hardware(data, {"ior-easy-read": 250e12})
    assert finding.message.startswith(
        "ior-easy-read moved 250 TB/s = 227 TiB/s, 2,000 times what the client network can "
        "carry: 10 client nodes x (1 x 100,000 Mbit/s), as declared for the run's client nodes "
        "(1,000,000 Mbit/s) = 125 GB/s = 116 GiB/s. "
    )
    client, server = beyond_hardware(example(), {"ior-easy-read": 700e9})
    assert "1.08 times" in client.message and "= 650 GB/s = 605 GiB/s" in client.message
    assert "declared for the storage servers: 3,200 Gbit/s = 400 GB/s" in server.message
    data["run"]["client_network_bandwidth"] = {"value": 200, "unit": "Gbit/s"}
    data["client_node_groups"][0]["interconnects"][0]["speed"] = {"value": 20, "unit": "Gbit/s"}
    (finding,) = beyond_hardware(data, {"ior-easy-write": 50e9})
    assert "2.00 times" in finding.message and "= 25.0 GB/s = 23.3 GiB/s." in finding.message
    assert rate(999.7e9) == "1,000 GB/s = 931 GiB/s"
    assert size(1500 * 2**40) == "1,500 TiB" and size(3 * 2**30) == "3.00 GiB"


def test_a_real_archive_run_against_a_description_too_small_for_it(corpus_dir: Path) -> None:
    run = load_run(corpus_dir / "io500-submissions" / "dev" / SC25_RUN)
    rates = run_rates(run)
    assert set(rates) >= {"ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read"}
    assert rates["ior-easy-read"] == run.phases["ior-easy-read"].value * GiB
    slowest = min(rates.values())
    data = example()
    data["run"]["client_network_bandwidth"] = {"value": slowest / 2 / 1e9, "unit": "GB/s"}
    data["run"]["server_network_bandwidth"] = {"value": 1000, "unit": "TB/s"}
    findings = run_findings(run, data)
    assert {f.phase for f in findings if f.kind == "beyond-hardware"} == set(rates)
    assert run_reads(run) == []  # an archive run has no per-rank bytes: no cache guess
    data["run"]["client_network_bandwidth"] = {"value": 1000, "unit": "TB/s"}
    assert run_findings(run, data) == []


def test_cache_findings_need_same_node_reads_or_small_totals() -> None:
    data = example()  # clients 512 GiB each; 6 OSS x 512 GiB + 2 MDS (not data servers)
    same_node = ReadOfWrite("ior-easy-read", 40 * GiB, 20 * GiB, from_other_node=False)
    other_node = ReadOfWrite("ior-easy-read", 40 * GiB, 20 * GiB, from_other_node=True)
    big = ReadOfWrite("ior-hard-read", 8000 * GiB, 800 * GiB, from_other_node=False)
    found = cache_findings(data, [same_node, other_node, big])
    messages = [f.message for f in found]
    assert sum("page cache" in m for m in messages) == 1  # only the same-node small read
    assert any("fits in a client node's 512 GiB" in m for m in messages)
    assert sum("servers' 3.00 TiB of memory" in m for m in messages) == 2  # 40 GiB twice, not 8000
    assert all(f.phase == "ior-easy-read" for f in found)


@pytest.mark.mpi
def test_a_real_suite_run_on_one_node_reads_its_own_cache() -> None:
    with tiny_suite_results("ioscore-plausibility-") as results:
        run = load_run(find_runs(results)[0])
    reads = {r.phase: r for r in run_reads(run)}
    assert set(reads) == {"ior-easy-read", "ior-hard-read"}
    easy = reads["ior-easy-read"]
    written = sum(s.bytes or 0 for s in run.phases["ior-easy-write"].ranks)
    assert easy.total_bytes == easy.max_bytes_per_node == written > 0
    assert easy.from_other_node is False  # two ranks, one host
    kinds = {(f.phase, f.kind) for f in run_findings(run, example())}
    assert ("ior-easy-read", "cache") in kinds and ("ior-hard-read", "cache") in kinds
    # the IO500 writes fsync inside their time: their data per node is no cache finding
    assert not {k for k in kinds if k[0].endswith("-write")}


def test_data_written_per_node_against_client_memory() -> None:
    data = example()  # clients 512 GiB each
    found = written_per_node(data, {"fpp write": 300 * GiB, "big write": 600 * GiB})
    assert [(f.phase, f.kind) for f in found] == [("fpp write", "cache")]
    assert "wrote at most 300 GiB per client node" in found[0].message
    assert "fits in a client node's 512 GiB of memory" in found[0].message
    del data["client_node_groups"][0]["memory"]
    assert written_per_node(data, {"fpp write": 1 * GiB}) == []  # no memory: no guess


def test_bytes_per_node_from_the_summary_forms_host_aggregates() -> None:
    def host(name: str, moved: float) -> HostAggregate:
        return HostAggregate(name, 4, moved, moved, 1.0, 0.1, 0.5, 0.0, 2.0)

    summary = RankSummary(8, {}, [], [], [0], [1], [host("n1", 3 * GiB), host("n2", 5 * GiB)])
    # the summary form keeps only the named ranks: their bytes would undercount the node
    named = [RankStat(rank=0, host="n1", bytes=GiB / 4), RankStat(rank=1, host="n2", bytes=1.0)]
    write = PhaseResult("ior-easy-write", 1.0, "GiB/s", ranks=named, rank_summary=summary)
    assert node_bytes(write) == {"n1": 3 * GiB, "n2": 5 * GiB}
    unnamed = PhaseResult("ior-easy-write", 1.0, "GiB/s", ranks=[RankStat(rank=0, bytes=1.0)])
    assert node_bytes(unnamed) is None  # a rank without its host: the nodes are unknown
