"""Whole runs of the suite under mpirun -np 1, 2 and 4 on a temporary directory.

A short stonewall (1 s) and tiny sizes keep each run to a few seconds; every output must then
say INVALID. The checks are cross-checks between independent outputs: result.json (validated
against the schema), the per-rank CSVs, result.txt, result_summary.txt and the counts the
configuration implies.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import (
    SCHEMA_PATH,
    STANDARD_PHASES,
    Workspace,
    only_result_dir,
    parse_result_txt,
    run_helper,
    run_suite,
    small_ini,
)

pytestmark = pytest.mark.mpi

XFERS_PER_RANK = 32  # blockSize 2m / transferSize 64k in small_ini
HARD_SEGMENTS = 40
MD_FILES = 120


def names_with_01(nranks: int, files: int) -> int:
    return sum("01" in f"file.mdtest.{r}.{i}" for r in range(nranks) for i in range(files))


def rel_close(a: float, b: float, tol: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=1e-12)


def check_ior_csv(resdir: Path, phase: dict, nranks: int) -> None:
    with (resdir / f"{phase['name']}.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["rank"]) for r in rows] == list(range(nranks))
    access = "write" if "write" in phase["name"] else "read"
    assert {r["access"] for r in rows} == {access}
    # throughput columns are (aggregate bytes / N) / time
    for row, rank in zip(rows, phase["ranks"], strict=True):
        avg = float(row["throughput-withopenclose"]) * float(row["runtime-with-openclose"])
        assert rel_close(avg * nranks, phase["bytes"], 1e-6)
        assert rel_close(float(row["runtime-with-openclose"]), rank["end"] - rank["start"], 1e-6)


def check_mdtest_csv(resdir: Path, phase: dict, nranks: int) -> None:
    lines = (resdir / f"{phase['name']}.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[:2] == ["rank", "items"] and len(header) == 24
    all_row = lines[1].split(",")
    assert all_row[0] == "all" and int(all_row[1]) * nranks == phase["items"]
    filled = [i for i in range(2, 24, 2) if all_row[i]]
    assert len(filled) == 1
    rate = float(all_row[filled[0]])
    assert rel_close(rate / 1000.0, phase["score"], 1e-6)
    for r, line in enumerate(lines[2:]):
        cells = line.split(",")
        assert cells[0] == str(r) and cells[1] == "" and len(cells) == 20
        rank_rate, rank_time = float(cells[filled[0]]), float(cells[filled[0] + 1])
        assert round(rank_rate * rank_time) == phase["ranks"][r]["items"]


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_full_run(suite_bin: Path, workspace: Workspace, nranks: int) -> None:
    ini = workspace.write_ini(small_ini(workspace, stonewall=1))
    proc = run_suite(nranks, str(ini), "--timestamp", "run1", check=True, timeout=120)
    resdir = only_result_dir(workspace)

    # --- result.json: schema, phases, totals ---------------------------------------------
    doc = json.loads((resdir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["procs"] == nranks and doc["finished"] and not doc["aborted"]
    assert [p["name"] for p in doc["phases"]] == list(STANDARD_PHASES)
    assert doc["valid"] is False and doc["scores"]["valid"] is False
    assert any("stonewall-time is 1s" in r for r in doc["invalid_reasons"])
    phases = {p["name"]: p for p in doc["phases"]}
    for phase in doc["phases"]:
        assert len(phase["ranks"]) == nranks
        assert phase["items"] == sum(r["items"] for r in phase["ranks"])
        assert phase["bytes"] == sum(r["bytes"] for r in phase["ranks"])
        assert sum(phase["timeseries"]["aggregate"]) == phase["items"] or phase["name"] in (
            "find",
            "timestamp",
        )
        if phase["name"] != "timestamp":
            assert phase["score"] > 0, phase["name"]
    for name in ("ior-easy-write", "ior-easy-read"):
        assert phases[name]["items"] == nranks * XFERS_PER_RANK
        assert phases[name]["bytes"] == nranks * XFERS_PER_RANK * 65536
    for name in ("ior-hard-write", "ior-hard-read"):
        assert phases[name]["items"] == nranks * HARD_SEGMENTS
        assert phases[name]["bytes"] == nranks * HARD_SEGMENTS * 47008
    for name in STANDARD_PHASES:
        if name.startswith("mdtest"):
            assert phases[name]["items"] == nranks * MD_FILES, name
    assert phases["mdtest-hard-read"]["bytes"] == nranks * MD_FILES * 3901
    assert all(p["verify_errors"] == 0 for p in doc["phases"])
    # GiB/s = bytes / (latest end - earliest start) / 2^30
    for name in ("ior-easy-write", "ior-hard-read"):
        p = phases[name]
        span = max(r["end"] for r in p["ranks"]) - min(r["start"] for r in p["ranks"])
        assert rel_close(p["score"], p["bytes"] / span / 2**30, 1e-6)
    # find: matches are the mdtest-hard names containing "01"; scanned = every data file:
    # N ior-easy files, 1 ior-hard file, 2 * N * 120 mdtest files and our marker file
    assert phases["find"]["extra"]["found"] == names_with_01(nranks, MD_FILES)
    assert phases["find"]["extra"]["scanned"] == nranks + 1 + 2 * nranks * MD_FILES + 1
    # scores from the phase values
    bw = math.prod(phases[n]["score"] for n in STANDARD_PHASES if phases[n]["group"] == "bw")
    md = math.prod(phases[n]["score"] for n in STANDARD_PHASES if phases[n]["group"] == "md")
    assert rel_close(doc["scores"]["bw"], bw ** (1 / 4), 1e-9)
    assert rel_close(doc["scores"]["md"], md ** (1 / 8), 1e-9)
    assert rel_close(doc["scores"]["total"], math.sqrt(doc["scores"]["bw"] * doc["scores"]["md"]))

    # --- per-rank CSVs agree with result.json ------------------------------------------
    for phase in doc["phases"]:
        if phase["name"].startswith("ior"):
            check_ior_csv(resdir, phase, nranks)
        elif phase["name"].startswith("mdtest"):
            check_mdtest_csv(resdir, phase, nranks)
    find_csv = (resdir / "find.csv").read_text().splitlines()
    assert find_csv[0].startswith("runtime: ") and len(find_csv) == 2 + nranks

    # --- text outputs say INVALID and agree with the JSON --------------------------------
    summary = (resdir / "result_summary.txt").read_text().splitlines()
    assert summary[0] == f"IO500 version {doc['version']} (standard)"
    assert [
        line.split()[1] if line.startswith("[RESULT]") else line.split()[2]
        for line in summary[1:-1]
    ] == list(STANDARD_PHASES)
    assert summary[-1].startswith("[SCORE ] Bandwidth ") and summary[-1].endswith(" [INVALID]")
    assert f"TOTAL {doc['scores']['total']:f} [INVALID]" in summary[-1]
    assert "[      ]            timestamp        0.000000 kIOPS : time " in summary[3]
    assert summary[-1] in proc.stdout
    txt = parse_result_txt(resdir / "result.txt")
    assert txt["run"]["procs"] == str(nranks)
    assert txt["run"]["config-hash"] == doc["config_hash"]
    assert txt["SCORE"]["SCORE"] == f"{doc['scores']['total']:f} [INVALID]"
    assert txt["SCORE"]["hash"] == doc["score_hash"]
    for name in STANDARD_PHASES:
        if name != "timestamp":
            assert txt[name]["score"] == f"{phases[name]['score']:f}"
    # the hashes can be recomputed from the files alone
    hashed = run_helper("--hash-config-ini", str(resdir / "config.ini")).stdout.split()[0]
    assert hashed == doc["config_hash"]
    rescored = run_helper("--score-from", str(resdir / "result.txt")).stdout
    assert f"score-hash = {doc['score_hash']}" in rescored
    assert (resdir / "config-orig.ini").read_text() == ini.read_text()

    # --- files present, data cleaned up ------------------------------------------------
    for name in STANDARD_PHASES:
        if name not in ("timestamp", "find"):
            assert (resdir / f"{name}.txt").is_file() and (resdir / f"{name}.csv").is_file()
    assert (resdir / "timestampfile").stat().st_size == 0
    assert not list(resdir.glob("*.stonewall"))
    assert not (workspace.data / "run1").exists()


def test_stonewall_wearout_and_exact_counts(suite_bin: Path, workspace: Workspace) -> None:
    """mdtest-easy-write hits a 1 s deadline; later phases handle exactly the written count."""
    text = small_ini(workspace, stonewall=1).replace(
        "[mdtest-easy]\nn = 120", "[mdtest-easy]\nn = 50000000"
    )
    ini = workspace.write_ini(text)
    run_suite(2, str(ini), "--timestamp", "sw", check=True, timeout=120)
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    write = phases["mdtest-easy-write"]
    sw = write["stonewall"]
    assert sw["deadline_s"] == 1
    assert 0 < sw["items_at_deadline_max"] < 50000000
    # wear-out: every rank ends with the busiest rank's count at the deadline
    assert [r["items"] for r in write["ranks"]] == [sw["items_at_deadline_max"]] * 2
    assert sw["wearout_items"] == 2 * sw["items_at_deadline_max"] - sw["items_at_deadline_sum"]
    assert write["time"] >= 1.0
    for name in ("mdtest-easy-stat", "mdtest-easy-delete"):
        assert [r["items"] for r in phases[name]["ranks"]] == [sw["items_at_deadline_max"]] * 2
    assert write["ranks"][0]["first_done"] <= write["ranks"][0]["end"]


def test_quiet_verbose_and_find_nproc(suite_bin: Path, workspace: Workspace) -> None:
    """--quiet silences stdout; --verbose adds result.txt keys; [find] nproc limits ranks."""
    ini = workspace.write_ini(small_ini(workspace, extra="[find]\nnproc = 1\n"))
    proc = run_suite(2, str(ini), "--quiet", "--verbose", "--timestamp", "q", check=True)
    assert proc.stdout == ""
    resdir = only_result_dir(workspace)
    txt = parse_result_txt(resdir / "result.txt")
    assert txt["find"]["nproc"] == "1"
    assert txt["find"]["found"] == str(names_with_01(2, MD_FILES))
    assert txt["ior-easy-write"]["accessed-pairs"] == str(XFERS_PER_RANK)  # verbosity > 1
    assert txt["timestamp"]["timestamp-file"] == str(resdir / "timestampfile")
    find_csv = (resdir / "find.csv").read_text().splitlines()
    assert len(find_csv) == 3  # summary, header, one rank


@pytest.mark.parametrize(
    ("option", "files"),
    [
        ("filePerProc = FALSE", ["ior-easy/ior_file_easy"]),
        ("uniqueDir = TRUE", [f"ior-easy/{r}/ior_file_easy.{r:08d}" for r in range(3)]),
    ],
)
def test_ior_easy_layouts(
    suite_bin: Path, workspace: Workspace, option: str, files: list[str]
) -> None:
    """Shared-file and per-rank-directory layouts, read back across simulated nodes."""
    ini = workspace.write_ini(small_ini(workspace, ior_easy=option))
    args = ("--timestamp", "lay", "--simulate-ppn", "1")
    run_suite(3, str(ini), *args, "--keep-data", check=True)
    data = workspace.data / "lay"
    present = sorted(str(p.relative_to(data)) for p in (data / "ior-easy").rglob("ior_file*"))
    assert present == files
    assert sum((data / f).stat().st_size for f in files) == 3 * 2 * 1024 * 1024
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    assert doc["nodes"] == 3 and doc["ppn0"] == 1
    phases = {p["name"]: p for p in doc["phases"]}
    assert phases["ior-easy-read"]["items"] == 3 * XFERS_PER_RANK
    assert phases["ior-easy-read"]["verify_errors"] == 0 and phases["ior-easy-read"]["valid"]
    run_suite(3, str(ini), "--cleanup", "--timestamp", "lay", check=True)
    assert not data.exists()
