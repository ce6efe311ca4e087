"""The bounded result.json on real MPI: runs above a low rank-detail threshold have
the summary form (named slowest/fastest ranks, quantiles, histogram, per-host aggregates,
aggregate time series only), valid against the schema and consistent with the phase totals;
at or below the threshold the full form is unchanged. 64/128/256 ranks run oversubscribed with
tiny sizes; the 256-rank run takes minutes here, most of it mpirun starting 256 processes on 2
cores."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import (
    MPI_ENV,
    SCHEMA_PATH,
    Workspace,
    only_result_dir,
    run_suite,
)
from test_verify_and_safety import start_suite, stop, wait_for_pause

from ioscore.results import rank_csv

THRESHOLD = 32
PPN = 16  # --simulate-ppn: np / 16 hosts
# the per-rank file is gzip-compressed when the suite was built with zlib (pkg-config zlib)
HAS_ZLIB = (
    shutil.which("pkg-config") is not None
    and subprocess.run(["pkg-config", "--exists", "zlib"], check=False).returncode == 0
)
FULL_SUFFIX = ".csv.gz" if HAS_ZLIB else ".csv"
# every phase at 64 ranks; at 128 and 256 only an IOR write/read pair and an mdtest write,
# which exercise both metrics
FEW_PHASES = "".join(
    f"[{name}]\nrun = FALSE\n"
    for name in (
        "ior-hard-write",
        "mdtest-hard-write",
        "find",
        "mdtest-easy-stat",
        "ior-hard-read",
        "mdtest-hard-stat",
        "mdtest-easy-delete",
        "mdtest-hard-read",
        "mdtest-hard-delete",
        "ior-rnd4K-easy-read",
    )
)


def tiny_ini(ws: Workspace, extra: str = "") -> str:
    """Every phase with the smallest sizes that still do I/O; `extra`: more sections."""
    return (
        f"[global]\ndatadir = {ws.data}\nresultdir = {ws.results}\n"
        "[debug]\nstonewall-time = 1\n"
        "[ior-easy]\ntransferSize = 4k\nblockSize = 16k\n"
        "[ior-hard]\nsegmentCount = 2\n"
        "[mdtest-easy]\nn = 4\n"
        "[mdtest-hard]\nn = 4\n"
        f"{extra}"
    )


def run(np: int, ws: Workspace, *args: str, extra: str = "", timeout: float = 900) -> Path:
    ini = ws.write_ini(tiny_ini(ws, extra))
    run_suite(np, str(ini), "-q", *args, timeout=timeout, check=True)
    return only_result_dir(ws)


def check_summary_phase(phase: dict, np: int) -> None:
    summary = phase["rank_summary"]
    name = phase["name"]
    assert summary["count"] == np, name
    ranks = phase["ranks"]
    ids = [r["rank"] for r in ranks]
    assert ids == sorted(ids) and len(ids) == len(set(ids)) == 32, name
    assert set(ids) == set(summary["slowest"]) | set(summary["fastest"]), name
    rate = {r["rank"]: r["rate"] for r in ranks}
    slow = [rate[r] for r in summary["slowest"]]
    fast = [rate[r] for r in summary["fastest"]]
    assert slow == sorted(slow) and fast == sorted(fast, reverse=True), name
    assert max(slow) <= min(fast), name
    q = summary["quantiles"]
    for field in ("rate", "start", "first_done", "end"):
        values = [
            q[field][k] for k in ("p0", "p1", "p5", "p25", "p50", "p75", "p95", "p99", "p100")
        ]
        assert values == sorted(values), (name, field)
    # p0 and p100 are exact: the slowest and fastest named ranks
    assert q["rate"]["p0"] == slow[0] and q["rate"]["p100"] == fast[0], name
    assert q["start"]["p0"] == 0
    hist = summary["histogram"]["rate"]
    assert sum(hist["counts"]) == np and len(hist["edges"]) == len(hist["counts"]) + 1, name
    assert hist["edges"][0] <= slow[0] and fast[0] <= hist["edges"][-1], name
    hosts = summary["hosts"]
    assert [h["host"] for h in hosts] == sorted(h["host"] for h in hosts)
    assert len(hosts) == np // PPN, name
    assert sum(h["ranks"] for h in hosts) == np
    assert sum(h["items"] for h in hosts) == phase["items"], name
    assert sum(h["bytes"] for h in hosts) == phase["bytes"], name
    assert min(h["rate_min"] for h in hosts) == slow[0], name
    assert max(h["rate_max"] for h in hosts) == fast[0], name
    assert phase["timeseries"]["per_rank"] == [], name


@pytest.mark.mpi
@pytest.mark.parametrize("np", [64, 128, 256])
def test_summary_form_on_real_mpi(suite_bin: Path, workspace: Workspace, np: int) -> None:
    full = np == 64  # the per-rank file and every phase once; fewer phases above
    args = ["--rank-detail-threshold", str(THRESHOLD), "--simulate-ppn", str(PPN)]
    if full:
        args.append("--rank-detail-full")
    resdir = run(np, workspace, *args, extra="" if full else FEW_PHASES)
    doc = json.loads((resdir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["schema"] == "ioscore-result/1.1"
    assert doc["rank_detail"] == {
        "form": "summary",
        "threshold": THRESHOLD,
        "full_file": f"ranks-{{phase}}{FULL_SUFFIX}" if full else None,
    }
    assert doc["procs"] == np and len(doc["hosts"]) == np // PPN
    ran = [p for p in doc["phases"] if p["ran"]]
    assert len(ran) == (14 if full else 4)
    for phase in ran:
        check_summary_phase(phase, np)
    write = next(p for p in doc["phases"] if p["name"] == "ior-easy-write")
    assert sum(write["timeseries"]["aggregate"]) == write["items"]
    # the per-rank CSV: the named ranks, which the library's reader takes, and a note
    rows = rank_csv(resdir, "ior-easy-write")
    assert [r["rank"] for r in rows] == [r["rank"] for r in write["ranks"]]
    note = (resdir / "ior-easy-write.csv").read_text().splitlines()[-1]
    assert note.startswith(f"# summary form: only the 16 slowest and 16 fastest of {np} ranks")
    series = (resdir / "ior-easy-write-timeseries.csv").read_text().splitlines()[1:]
    assert series and {line.split(",")[2] for line in series} == {"all"}
    log = (resdir / "ior-easy-write.txt").read_text()
    assert f"phase ior-easy-write, {np} ranks" in log
    assert f"only the 16 slowest and 16 fastest of {np} ranks" in log
    if full:
        name = f"ranks-ior-easy-write{FULL_SUFFIX}"
        assert write["rank_summary"]["full_file"] == name
        opener = gzip.open if name.endswith(".gz") else open
        with opener(resdir / name, "rt") as f:
            lines = f.read().splitlines()
        assert lines[0] == "rank,host,start,first_done,end,items,bytes,rate,verify_errors,io_error"
        cells = [line.split(",") for line in lines[1:]]
        assert [int(c[0]) for c in cells] == list(range(np))
        assert sum(int(c[5]) for c in cells) == write["items"]
        slowest = write["rank_summary"]["quantiles"]["rate"]["p0"]
        assert min(float(c[7]) for c in cells) == pytest.approx(slowest, rel=1e-9)
        assert {c[1] for c in cells} == set(doc["hosts"])
    else:
        assert not list(resdir.glob("ranks-*"))


@pytest.mark.mpi
@pytest.mark.parametrize(("threshold", "form"), [(4, "full"), (3, "summary")])
def test_threshold_boundary(
    suite_bin: Path, workspace: Workspace, threshold: int, form: str
) -> None:
    """At the threshold the full form; one rank above it the summary, naming every rank."""
    resdir = run(4, workspace, "--rank-detail-threshold", str(threshold), extra=FEW_PHASES)
    doc = json.loads((resdir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["rank_detail"]["form"] == form
    assert doc["schema"] == ("ioscore-result/1" if form == "full" else "ioscore-result/1.1")
    for phase in (p for p in doc["phases"] if p["ran"]):
        assert [r["rank"] for r in phase["ranks"]] == [0, 1, 2, 3]
        assert ("rank_summary" in phase) == (form == "summary")
        assert len(phase["timeseries"]["per_rank"]) == (4 if form == "full" else 0)
        if form == "summary":
            summary = phase["rank_summary"]
            assert summary["count"] == 4 and len(summary["slowest"]) == 4
            assert sorted(summary["slowest"]) == sorted(summary["fastest"]) == [0, 1, 2, 3]


def test_bad_threshold_is_refused(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(tiny_ini(workspace))
    for bad in ("0", "-3", "many", "1e9"):
        proc = subprocess.run(
            [str(suite_bin), str(ini), "--rank-detail-threshold", bad],
            capture_output=True,
            text=True,
            env=MPI_ENV,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 2, bad
        assert "--rank-detail-threshold needs a number in 1..100000000" in proc.stderr


def test_simulated_100k_ranks_document(suite_bin: Path, workspace: Workspace) -> None:
    """100,000 synthetic ranks on 1,000 hosts through the suite's summary code and writer: a
    valid 1.1 document of a few MB; the schema ties the version to the form."""
    out = workspace.root / "sim"
    proc = subprocess.run(
        [str(suite_bin.parent / "ioscore-simulate-ranks"), "100000", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    stats = json.loads(proc.stdout)
    assert stats["ranks"] == 100000 and stats["hosts"] == 1000 and stats["phases"] == 14
    assert stats["result_json_bytes"] < 10_000_000  # the full form: about 840 MB
    doc = json.loads((out / "result.json").read_text())
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.validate(doc, schema)
    assert doc["procs"] == 100000 and len(doc["hosts"]) == 1000
    for phase in doc["phases"]:
        assert phase["rank_summary"]["count"] == 100000
        assert len(phase["ranks"]) == 32 and len(phase["rank_summary"]["hosts"]) == 1000
    first = doc["phases"][0]
    without_summary = {k: v for k, v in first.items() if k != "rank_summary"}
    for broken in (
        dict(doc, schema="ioscore-result/1"),  # a 1.0 reader would take 32 ranks for all
        dict(doc, phases=[without_summary, *doc["phases"][1:]]),
        dict(doc, rank_detail=dict(doc["rank_detail"], form="full")),
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


@pytest.mark.mpi
def test_summary_form_names_the_first_failed_rank(suite_bin: Path, workspace: Workspace) -> None:
    """An I/O error in the summary form: the phase counts the failed ranks, quotes the first
    one's message (sent to rank 0 by that rank) and the run stops."""
    pause = workspace.root / "pause"
    pause.mkdir()
    (pause / "ior-easy-read").touch()
    ini = workspace.write_ini(
        tiny_ini(workspace).replace("[debug]\n", f"[debug]\npause-dir = {pause}\n")
    )
    # one rank per pretend node: rank r reads rank r+1's file (IOR shift 1)
    args = ["--timestamp", "fail", "--simulate-ppn", "1", "--rank-detail-threshold", "3"]
    proc = start_suite(4, str(ini), *args)
    try:
        wait_for_pause(workspace, "ior-easy-read", proc)
        (workspace.data / "fail" / "ior-easy" / "ior_file_easy.00000002").unlink()
        (pause / "ior-easy-read").unlink()
        proc.communicate(timeout=120)
    finally:
        stop(proc)
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    read = next(p for p in doc["phases"] if p["name"] == "ior-easy-read")
    assert "rank_summary" in read and not read["valid"]
    reason = next(r for r in read["invalid_reasons"] if r.startswith("I/O errors on "))
    assert reason.startswith("I/O errors on 1 rank(s); first: ")
    assert "ior_file_easy.00000002" in reason  # rank 1's own message, not rank 0's
    assert doc["aborted"] and not doc["valid"]
