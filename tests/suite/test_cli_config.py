"""Configuration errors, --list, --version and --dry-run of the suite binary.

Every malformed INI must fail before any I/O: exit status 2, one message naming the file, the
line and the section/key, no traceback, and neither the data nor the result directory created.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import (
    MPI,
    MPI_ENV,
    REPO_ROOT,
    SCHEMA_PATH,
    STANDARD_PHASES,
    Workspace,
    limited_suite,
    only_result_dir,
    parse_result_txt,
    run_helper,
    run_suite,
    small_ini,
)

from ioscore.results import load_run, verify_hashes

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


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "."])
def test_config_that_is_not_a_regular_file(suite_bin: Path, path: str) -> None:
    proc = run_helper(path, "--dry-run", timeout=60)  # /dev/zero must not be read forever
    assert proc.returncode == 2
    assert f"{path}: not a regular file" in proc.stderr


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
    current = re.findall(r"^\[([\w-]+)\](?!  \(historical)", proc.stdout, re.M)
    assert current[:4] == ["global", "debug", "ior-easy", "ior-easy-write"]
    assert current[-1] == "ior-rnd4K-easy-read"
    assert len(current) == 26
    historical = sorted(set(sections) - set(current))
    assert historical == sorted(
        ["ior-rnd", "ior-rnd-write", "ior-rnd-read"]
        + [f"ior-rnd{size}{phase}" for size in ("4K", "1MB") for phase in ("", "-write", "-read")]
    )
    assert re.search(
        r"noRun\s+bool\s+default=\(unset\).*historical: releases isc20, sc20", proc.stdout
    )
    assert re.search(r"transferSize\s+string\s+default=2m", proc.stdout)
    assert re.search(r"stonewall-time\s+int\s+default=300", proc.stdout)


def test_version_is_git_describe(suite_bin: Path) -> None:
    proc = run_suite(1, "--version", check=True)
    described = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=REPO_ROOT, capture_output=True, text=True
    ).stdout.strip()
    version, mpi, uring = proc.stdout.splitlines()
    # the binary embeds the describe of its build; the tree may have changed since
    assert version.split("-dirty")[0] == described.split("-dirty")[0]
    # the second line names the MPI the tests built it with, as the library itself says
    assert mpi.startswith(f"MPI: {MPI.library}")
    # the third says whether the io_uring backend is built in (liburing found at build time)
    assert uring in ("io_uring: yes (-a IOURING)", "io_uring: no (built without liburing)")


def test_result_json_records_the_mpi_library(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(small_ini(workspace, global_extra="api = DUMMY"))
    run_suite(1, str(ini), "--timestamp", "mpi", check=True)
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    assert "MPI: " + doc["mpi_library"] == run_suite(1, "--version").stdout.splitlines()[1]
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))


def test_config_hash_of_defaults(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini("[global]\n")
    proc = run_suite(1, str(ini), "--config-hash", check=True)
    assert proc.stdout.strip() == "9736CCCB"  # BENCHMARK-RULES §5.4 test vector


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
    assert "splitting by cookie ranges off (-H), steal from rank-1 half of the time off" in out
    assert not workspace.data.exists() and not workspace.results.exists()


def test_pfind_keys_reach_the_find_engine(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(
        small_ini(workspace)
        + "[find]\npfind-steal-next = TRUE\n"
        + "pfind-parallelize-single-dir-access-using-hashing = TRUE\n"
    )
    proc = run_helper(str(ini), "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert (
        "splitting by cookie ranges on (-H), steal from rank-1 half of the time on" in proc.stdout
    )


@pytest.mark.parametrize(
    ("section", "key", "message"),
    [
        ("global", "io-buffers-on-gpu", "backend 'POSIX' (phase ior-easy-write) cannot use GPU"),
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


def run_in(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The binary as an MPI singleton in `cwd` (a relative default would land there)."""
    return subprocess.run(
        limited_suite(*args),
        capture_output=True,
        text=True,
        env={**MPI_ENV, **(env or {})},
        cwd=cwd,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(range(256)) * 8
NOT_CONFIGS = [
    ("._config.ini", APPLE_DOUBLE, "not an INI file but a macOS AppleDouble resource fork"),
    ("empty.ini", b"", "the configuration is empty"),
    ("comments.ini", b"# nothing\n; here\n\n", "the configuration is empty"),
    ("binary.ini", bytes(range(256)) * 16, "not an INI file: a NUL byte at offset 0"),
    ("latin1.ini", b"[global]\ndatadir = /tmp/caf\xe9\n", ":2: not a text file: invalid UTF-8"),
    ("nodatadir.ini", b"[global]\nresultdir = r\n[debug]\n", "[global] datadir is not set"),
    ("huge.ini", b"[global]\n" + b"# padding\n" * 200_000, "is too large for an INI file"),
]


@pytest.mark.parametrize("mode", ["--dry-run", "real"])
@pytest.mark.parametrize(("name", "content", "message"), NOT_CONFIGS)
def test_non_configs_are_refused_and_nothing_is_created(
    suite_bin: Path, workspace: Workspace, name: str, content: bytes, message: str, mode: str
) -> None:
    ini = workspace.root / name
    ini.write_bytes(content)
    args = [str(ini), "--timestamp", "T"] + ([mode] if mode != "real" else [])
    proc = run_in(workspace.root, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and str(ini) in proc.stderr
    assert sorted(p.name for p in workspace.root.iterdir()) == [name]  # no ./datafiles


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "[global]\ndatadir = {d}/plain-file/data\n",
            "cannot create data directory {d}/plain-file/data/T: {d}/plain-file: Not a directory",
        ),
        (
            "[global]\ndatadir = {d}/data\n[ior-hard]\nAPI = MPIIO\nhintsFileName = {d}/none\n",
            "{d}/none",
        ),
        ("[global]\ndatadir = {d}/data\napi = DFS\n", "backend 'DFS'"),
        ("[global]\ndatadir = {d}/data\napi = POSIX --posix.turbo\n", "'--posix.turbo'"),
    ],
)
def test_dry_run_refuses_exactly_what_the_real_run_refuses(
    suite_bin: Path, workspace: Workspace, body: str, message: str
) -> None:
    (workspace.root / "plain-file").write_text("x")
    global_dirs = f"[global]\nresultdir = {workspace.results}\n"
    ini = workspace.write_ini(body.format(d=workspace.root).replace("[global]\n", global_dirs))
    dry = run_in(workspace.root, str(ini), "--dry-run", "--timestamp", "T")
    real = run_in(workspace.root, str(ini), "--timestamp", "T")
    expected = message.format(d=workspace.root)
    for proc in (dry, real):
        assert proc.returncode == 2, proc.stderr
        assert expected in proc.stderr
    assert dry.stderr == real.stderr
    assert not workspace.data.exists() and not workspace.results.exists()


