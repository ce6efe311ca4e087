#!/usr/bin/env python3
"""The pages of a run stored in the full form above the rank-detail threshold (issue 21), against
an earlier version of the code: side by side, in alternation.

A synthetic full-form ``result.json`` of ``--ranks`` ranks (``ioscore.results.synthetic``,
written under /dev/shm) is stored once per side the way the validation worker stores it
(``run_rows.iter_phase_rows``, one ``PhaseResult`` per phase), each side as its own accepted
submission in one database migrated by this tree (the change is a data migration only: the
older code runs on it unchanged). Then, in fresh processes alternating between the sides,
the public result page is viewed; per side it prints the store time and peak RSS, the bytes
stored per run (the per-rank columns as PostgreSQL holds them, TOAST-compressed, and as
JSON text), the page's server time, its size and the peak RSS of the viewing process.

Usage (from the repository root):

    .venv/bin/python bench/big_run_page.py --before-src main [--ranks 100000] [--runs 3]

Not a test: it asserts nothing. It drops and creates database ``--database`` (default
``ioscore_bench_big_run``) and drops it at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVER = "postgresql://postgres@127.0.0.1:5432"
VIEWS = 3  # page views per process; the first one's RSS is the process's peak


def _django(src: Path, url: str) -> None:
    sys.path.insert(0, str(src / "bench"))
    import pages_bench as pb

    pb.setup_django(url, pb.shim_dir())


def _peak_mb() -> float:
    """This process's peak RSS (VmHWM: ``ru_maxrss`` survives exec, so a child would report
    the parent's peak of holding the document)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def store(src: Path, url: str, path: Path, side: str) -> dict[str, Any]:
    """Store the run as an accepted, public submission as this side's worker would."""
    _django(src, url)
    from datetime import date

    from django.contrib.auth.models import User

    from accounts.models import Site
    from ioscore.results.loader import load_run
    from submissions import run_rows
    from submissions.models import PhaseResult, Release, Status, Submission

    site, _ = Site.objects.get_or_create(name="Bench Site", abbreviation="BS", country="DEU")
    owner, _ = User.objects.get_or_create(username="bench")
    release, _ = Release.objects.get_or_create(
        acronym="BIG1",
        defaults={
            "name": "bench release",
            "release_date": date(2025, 1, 1),
            "submission_deadline": date(2024, 12, 1),
        },
    )
    before = _peak_mb()
    started = time.perf_counter()
    run = load_run(path.parent)
    parsed = time.perf_counter()
    submission = Submission.objects.create(
        release=release, owner=owner, site=site, status=Status.ACCEPTED, run_format=run.format
    )
    for row in run_rows.iter_phase_rows(run):  # what the worker's _store does
        PhaseResult.objects.create(submission=submission, **row)
    done = time.perf_counter()
    return {
        "submission": submission.pk,
        "parse_s": parsed - started,
        "store_s": done - parsed,
        "store_peak_mb": _peak_mb(),
        "baseline_mb": before,
        "side": side,
    }


def view(src: Path, url: str, submission: int) -> dict[str, Any]:
    """The result page, ``VIEWS`` times, in this fresh process."""
    _django(src, url)
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host
    client = Client()
    assert client.get("/").status_code == 200  # imports and connections, not the page's cost
    baseline = _peak_mb()
    times, size = [], 0
    for n in range(VIEWS):
        started = time.perf_counter()
        response = client.get(f"/results/{submission}/?bench={n}")  # past the page cache
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
        size = len(response.content)
    return {
        "page_ms": statistics.median(times),
        "page_bytes": size,
        "page_peak_mb": _peak_mb(),
        "page_rss_growth_mb": _peak_mb() - baseline,
    }


def stored_bytes(database: str, submission: int) -> dict[str, float]:
    sql = (
        "SELECT sum(pg_column_size(ranks) + pg_column_size(timeseries)"
        " + coalesce(pg_column_size(rank_summary), 0)),"
        " sum(octet_length(ranks::text) + octet_length(coalesce(timeseries::text, ''))"
        " + octet_length(coalesce(rank_summary::text, '')))"
        f" FROM submissions_phaseresult WHERE submission_id = {int(submission)}"
    )
    out = _psql(database, sql)
    held, text = map(int, out.split("|"))
    return {"stored_mb": held / 2**20, "json_mb": text / 2**20}


