"""ioscore beside a reference tool, run for run: what the *_vs_reference benches share.

A bench names a way to launch (`Launch`: NP ranks of a program, returning its standard output
and wall time, "" when it failed), and these functions run ioscore and the reference
alternately on the same work, `pairs` times, and print per key the median ratio ioscore /
reference with the min and max of the pair ratios, so an unstable phase shows as a wide
spread rather than hiding in a median.
"""

from __future__ import annotations

import re
import resource
import shlex
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from suite_env import ENV

Launch = Callable[..., tuple[str, float]]

# The IO500 standard run shrunk to bench size; both the suite and the IO500 app read it.
STANDARD_INI = """[global]
datadir = {data}
resultdir = {results}
[debug]
stonewall-time = {stonewall}
[ior-easy]
transferSize = 1m
blockSize = {easy_mib}m
[ior-hard]
segmentCount = {hard_segments}
[mdtest-easy]
n = {md_files}
[mdtest-hard]
n = {md_files}
"""

_RESULT = re.compile(r"^\[RESULT\]\s+(\S+)\s+([\d.]+)\s", re.M)
_IOR_SUMMARY_ROW = re.compile(r"^(write|read)\s+([\d.]+)\s", re.M)
# mdtest's SUMMARY rate table: "   File creation    max    min    mean    std-dev"
_MDTEST_RATE_ROW = re.compile(r"^\s+([A-Z][a-z]+ [a-z]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", re.M)


class Ratios:
    """Pair ratios per key, in first-seen order."""

    def __init__(self) -> None:
        self.by_key: dict[str, list[float]] = {}

    def add(self, key: str, mine: float | None, theirs: float | None) -> None:
        if mine and theirs:
            self.by_key.setdefault(key, []).append(mine / theirs)

    def print_table(self, title: str) -> None:
        width = max([len(title), *map(len, self.by_key)]) + 1
        print(f"\n{title:<{width}} {'median':>7} {'min':>6} {'max':>6} {'pairs':>5}  ioscore/ref")
        for key, values in self.by_key.items():
            med, low, high = statistics.median(values), min(values), max(values)
            print(f"{key:<{width}} {med:7.2f} {low:6.2f} {high:6.2f} {len(values):5}")
        print(flush=True)


def phase_scores(stdout: str) -> dict[str, float]:
    """[RESULT] lines of an IO500 run (the suite's and the reference's alike)."""
    return {m.group(1): float(m.group(2)) for m in _RESULT.finditer(stdout)}


def ior_max_rates(stdout: str) -> dict[str, float]:
    """Max(MiB) of the write and read rows of IOR's "Summary of all tests"."""
    return {m.group(1): float(m.group(2)) for m in _IOR_SUMMARY_ROW.finditer(stdout)}


def mdtest_mean_rates(stdout: str) -> dict[str, float]:
    """Mean rate of each row of mdtest's SUMMARY rate table (ops/s; the tree rows too)."""
    table = stdout.split("SUMMARY rate", 1)[-1].split("SUMMARY time", 1)[0]
    return {m.group(1).strip(): float(m.group(4)) for m in _MDTEST_RATE_ROW.finditer(table)}


def io500_pairs(
    pairs: int,
    programs: dict[str, str],
    launch: Launch,
    scratch: Path,
    data_root: Path,
    sizes: dict[str, int],
    on_data: Callable[[str, Path], None] = lambda action, path: None,
) -> Ratios:
    """The standard run by each of `programs` ({"ioscore": ..., "reference": ...}) per pair;
    ratio per phase. `on_data("make"|"remove", dir)` prepares and clears a data directory
    where the launching host cannot (a node of the test bed)."""
    ratios = Ratios()
    for pair in range(pairs):
        scores: dict[str, dict[str, float]] = {}
        for name, program in programs.items():
            data, results = data_root / f"bench-{name}-{pair}", scratch / f"results-{name}-{pair}"
            on_data("make", data)
            results.mkdir(parents=True)  # the IO500 app does not create it
            ini = scratch / f"{name}-{pair}.ini"
            ini.write_text(STANDARD_INI.format(data=data, results=results, **sizes))
            out, wall = launch(program, str(ini))
            on_data("remove", data)
            scores[name] = phase_scores(out)
            brief = " ".join(
                f"{k.replace('mdtest-', 'md-')}={v:.3g}" for k, v in scores[name].items()
            )
            print(f"  pair {pair + 1} {name:9} {wall:6.1f} s  {brief}", flush=True)
        for phase, theirs in scores.get("reference", {}).items():
            ratios.add(phase, scores.get("ioscore", {}).get(phase), theirs)
    return ratios


def without_flag(args: list[str], flag: str) -> list[str]:
    """`args` with one IOR letter taken out, alone (-r) or inside a group (-wr)."""
    out = []
    for a in args:
        if re.fullmatch(r"-[A-Za-z]+", a) and flag in a[1:]:
            a = "-" + a[1:].replace(flag, "")
            if a == "-":
                continue
        out.append(a)
    return out


def line_label(number: int, line: str, width: int = 60) -> str:
    """ "#N line", shortened: two long lines may share their first words."""
    text = f"#{number} {line}"
    return text if len(text) <= width else text[: width - 3] + "..."


def split_line(line: str) -> tuple[str, list[str]]:
    """("ior"|"mdtest", arguments) of a published command line (IOR and ior alike)."""
    words = shlex.split(line)
    return words[0].lower(), words[1:]


def local_launch(np: int, file_limit_bytes: int, timeout: float = 1800) -> Launch:
    """NP ranks on this host under `ulimit -f` (inherited by every rank), unbound, like the
    other local benches; a failed launch prints its last error line and returns ""."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit_bytes, file_limit_bytes))

    def launch(*argv: str) -> tuple[str, float]:
        cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np), *argv]
        start = time.monotonic()
        done = subprocess.run(
            cmd, capture_output=True, text=True, env=ENV, timeout=timeout, preexec_fn=limit
        )
        wall = time.monotonic() - start
        if done.returncode != 0:
            said = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
            print(f"    failed (rc {done.returncode}): {said[-1][:120] if said else ''}")
            return "", wall
        return done.stdout, wall

    return launch