def test_historical_config_runs_unchanged_and_says_what_it_does_not_run(
    suite_bin: Path, workspace: Workspace
) -> None:
    """An sc20-style and sc21..isc26-style mix: old keys, old sections, IOR size spellings."""
    ini = workspace.write_ini(
        small_ini(workspace, stonewall=300).replace("transferSize = 64k", "transferSize = 64kb")
        + "[ior-easy-write]\nposix.odirect = FALSE\nhintsFileName =\n"
        "[mdtest-hard-write]\nnoRun = FALSE\n"
        "[ior-rnd4K]\nblockSize = 1073741824\nrandomPrefill = 0\n[ior-rnd1MB-read]\nrun = TRUE\n"
        "[find-easy]\nrun = FALSE\n"
    )
    proc = run_suite(2, str(ini), "--dry-run", "--timestamp", "T1", check=True)
    assert "transferSize 65536 B" in proc.stdout
    note = (
        f"ioscore-suite: NOTE: {ini}: read and recorded but not run in standard mode: "
        "[ior-rnd4K], [find-easy], [ior-rnd1MB-read]"
    )
    assert proc.stderr.count(note) == 1, proc.stderr
    assert not workspace.data.exists() and not workspace.results.exists()


def test_unknown_key_gets_a_hint(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(
        f"[global]\ndatadir = {workspace.data}\n[mdtest-easy]\nfilesPerProc = 3\n"
    )
    proc = run_helper(str(ini), "--dry-run")
    assert proc.returncode == 2
    assert (
        f"{ini}:4: unknown key 'filesPerProc' in section [mdtest-easy]; 'filesPerProc' is a key "
        "of [mdworkbench] (an extended-mode section, isc21 and later)"
    ) in proc.stderr


def test_historical_config_records_the_same_hash_everywhere(
    suite_bin: Path, workspace: Workspace
) -> None:
    """A real (tiny) run of a config with historical sections and keys: result.txt, config.ini
    and result.json all give one config hash, and the historical settings are in them."""
    ini = workspace.write_ini(
        small_ini(workspace)
        + "[mdtest-hard-write]\nnoRun = FALSE\n"
        + "[ior-rnd4K]\nAPI = POSIX --posix.odirect\n[ior-rnd1MB-read]\nrun = FALSE\n"
    )
    run_suite(1, str(ini), "--timestamp", "H", "--quiet", check=True)
    results = only_result_dir(workspace)
    printed = parse_result_txt(results / "result.txt")["run"]["config-hash"]
    assert run_helper(str(ini), "--config-hash").stdout.strip() == printed
    config_ini = (results / "config.ini").read_text()
    assert "[ior-rnd4K]\nAPI = POSIX --posix.odirect\n" in config_ini
    assert "[ior-rnd1MB-read]\nAPI = \nrun = FALSE\n" in config_ini
    assert "noRun = FALSE\n" in config_ini and "[ior-rnd]" not in config_ini
    hashed = run_helper("--hash-config-ini", str(results / "config.ini")).stdout.split()[0]
    assert hashed == printed
    run = load_run(results)
    assert run.format == "ioscore-json"
    assert verify_hashes(run).config_ok is True