def _psql(database: str, sql: str) -> str:
    return subprocess.run(
        ["psql", f"{SERVER}/{database}", "-Atc", sql], check=True, capture_output=True, text=True
    ).stdout.strip()


def child(args: list[str]) -> None:
    kind, src, url, what = args[0], Path(args[1]), args[2], args[3]
    result = store(src, url, Path(what), args[4]) if kind == "store" else view(src, url, int(what))
    print(json.dumps(result))


def run_child(src: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src / "runners")}
    out = subprocess.run(
        [sys.executable, __file__, "--child", args[0], str(src), *args[1:]],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def export(revision: str) -> Path:
    """The code of ``revision`` (what a run imports) in a temporary directory."""
    target = Path(tempfile.mkdtemp(prefix="big-run-page-"))
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", revision, "bench", "webapp", "runners"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def prepare(database: str) -> str:
    _psql("postgres", f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    _psql("postgres", f'CREATE DATABASE "{database}"')
    url = f"{SERVER}/{database}"
    env = {**os.environ, "DATABASE_URL": url, "IOSCORE_INSECURE_DEV_KEY": "1"}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=HERE.parent / "webapp",
        check=True,
        env={**env, "PYTHONPATH": str(HERE.parent / "runners")},
    )
    return url


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", required=True, help="a directory or a git revision")
    parser.add_argument("--ranks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database", default="ioscore_bench_big_run")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()
    before_src = Path(args.before_src)
    exported = None if before_src.is_dir() else export(args.before_src)
    sides = {"before": exported or before_src, "after": HERE.parent}
    scratch = Path(tempfile.mkdtemp(prefix="big-run-page-", dir="/dev/shm"))
    try:
        sys.path.insert(0, str(HERE.parent / "runners"))
        from ioscore.results import synthetic

        document = synthetic.full_document(args.ranks, ppn=100, slow_hosts=(1,))
        path = scratch / "run" / "result.json"
        path.parent.mkdir()
        path.write_text(json.dumps(document), encoding="utf-8")
        del document
        print(f"{args.ranks:,} ranks: result.json of {path.stat().st_size / 2**20:.0f} MB")
        url = prepare(args.database)
        stored = {
            side: run_child(src, "store", url, str(path), side) for side, src in sides.items()
        }
        for side, result in stored.items():
            result.update(stored_bytes(args.database, result["submission"]))
            print(f"stored {side:6} " + " ".join(f"{k}={v}" for k, v in result.items()))
        views: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for n in range(args.runs):
            for side, src in sides.items():
                result = run_child(src, "view", url, str(stored[side]["submission"]))
                views[side].append(result)
                print(f"view {n + 1} {side:6} " + " ".join(f"{k}={v}" for k, v in result.items()))
        report(stored, views)
        if not args.keep:
            _psql("postgres", f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
    finally:
        shutil.rmtree(scratch)
        if exported is not None:
            shutil.rmtree(exported)


def report(stored: dict[str, dict[str, Any]], views: dict[str, list[dict[str, Any]]]) -> None:
    print()
    print(
        f"{'':8}{'store s':>9}{'store MB':>10}{'held MB':>9}{'JSON MB':>9}"
        f"{'page ms':>10}{'page KB':>10}{'page RSS MB':>13}"
    )
    for side, runs in views.items():
        s = stored[side]
        ms = statistics.median(r["page_ms"] for r in runs)
        kb = statistics.median(r["page_bytes"] for r in runs) / 1024
        rss = statistics.median(r["page_peak_mb"] for r in runs)
        print(
            f"{side:8}{s['store_s']:9.2f}{s['store_peak_mb']:10.0f}{s['stored_mb']:9.1f}"
            f"{s['json_mb']:9.1f}{ms:10.1f}{kb:10.0f}{rss:13.0f}"
        )
    ratio = statistics.median(r["page_ms"] for r in views["before"]) / statistics.median(
        r["page_ms"] for r in views["after"]
    )
    print(f"\npage server time before / after (medians of {len(views['after'])}): {ratio:.1f}x")


if __name__ == "__main__":
    main()
