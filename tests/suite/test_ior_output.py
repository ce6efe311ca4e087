"""`ioscore-suite ior`: the output IOR's users parse, checked on ioscore's own runs.

The text lines IOR prints (the results table with its `remove` rows from -v on, `Max Write:` /
`Max Read:`), the -O summaryFormat=JSON document and CSV table, -O summaryFile and the -O
saveRankPerformanceDetailsCSV per-rank file: IOR's keys, columns and order (the same ones
test_ior_differential.py compares with real IOR), numbers consistent with each other and with
result.json. File-system layout hints that cannot be applied are refused before any I/O.
Every run: 2 ranks in a /dev/shm temporary directory under `ulimit -f`.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import run_subcommand, suite_bin  # noqa: F401

pytestmark = [pytest.mark.mpi, pytest.mark.usefixtures("suite_bin")]

NP = 2
SMALL = ["-F", "-t", "4k", "-b", "16k", "-o", "f"]

# IOR's JSON document (5fcf0ba, ior-output.c): members in IOR's order
TOP_KEYS = ["Version", "Began", "Command line", "Machine", "tests", "summary", "Finished"]
TEST_KEYS = ["TestID", "StartTime", "Path", "Capacity", "Used Capacity", "Inodes", "Used Inodes"]
TEST_KEYS += ["Parameters", "Options", "Results"]
RESULT_KEYS = ["access", "bwMiB", "blockKiB", "xferKiB", "iops", "latency", "openTime"]
RESULT_KEYS += ["wrRdTime", "closeTime", "totalTime"]
SUMMARY_KEYS = [
    "operation", "API", "TestID", "ReferenceNumber", "segmentCount", "blockSize", "transferSize",
    "numTasks", "tasksPerNode", "repetitions", "filePerProc", "reorderTasks", "taskPerNodeOffset",
    "reorderTasksRandom", "reorderTasksRandomSeed", "bwMaxMIB", "bwMinMIB", "bwMeanMIB",
    "bwStdMIB", "OPsMax", "OPsMin", "OPsMean", "OPsSD", "MeanTime", "xsizeMiB",
]  # fmt: skip
CSV_HEADER = (
    "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),"
    "numTasks,iter"
)
RANK_CSV_HEADER = "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
MAX_LINE = re.compile(r"^Max (Write|Read): {1,2}(\d+\.\d\d) MiB/sec \((\d+\.\d\d) MB/sec\)$", re.M)


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-ior-out-", dir="/dev/shm") as d:
        yield Path(d)


def ior(tmp: Path, args: list[str], rc: int = 0) -> tuple[str, str]:
    proc = run_subcommand(tmp, "ior", [*args, "--resultdir", str(tmp / "res")], NP)
    assert proc.returncode == rc, f"rc {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout, proc.stderr


def table_rows(text: str) -> list[list[str]]:
    """The rows of IOR's results table (write, read, remove; ioscore's readback)."""
    return [
        line.split()
        for line in text.split("Summary of all tests:", 1)[0].splitlines()
        if re.match(r"^(write|read|readback|remove) ", line)
    ]


def phase_mib(tmp: Path) -> dict[str, list[float]]:
    """result.json's MiB/s per access, in run order (IOR's bandwidth: data over total time)."""
    doc = json.loads((tmp / "res" / "result.json").read_text())
    out: dict[str, list[float]] = {}
    for phase in doc["phases"]:
        out.setdefault(phase["name"].split("-")[1], []).append(phase["score"] * 1024)
    return out


def test_remove_rows_and_max_lines_from_v_on(tmp: Path) -> None:
    out, _ = ior(tmp, ["-v", "-w", "-r", "-i", "2", *SMALL])
    rows = table_rows(out)
    assert [r[0] for r in rows] == ["write", "read", "remove"] * 2
    for it, row in enumerate(r for r in rows if r[0] == "remove"):
        assert row[1:9] == ["-"] * 8 and float(row[9]) >= 0 and row[10] == str(it)
    maxima = {m[0]: (float(m[1]), float(m[2])) for m in MAX_LINE.findall(out)}
    assert list(maxima) == ["Write", "Read"]
    # the best repetition's bandwidth, in MiB/s and in MB/s (10^6 bytes)
    mib = phase_mib(tmp)
    for access, (per_mib, per_mb) in maxima.items():
        best = max(mib[access.lower()])
        assert per_mib == pytest.approx(best, abs=0.006)
        assert per_mb == pytest.approx(best * 1.048576, abs=0.006 + best * 1e-6)
    # IOR's order: the last remove row, the Max lines, then the summary
    assert out.index("Max Write:") > out.rindex("\nremove ")
    assert out.index("Max Read:") < out.index("Summary of all tests:") < out.index("Finished")
    assert out.index("Finished") < out.index("Measurement notes")  # ioscore's after IOR's


def test_no_remove_rows_with_k_and_no_max_lines_without_v(tmp: Path) -> None:
    out, _ = ior(tmp, ["-v", "-w", "-r", "-k", *SMALL])
    assert [r[0] for r in table_rows(out)] == ["write", "read"]
    assert len(MAX_LINE.findall(out)) == 2
    out, _ = ior(tmp, ["-w", "-r", *SMALL])  # IOR prints neither at its default verbosity
    assert [r[0] for r in table_rows(out)] == ["write", "read"]
    assert not MAX_LINE.findall(out)
    out, _ = ior(tmp, ["-v", "-w", *SMALL])  # write only: no Max Read
    assert [m[0] for m in MAX_LINE.findall(out)] == ["Write"]


def test_json_summary_has_iors_members_and_consistent_numbers(tmp: Path) -> None:
    out, err = ior(tmp, ["-v", "-w", "-r", "-i", "2", "-O", "summaryFormat=JSON", *SMALL])
    doc = json.loads(out)  # stdout is the document alone; ioscore's notes went to stderr
    assert "Measurement notes" in err
    # every non-integer number as IOR prints it: %.4f (its PrintKeyValDouble)
    numbers = re.findall(r'": (-?[0-9][0-9.e+-]*)[,\n]', out)
    assert numbers and all(re.fullmatch(r"-?\d+(\.\d{4})?", n) for n in numbers), numbers
    assert list(doc) == TOP_KEYS
    (test,) = doc["tests"]
    assert list(test) == [*TEST_KEYS, "max"]
    assert test["Path"] == "f.00000000" and test["Parameters"]["filePerProc"] == 1
    assert test["Options"]["tasks"] == NP and test["Options"]["xfersize"] == "4096 bytes"
    results = test["Results"]
    assert [r["access"] for r in results] == ["write", "read", "remove"] * 2
    for r in results:
        assert list(r) == (RESULT_KEYS if r["access"] != "remove" else ["access", "totalTime"])
    mib = phase_mib(tmp)
    for access in ("write", "read"):
        bw = [r["bwMiB"] for r in results if r["access"] == access]
        assert bw == pytest.approx(mib[access], abs=5e-5)  # 4 decimals, as IOR
        (summary,) = (s for s in doc["summary"] if s["operation"] == access)
        assert list(summary) == SUMMARY_KEYS
        assert summary["bwMaxMIB"] == pytest.approx(max(bw), abs=1e-4)
        assert summary["bwMinMIB"] == pytest.approx(min(bw), abs=1e-4)
        assert summary["bwMeanMIB"] == pytest.approx(sum(bw) / 2, abs=1e-4)
        assert summary["numTasks"] == NP and summary["repetitions"] == 2
        assert summary["xsizeMiB"] == pytest.approx(NP * 16 / 1024, abs=1e-4)
        assert test["max"][f"{access}MiB"] == pytest.approx(max(bw), abs=1e-4)
        assert test["max"][f"{access}MB"] == pytest.approx(max(bw) * 1.048576, abs=1e-3)
    for r in results:  # IOR's definitions hold between the columns
        if r["access"] != "remove":
            assert r["totalTime"] >= r["wrRdTime"] >= 0  # 4 decimals: a fast one prints 0
            # totalTime is printed with 4 decimals: the true time within half a unit of it
            mib, t = NP * 16 / 1024, r["totalTime"]
            assert mib / (t + 5e-5) - 5e-5 <= r["bwMiB"] <= mib / max(t - 5e-5, 1e-9) + 5e-5


def test_json_without_v_has_no_remove_entries_nor_max(tmp: Path) -> None:
    out, _ = ior(tmp, ["-w", "-r", "-W", "-O", "summaryFormat=json", *SMALL])
    (test,) = json.loads(out)["tests"]
    assert list(test) == TEST_KEYS  # no "max"
    assert [r["access"] for r in test["Results"]] == ["write", "read"]  # no -W check row


def test_csv_summary_is_iors_results_table(tmp: Path) -> None:
    out, err = ior(tmp, ["-w", "-r", "-i", "2", "-O", "summaryFormat=CSV", *SMALL])
    lines = out.splitlines()
    assert lines[0] == CSV_HEADER and len(lines) == 5
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["access"], r["iter"], r["numTasks"]) for r in rows] == [
        ("write", "0", "2"),
        ("read", "0", "2"),
        ("write", "1", "2"),
        ("read", "1", "2"),
    ]
    mib = phase_mib(tmp)
    for access in ("write", "read"):
        bw = [float(r["bw(MiB/s)"]) for r in rows if r["access"] == access]
        assert bw == pytest.approx(mib[access], abs=0.00006)
    assert all(r["block(KiB)"] == "16.0000" and r["xfer(KiB)"] == "4.0000" for r in rows)
    assert "Measurement notes" in err


def test_summary_file_takes_iors_document(tmp: Path) -> None:
    out, _ = ior(tmp, ["-v", "-w", "-r", "-O", "summaryFile=sum.txt", *SMALL])
    text = (tmp / "sum.txt").read_text()
    assert out.startswith("Writing output to sum.txt\n")
    assert "Summary of all tests:" in text and "Summary of all tests:" not in out
    assert [r[0] for r in table_rows(text)] == ["write", "read", "remove"]
    assert len(MAX_LINE.findall(text)) == 2 and text.rstrip().splitlines()[-1].startswith(
        "Finished"
    )
    assert "Measurement notes" in out and "Measurement notes" not in text
    out, _ = ior(tmp, ["-w", "-O", "summaryFile=sum.json,summaryFormat=JSON", *SMALL])
    assert json.loads((tmp / "sum.json").read_text())["summary"][0]["operation"] == "write"


def test_per_rank_csv(tmp: Path) -> None:
    ior(tmp, ["-w", "-r", "-W", "-i", "2", "-O", "saveRankPerformanceDetailsCSV=r.csv", *SMALL])
    lines = (tmp / "r.csv").read_text().splitlines()
    assert lines[0] == RANK_CSV_HEADER
    rows = [line.split(",") for line in lines[1:]]
    # the timed accesses only (not the -W check), every rank, in run order
    assert [(r[0], int(r[1])) for r in rows] == [
        (access, rank) for _ in range(2) for access in ("write", "read") for rank in range(NP)
    ]
    share = NP * 16384 / NP  # IOR: the aggregate bytes over the ranks
    for r in rows:
        with_open, io_time, bw_open, bw = (float(v) for v in r[2:])
        assert with_open >= io_time > 0
        assert bw_open == pytest.approx(share / with_open, rel=1e-6)
        assert bw == pytest.approx(share / io_time, rel=1e-6)


@pytest.mark.parametrize(
    "hint, says",
    [
        ("lustreStripeCount=1", "is on tmpfs, not Lustre"),
        ("lustrestripesize=1m", "is on tmpfs, not Lustre"),
        ("beegfsNumTargets=4", "is on tmpfs, not BeeGFS"),
        ("gpfsHintAccess=1", "needs the GPFS library"),
        ("lustreIgnoreLocks=1", "needs the Lustre client library"),
        ("lustreStripeCount=x", "expected a number"),
        ("summaryFormat=XML", "expected default, JSON or CSV"),
    ],
)
def test_what_cannot_be_applied_is_refused_before_any_io(tmp: Path, hint: str, says: str) -> None:
    _, err = ior(tmp, ["-w", "-O", hint, *SMALL], rc=2)
    errors = [line for line in err.splitlines() if line.startswith("ioscore-suite ior: ERROR")]
    assert len(errors) == 1 and says in errors[0], err
    assert not list(tmp.glob("f*")), "nothing written"


def test_stonewall_lines_and_a_json_stdout_with_them(tmp: Path) -> None:
    args = ["-v", "-w", "-D", "5", "-O", "stoneWallingWearOut=1", *SMALL]
    out, _ = ior(tmp, args)
    ranks = sorted(re.findall(r"^(\d+): stonewalling pairs accessed: (\d+)$", out, re.M))
    assert ranks == [(str(r), "4") for r in range(NP)]  # 16k / 4k: the stop is never reached
    over = r"^stonewalling pairs accessed min: 4 max: 4 -- min data: 0\.0 GiB mean data: 0\.0 GiB"
    assert re.search(over, out, re.M)
    assert out.index("Pairs deadlineForStonewallingaccessed: 4\n") > out.index("Max Write:")
    out, err = ior(tmp, [*args, "-O", "summaryFormat=JSON"])  # IOR's log lines: not in the JSON
    summary = json.loads(out)["summary"][0]
    assert summary["StoneWallTime"] >= 0 and summary["StoneWallbwMeanMIB"] > 0
    assert "Pairs deadlineForStonewallingaccessed: 4" in err
