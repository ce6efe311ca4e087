"""Every real IO500 config of the archive through the suite, unchanged but for its directories.

Each INI file under ../shared/data/io500-archive-dev/ and io500-submissions/dev/ (every release
from isc20 to sc25) is copied with only [global] datadir and resultdir pointed into a fresh
/dev/shm directory, then run twice: `--dry-run`, and the real run stopped right after its
pre-I/O checks (IOSCORE_DEBUG_STOP_BEFORE_IO). Both must give the same verdict, create
nothing, and every refusal must be one of EXPECTED_REFUSALS below (a backend or backend option
this build does not offer). Identical files are checked once.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from suite_helpers import MPI_ENV, REPO_ROOT, limited_suite, run_helper

pytestmark = pytest.mark.mpi

DATA = REPO_ROOT.parent / "shared" / "data"
CORPUS_ROOTS = (DATA / "io500-archive-dev", DATA / "io500-submissions" / "dev")
GLOBAL_SECTION = re.compile(rb"^\s*\[\s*global\s*\]", re.I | re.M)
DIR_LINE = re.compile(rb"^(\s*)(datadir|resultdir)(\s*=).*$", re.I)
SECTION_LINE = re.compile(rb"^\s*\[\s*([0-9A-Za-z_-]+)\s*\]")

# The refusals expected, by what the error names, with the number of distinct configs: each is a
# backend, or a backend option, that this build does not offer. A new refusal fails the test.
EXPECTED_REFUSALS = {
    "DFS": (40, "DAOS DFS backend: needs a build with libdfs"),
    "IME": (6, "DDN IME native backend: needs a build with the IME client"),
    "Gfarm": (2, "Gfarm backend: needs a build with libgfarm"),
    "--posix.gpfs.finegrainwritesharing": (8, "IOR's GPFS hint: needs a build with GPFS"),
    "macOS resource fork": (1, "a '._config.ini' AppleDouble file is not an INI file"),
}
# Historical keys of these real configs still parse, unchanged (one per kind, for the record).
HISTORICAL_EXAMPLES = ("posix.odirect", "noRun", "hintsFileName", "ior-rnd4K", "ior-rnd1MB")


def corpus_files() -> list[Path]:
    """INI files of the corpus: *.ini plus any other file with a [global] section line."""
    found: set[Path] = set()
    for root in CORPUS_ROOTS:
        for path in root.rglob("*"):
            if not path.is_file():
                continue
            named_ini = path.name.endswith(".ini")
            if named_ini or (
                path.stat().st_size < 1 << 20 and GLOBAL_SECTION.search(path.read_bytes())
            ):
                found.add(path)
    return sorted(found)


def with_directories(text: bytes, data: Path, results: Path) -> bytes:
    """The INI with only [global] datadir/resultdir replaced (resultdir added if absent)."""
    out: list[bytes] = []
    section = b""
    seen_results = False
    for line in text.split(b"\n"):
        header = SECTION_LINE.match(line)
        if header:
            section = header.group(1).lower()
        match = DIR_LINE.match(line) if section == b"global" else None
        if match:
            target = data if match.group(2).lower() == b"datadir" else results
            seen_results |= target == results
            line = match.group(1) + match.group(2) + match.group(3) + b" " + bytes(target)
        out.append(line)
    rewritten = b"\n".join(out)
    if not seen_results:
        rewritten = GLOBAL_SECTION.sub(
            lambda m: m.group(0) + b"\nresultdir = " + bytes(results), rewritten, count=1
        )
    return rewritten


@dataclass
class Verdict:
    path: Path
    dry_rc: int
    real_rc: int
    dry_err: str
    real_err: str
    created: list[str]


def run_one(path: Path) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="ioscore-realcfg-", dir="/dev/shm") as tmp:
        root = Path(tmp)
        ini = root / "config.ini"
        ini.write_bytes(with_directories(path.read_bytes(), root / "data", root / "results"))
        # cwd = the temp dir: a relative path in the config stays inside it
        common = {"capture_output": True, "text": True, "timeout": 60, "cwd": root}
        # a file-size limit all the same (Open MPI's own shared-memory files need a few MiB)
        limited = limited_suite(str(ini))
        dry = subprocess.run(
            [*limited, "--dry-run", "--timestamp", "T"],
            env=MPI_ENV,
            stdin=subprocess.DEVNULL,
            **common,
        )
        real = subprocess.run(
            [*limited, "--timestamp", "T"],
            env={**MPI_ENV, "IOSCORE_DEBUG_STOP_BEFORE_IO": "1"},
            stdin=subprocess.DEVNULL,
            **common,
        )
        created = sorted(p.name for p in root.iterdir() if p.name != "config.ini")
        return Verdict(path, dry.returncode, real.returncode, dry.stderr, real.stderr, created)


def refusal_reason(verdict: Verdict) -> str:
    """What a refusal names: a key of EXPECTED_REFUSALS ("" if none of them)."""
    first_error = next((line for line in verdict.dry_err.splitlines() if "ERROR" in line), "")
    if "AppleDouble resource fork" in first_error and verdict.path.name.startswith("._"):
        return "macOS resource fork"
    api = first_error.partition("] API: ")[2]
    for word in EXPECTED_REFUSALS:
        if re.search(rf"'{re.escape(word)}'", api, re.I):
            return word
    return ""


@pytest.fixture(scope="module")
def verdicts(suite_bin: Path) -> list[Verdict]:
    if not all(root.is_dir() for root in CORPUS_ROOTS):
        pytest.skip(f"the real IO500 configs are not here: {CORPUS_ROOTS}")
    unique: dict[str, Path] = {}
    for path in corpus_files():
        unique.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(run_one, unique.values()))


def test_every_real_config_is_accepted_or_refused_for_a_named_backend(
    suite_bin: Path, verdicts: list[Verdict]
) -> None:
    refused: dict[str, list[Path]] = {}
    for v in verdicts:
        if v.dry_rc != 0:
            refused.setdefault(refusal_reason(v), []).append(v.path)
    accepted = len(verdicts) - sum(len(paths) for paths in refused.values())
    counts = {reason: len(paths) for reason, paths in refused.items()}
    print(f"\n{len(verdicts)} distinct real configs: {accepted} accepted; refused: {counts}")
    unexplained = [
        next(v.dry_err for v in verdicts if v.path == path) for path in refused.get("", [])
    ]
    assert not unexplained, unexplained[:5]
    expected = {word: count for word, (count, _why) in EXPECTED_REFUSALS.items()}
    assert counts == expected
    texts = [v.path.read_text(errors="replace") for v in verdicts if v.dry_rc == 0]
    for name in HISTORICAL_EXAMPLES:
        assert any(name in text for text in texts), name


def test_dry_run_verdict_equals_real_run_verdict_and_nothing_is_created(
    verdicts: list[Verdict],
) -> None:
    for v in verdicts:
        assert (v.dry_rc == 0) == (v.real_rc == 0), (v.path, v.dry_err, v.real_err)
        if v.dry_rc != 0:
            assert v.dry_rc == v.real_rc == 2, v
            # the same first error line in both
            assert v.dry_err.splitlines()[0] == v.real_err.splitlines()[0], v
        assert v.created == [], (v.path, v.created)


def test_config_hash_of_current_release_configs_equals_the_printed_one(suite_bin: Path) -> None:
    """isc25/sc25 used today's table plus the sc21..isc26 random-I/O family: hashing their
    config-orig.ini (the INI as submitted, historical sections included) gives their printed
    config-hash. Older releases had other tables, so their hashes differ by design
    (BENCHMARK-RULES §5.4)."""
    archive = CORPUS_ROOTS[0]
    if not archive.is_dir():
        pytest.skip(f"the IO500 archive is not here: {archive}")
    cases = []
    for result in sorted(archive.rglob("result.txt")):
        text = result.read_text(errors="replace")
        version = re.search(r"^version\s*=\s*(\S+)", text, re.M)
        printed = re.search(r"^config-hash\s*=\s*(\S+)", text, re.M)
        orig = result.parent / "config-orig.ini"
        if version and printed and orig.is_file() and re.match(r"io500-i?sc25", version[1]):
            cases.append((orig, printed[1]))
    assert len(cases) >= 16
    for orig, printed in cases:
        proc = run_helper(str(orig), "--config-hash")
        assert proc.stdout.strip() == printed, (orig, proc.stderr)
    # the historical sections were really there to be recorded
    assert any("[ior-rnd4K]" in orig.read_text() for orig, _ in cases)
