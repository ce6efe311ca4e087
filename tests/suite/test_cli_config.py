"""Configuration errors, --list, --version and --dry-run of the suite binary.

Every malformed INI must fail before any I/O: exit status 2, one message naming the file, the
line and the section/key, no traceback, and neither the data nor the result directory created.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from suite_helpers import (
    REPO_ROOT,
    STANDARD_PHASES,
    Workspace,
    run_helper,
    run_suite,
    small_ini,
)

pytestmark = pytest.mark.mpi

MALFORMED = [
    ("[global]\n[no-such-section]\n", ":2: unknown section [no-such-section]"),
    ("[ior-easy]\nblocksize = 1m\nbogus = 3\n", ":3: unknown key 'bogus' in section [ior-easy]"),
    ("[global]\nnot an option line\n", ":2: cannot parse line"),
    ("[debug]\nstonewall-time = ten\n", ":2: [debug] stonewall-time: bad value 'ten'"),
    ("[global]\nscc = maybe\n", ":2: [global] scc: bad value 'maybe' (expected TRUE or FALSE)"),
    ("[mdtest-easy]\nn = -5\n", ":2: [mdtest-easy] n: bad value '-5'"),
    ("[ior-easy]\ntransferSize = 2q\n", ":2: [ior-easy] transferSize: bad size '2q'"),
    (
        "[ior-easy]\ntransferSize = 1m\nblockSize = 1500k\n",
        ":3: [ior-easy] blockSize: 1500k must be a multiple of transferSize",
    ),
    ("[global]\napi = NOSUCH\n", "[ior-easy-write] API: unknown backend 'NOSUCH'"),
    ("[ior-easy]\nAPI = POSIX --posix.turbo\n", "unknown POSIX backend option '--posix.turbo'"),
]


@pytest.mark.parametrize(("body", "message"), MALFORMED)
def test_malformed_ini_fails_before_io(
    suite_bin: Path, workspace: Workspace, body: str, message: str
) -> None:
    text = f"[global]\ndatadir = {workspace.data}\nresultdir = {workspace.results}\n{body}"
    offset = 3  # the three lines prepended above
    expected = re.sub(r":(\d+):", lambda m: f":{int(m.group(1)) + offset}:", message)
    ini = workspace.write_ini(text)
    proc = run_helper(str(ini))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(ini) in proc.stderr
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not workspace.data.exists()
    assert not workspace.results.exists()


def test_key_before_first_section(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(f"datadir = {workspace.data}\n[global]\n")
    proc = run_helper(str(ini))
    assert proc.returncode == 2
    assert f"{ini}:1: key 'datadir' appears before the first [section]" in proc.stderr


def test_error_reported_once_under_several_ranks(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(
        f"[global]\nresultdir = {workspace.results}\n[ior-easy]\nblockSize = 7z\n"
    )
    proc = run_suite(2, str(ini))
    assert proc.returncode != 0
    assert proc.stderr.count(f"{ini}:4: [ior-easy] blockSize: bad size '7z'") == 1
    assert not workspace.results.exists()


def test_missing_config_file(suite_bin: Path, workspace: Workspace) -> None:
    proc = run_helper(str(workspace.root / "absent.ini"))
    assert proc.returncode == 2
    assert "cannot read config file" in proc.stderr and "absent.ini" in proc.stderr


def test_unknown_flag(suite_bin: Path) -> None:
    proc = run_helper("--frobnicate")
    assert proc.returncode == 2
    assert "unknown or incomplete option '--frobnicate'" in proc.stderr


def test_list_shows_every_section_with_defaults(suite_bin: Path) -> None:
    proc = run_suite(1, "--list", check=True)
    sections = re.findall(r"^\[([\w-]+)\]", proc.stdout, re.M)
    assert sections[:4] == ["global", "debug", "ior-easy", "ior-easy-write"]
    assert sections[-1] == "ior-rnd4K-easy-read"
    assert len(sections) == 26
    assert re.search(r"transferSize\s+string\s+default=2m", proc.stdout)
    assert re.search(r"stonewall-time\s+int\s+default=300", proc.stdout)


def test_version_is_git_describe(suite_bin: Path) -> None:
    proc = run_suite(1, "--version", check=True)
    described = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=REPO_ROOT, capture_output=True, text=True
    ).stdout.strip()
    # the binary embeds the describe of its build; the tree may have changed since
    assert proc.stdout.strip().split("-dirty")[0] == described.split("-dirty")[0]


def test_config_hash_of_defaults(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini("[global]\n")
    proc = run_suite(1, str(ini), "--config-hash", check=True)
    assert proc.stdout.strip() == "9736CCCB"  # spec §5.4 test vector


def test_dry_run_prints_workloads_and_touches_nothing(
    suite_bin: Path, workspace: Workspace
) -> None:
    ini = workspace.write_ini(small_ini(workspace, stonewall=300))
    proc = run_suite(2, str(ini), "--dry-run", "--timestamp", "T1", check=True)
    out = proc.stdout
    for phase in STANDARD_PHASES:
        assert f"\n[{phase}]" in out
    assert "transferSize 65536 B, blockSize 2097152 B (<= 32 transfers per rank" in out
    assert "47008-byte records" in out and "<= 40 records per rank" in out
    assert "<= 120 files per rank, <= 240 in total" in out
    assert "-size 3901c -name *01*" in out
    assert not workspace.data.exists() and not workspace.results.exists()


@pytest.mark.parametrize(
    ("section", "key", "message"),
    [
        ("global", "io-buffers-on-gpu", "GPU buffers are not implemented"),
    ],
)
def test_unsupported_options_fail_before_io(
    suite_bin: Path, workspace: Workspace, section: str, key: str, message: str
) -> None:
    text = small_ini(workspace).replace(f"[{section}]\n", f"[{section}]\n{key} = TRUE\n", 1)
    ini = workspace.write_ini(text)
    proc = run_helper(str(ini))
    assert proc.returncode == 2
    assert f"{ini}: [{section}] {key} = TRUE" in proc.stderr and message in proc.stderr
    assert not workspace.data.exists() and not workspace.results.exists()
