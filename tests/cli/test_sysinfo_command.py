"""`ioscore sysinfo`: leaderboard §4 fields, and no failure when files or tools are missing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ioscore.commands.sysinfo import Probe, collect, parse_mountinfo

FIELDS = {
    "client_node_group": ["os_distribution", "distribution_version", "kernel_version"],
    "storage_system": ["software", "software_version", "client_mount_options"],
    "io500_run": ["file_system_family", "mpi"],
}
PROCESSOR = [
    "architecture",
    "model",
    "vendor",
    "sockets",
    "cores_per_socket",
    "threads_per_core",
    "frequency_hz",
    "microarchitecture",
]


def test_sysinfo_json_has_the_fields(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli("sysinfo", "--raw", "--datadir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["schema"] == "ioscore-sysinfo/1"
    for section, keys in FIELDS.items():
        for key in keys:
            assert key in info[section], (section, key)
    processor = info["client_node_group"]["processor"]
    for key in PROCESSOR:
        assert key in processor
    assert info["client_node_group"]["kernel_version"] == os.uname().release
    assert processor["logical_cpus"] == os.cpu_count()
    meminfo = Path("/proc/meminfo").read_text().split()
    assert info["client_node_group"]["memory"]["net_capacity_bytes"] == int(meminfo[1]) * 1024
    # The data dir's mount: the longest mount point containing tmp_path.
    datadir = info["datadir"]
    assert str(tmp_path.resolve()).startswith(datadir["mount_point"])
    assert datadir["fs_type"] and datadir["mount_options"]
    assert info["storage_system"]["client_mount_options"] == datadir["mount_options"]
    # This machine has Open MPI 4.1.4 (mpirun --version).
    assert info["io500_run"]["mpi"]["implementation"] == "Open MPI"
    # No parallel file system client here: recorded as unavailable, not an error.
    missing = {entry["field"] for entry in info["unavailable"]}
    assert {"fs_clients.lustre", "fs_clients.beegfs", "fs_clients.gpfs", "fs_clients.daos"} <= (
        missing
    )


def test_missing_files_and_tools_are_recorded(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no mpirun, no lctl, ...
    probe = Probe(proc_root=tmp_path / "proc", etc_root=tmp_path / "etc", sys_root=tmp_path)
    info = collect(tmp_path / "does-not-exist", probe)
    fields = {entry["field"] for entry in info["unavailable"]}
    assert {"os", "processor", "memory", "mpi", "datadir.mount", "datadir"} <= fields
    assert info["client_node_group"]["memory"]["net_capacity_bytes"] is None
    assert info["io500_run"]["mpi"] == {"implementation": None, "version": None}
    json.dumps(info)  # still serialisable


def test_mountinfo_lustre_and_escapes(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text(
        "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
        "40 22 0:50 / /lus/scratch\\040fs rw,nosuid,flock - lustre 10.0.0.1@o2ib:/scratch "
        "rw,lazystatfs\n",
        encoding="utf-8",
    )
    (tmp_path / "fs" / "lustre").mkdir(parents=True)
    (tmp_path / "fs" / "lustre" / "version").write_text("2.15.4\n", encoding="utf-8")
    probe = Probe(proc_root=proc, etc_root=tmp_path / "etc", sys_root=tmp_path)
    info = collect(Path("/lus/scratch fs/io500/data"), probe)
    assert info["datadir"]["mount_point"] == "/lus/scratch fs"
    assert info["datadir"]["fs_type"] == "lustre"
    assert info["io500_run"]["file_system_family"] == "Lustre"
    assert info["storage_system"]["client_mount_options"] == "rw,nosuid,flock"
    assert info["storage_system"]["software_version"] == "2.15.4"
    assert info["fs_clients"]["lustre"] == "2.15.4"


def test_parse_mountinfo_skips_garbage() -> None:
    assert parse_mountinfo("garbage\n\n1 2 3\n") == []


def test_default_output_is_a_system_description_the_service_schema_reads(  # type: ignore[no-untyped-def]
    ioscore_cli, tmp_path: Path
) -> None:
    from ioscore.system_description import validate

    done = ioscore_cli("sysinfo", "--datadir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["schema"] == "ioscore-system/1"
    group = document["client_node_groups"][0]
    assert group["kernel_version"] == os.uname().release
    assert group["memory"]["capacity"]["unit"] == "B"
    # Everything detected is schema-valid; only what a node cannot know is reported missing,
    # and stderr names each missing item the way the service will.
    problems = validate(document)
    assert problems and all("is a required property" in p.message for p in problems)
    assert "'site' is a required property" in done.stderr
    assert f"{len(problems)} item(s) still to fill in" in done.stderr


def test_base_file_completes_the_description_and_wins(  # type: ignore[no-untyped-def]
    ioscore_cli, tmp_path: Path
) -> None:
    from ioscore.system_description import EXAMPLE_PATH, validate

    base = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
    del base["client_node_groups"][0]["kernel_version"]  # left for detection to fill
    base_file = tmp_path / "base.json"
    base_file.write_text(json.dumps(base), encoding="utf-8")
    done = ioscore_cli("sysinfo", "--datadir", str(tmp_path), "--base", str(base_file))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert validate(document) == []
    assert "still to fill in" not in done.stderr
    group = document["client_node_groups"][0]
    assert group["kernel_version"] == os.uname().release  # detected
    assert group["processor"]["model"] == base["client_node_groups"][0]["processor"]["model"]
    assert document["site"] == base["site"]


def test_unreadable_base_is_a_clear_error(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "base.json"
    bad.write_text("{ not json", encoding="utf-8")
    done = ioscore_cli("sysinfo", "--datadir", str(tmp_path), "--base", str(bad))
    assert done.returncode == 2
    assert f"cannot read {bad}" in done.stderr and "Traceback" not in done.stderr
