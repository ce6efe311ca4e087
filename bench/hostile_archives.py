#!/usr/bin/env python3
"""How long the archive-safety rules (ioscore.results.archive, used by the upload request)
take to refuse hostile archives, next to accepting a real corpus run (not a test).

Cases, each built in a temp dir under /dev/shm with a file-size limit:
* dirs      N empty directories (the 2026 attack used 1,000,000 in a 7 MB archive: directories
            did not count as entries and inspection ran until gunicorn killed the request);
* bomb      one member of zeros, 200 MB unpacked from a few hundred kB;
* deep      a file 70 levels deep;
* corpus    the largest real IO500 run directory in ../shared/data (accepted), the yardstick.

Prints the best of --repeat wall times and each refusal's time as a ratio of the corpus run's
acceptance. Usage: .venv/bin/python bench/hostile_archives.py [--dirs 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import resource
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "runners"))

from ioscore.results.archive import ArchiveLimits, UnsafeArchive, inspect  # noqa: E402

CORPUS = REPO.parent / "shared" / "data" / "io500-submissions" / "dev"


def _dirs(path: Path, count: int) -> None:
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("run/result_summary.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
        for i in range(count):
            entry = tarfile.TarInfo(f"run/d{i}")
            entry.type = tarfile.DIRTYPE
            tar.addfile(entry)


def _bomb(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("run/result_summary.txt")
        info.size = 200 << 20
        tar.addfile(info, io.BytesIO(bytes(info.size)))


def _deep(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("/".join(["d"] * 70) + "/result_summary.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))


def _corpus(path: Path) -> None:
    runs = [p for p in sorted(CORPUS.iterdir()) if (p / "result_summary.txt").is_file()]
    run = max(runs, key=lambda p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()))
    with tarfile.open(path, "w:gz") as tar:
        tar.add(run, arcname=run.name)


def _best(path: Path, repeat: int) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            members = inspect(path, ArchiveLimits())
            outcome = f"accepted ({len(members)} entries)"
        except UnsafeArchive as exc:
            outcome = f"refused: {exc.reason[:70]}"
        best = min(best, time.perf_counter() - start)
    return best, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dirs", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))  # never fill the disk
    builders: dict[str, Callable[[Path], None]] = {
        "corpus": _corpus,
        "dirs": lambda p: _dirs(p, args.dirs),
        "bomb": _bomb,
        "deep": _deep,
    }
    with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="ioscore-bench-") as tmp:
        times = {}
        for name, build in builders.items():
            path = Path(tmp) / f"{name}.tar.gz"
            build(path)
            seconds, outcome = _best(path, args.repeat)
            times[name] = seconds
            ratio = seconds / times["corpus"]
            size = path.stat().st_size
            print(
                f"{name:7} {size:>10} B  {seconds * 1000:9.1f} ms  x{ratio:6.2f} corpus  {outcome}"
            )


if __name__ == "__main__":
    main()
