"""An IO500 archive run at Aurora's scale in the archive's exact format: the dev
copy's Aurora DAOS submission (2,080 ranks) copied into a bare archive root with its per-rank
CSVs extended to any rank count. The CSVs of the archive's 62,400-process Aurora run are too
large for the dev copy; these stand in for them.

Every added rank repeats a real rank's row (cycling through them) with its numbers jittered
by up to +-5 %; the ranks of ``slow`` run at a fifth of the rate and take five times as long.
Rows keep the C app's layout: IOR ``access,rank,...``, mdtest ``rank,items,...`` after its
``all`` row, numbers as ``%.10e``. Shared by the importer tests and ``bench/archive_ranks.py``.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
AURORA = (
    REPO_ROOT.parent
    / "shared"
    / "data"
    / "io500-archive-dev"
    / "Argonne National Laboratory"
    / "Aurora"
    / "DAOS"
    / "2023"
    / "submission-694"
)
RUN = "results/2023.10.08-18.11.45"
AURORA_RANKS = 2080
ARCHIVE_LARGEST = 62_400  # processes of the archive's largest run (Aurora)
SLOW_FACTOR = 5.0


def _scaled(header: list[str], cells: list[str], jitter: float, slow: bool) -> list[str]:
    out = list(cells)
    for at, name in enumerate(header):
        if at >= len(out) or not out[at].strip():
            continue
        try:
            value = float(out[at])
        except ValueError:
            continue  # the access word, the rank
        if name.startswith(("rate", "throughput")):
            value *= jitter / (SLOW_FACTOR if slow else 1.0)
        elif name.startswith(("time", "runtime")):
            value *= jitter * (SLOW_FACTOR if slow else 1.0)
        else:
            continue
        out[at] = f"{value:.10e}"
    return out


def extend_csv(path: Path, ranks: int, slow: range, seed: int = 21) -> None:
    """Rewrite one per-rank CSV with `ranks` ranks (the file's own first, then copies)."""
    lines = path.read_text().splitlines()
    header = [cell.strip() for cell in lines[0].split(",")]
    rank_at = header.index("rank")
    head = [lines[0]] + [line for line in lines[1:] if line.split(",")[rank_at] == "all"]
    rows = [line.split(",") for line in lines[1:] if line.split(",")[rank_at].isdigit()]
    rng = random.Random(f"{seed}/{path.name}")
    out = list(head)
    for rank in range(ranks):
        template = rows[rank % len(rows)]
        copy = rank >= len(rows)
        cells = _scaled(header, template, rng.uniform(0.95, 1.05) if copy else 1.0, rank in slow)
        cells[rank_at] = str(rank)
        out.append(",".join(cells))
    path.write_text("\n".join(out) + "\n")


def aurora_archive(root: Path, ranks: int, slow: range = range(0)) -> Path:
    """A bare archive root below `root` holding the Aurora run with every phase's per-rank CSV
    at `ranks` ranks (`slow` ranks slowed down); returns the run directory."""
    target = root / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-694"
    shutil.copytree(AURORA, target)
    for path in target.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # the shared copy is read-only
    run_dir = target / RUN
    if ranks != AURORA_RANKS or slow:
        for csv in sorted(run_dir.glob("*.csv")):
            if csv.name != "find.csv":  # find writes no per-rank times
                extend_csv(csv, ranks, slow)
    return run_dir
