"""`ioscore validate`: exit 0 valid / 1 invalid / 2 unreadable, text and JSON output."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from .conftest import DEV, SC25_RUN


def test_valid_run_exits_0(ioscore_cli) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli("validate", str(SC25_RUN), "--release", "SC25")
    assert done.returncode == 0, done.stderr
    assert "VALID" in done.stdout and "io500-sc25" in done.stdout
    assert "Traceback" not in done.stderr


def test_json_output(ioscore_cli) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli("validate", str(SC25_RUN), "--release", "SC25", "--json")
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert report["valid"] is True
    (run,) = report["runs"]
    assert run["version"] == "io500-sc25"
    assert abs(run["recomputed"]["total"] - 10.078942) < 1e-6
    assert run["issues"] == []


def test_upload_mode_also_requires_the_job_files(
    ioscore_cli, sc25_copy: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """--upload checks what the service checks of an upload: the corpus keeps no job files."""
    bare = ioscore_cli("validate", str(SC25_RUN), "--release", "SC25", "--upload", "--json")
    assert bare.returncode == 1
    rules = {issue["rule"] for issue in json.loads(bare.stdout)["runs"][0]["issues"]}
    assert rules == {"archive-job-script", "archive-job-output"}
    # with them (sc25_copy adds job.sh and slurm-4242.out) it is valid, also as an archive
    assert ioscore_cli("validate", str(sc25_copy), "--release", "SC25", "--upload").returncode == 0
    archive = tmp_path / "run.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(sc25_copy, arcname="run")
    packed = ioscore_cli("validate", str(archive), "--release", "SC25", "--upload")
    assert packed.returncode == 0, packed.stdout


def test_invalid_run_exits_1(ioscore_cli, sc25_copy: Path) -> None:  # type: ignore[no-untyped-def]
    summary = sc25_copy / "result_summary.txt"
    summary.write_text(
        summary.read_text("utf-8").replace("time 482.946 seconds", "time 120.000 seconds"),
        "utf-8",
    )
    done = ioscore_cli("validate", str(sc25_copy), "--json")
    assert done.returncode == 1
    issues = json.loads(done.stdout)["runs"][0]["issues"]
    rule = [i for i in issues if i["severity"] == "invalid"]
    assert [(i["rule"], i["phase"], i["actual"]) for i in rule] == [
        ("write-phase-min-runtime", "ior-easy-write", 120.0)
    ]


def test_ten_node_target_needs_ten_nodes(ioscore_cli) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli(
        "validate",
        str(SC25_RUN),
        "--target-list",
        "10-node-production",
        "--nodes",
        "40",
        "--ppn",
        "8",
    )
    assert done.returncode == 1
    assert "ten-client-nodes" in done.stdout


def test_unreadable_exits_2(ioscore_cli, sc25_copy: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    summary = sc25_copy / "result_summary.txt"
    summary.write_bytes(summary.read_bytes()[:200])  # truncated
    done = ioscore_cli("validate", str(sc25_copy))
    assert done.returncode == 2
    assert "result_summary.txt" in done.stderr and "Traceback" not in done.stderr
    missing = ioscore_cli("validate", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    unknown = ioscore_cli("validate", str(SC25_RUN), "--release", "XYZ")
    assert unknown.returncode == 2 and "unknown release" in unknown.stderr


def test_archive_input(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    archive = tmp_path / "sub.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DEV / "642", arcname="642")
    done = ioscore_cli("validate", str(archive), "--json")
    report = json.loads(done.stdout)
    # Submission 642 holds two runs; the SCC one kept stonewall 300 and is invalid.
    assert done.returncode == 1
    assert [r["valid"] for r in report["runs"]] == [True, False]
    assert all(r["run_dir"].startswith(str(archive)) for r in report["runs"])


def test_evil_archive_exits_2(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("result_summary.txt")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/shadow"
        tar.addfile(info)
    done = ioscore_cli("validate", str(archive))
    assert done.returncode == 2 and "links are not allowed" in done.stderr
