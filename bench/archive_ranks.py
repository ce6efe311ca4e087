#!/usr/bin/env python3
"""Benchmark: the IO500 archive's per-rank CSVs at Aurora's scale through the importer.
For each rank count (default: the real 2,080 of the dev archive's Aurora DAOS run
and 62,400, the archive's largest run, extended in the CSVs' exact format by
``tests/webapp/archive_rank_csvs.py``) it imports the run with ``manage.py import_io500``
into a scratch database and prints

* the import time (the whole command: parse, summarise, write);
* per phase the stored size of ``PhaseResult.ranks`` and ``rank_summary`` (PostgreSQL's
  ``pg_column_size``, i.e. after TOAST compression, and the JSON text length);
* the result page's server time (in-process client, median of 5) and size.

Usage (from the repository root; DATABASE_URL names the server, a scratch database is
created and dropped):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore \\
        .venv/bin/python bench/archive_ranks.py [--ranks 2080,62400]

Not a test: it asserts nothing. Run it on an older checkout (the file copied in) for "before".
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WEBAPP = REPO / "webapp"
sys.path[:0] = [str(WEBAPP), str(REPO), str(REPO / "runners")]

EXTERNAL_ID = "io500:694"


def _admin_url(url: str, database: str) -> str:
    base, _, _name = url.rpartition("/")
    return f"{base}/{database}"


def _scratch_db(url: str, drop: bool = False) -> tuple[str, str]:
    import psycopg

    name = f"ioscore_bench_archive_{os.getpid()}"
    with psycopg.connect(_admin_url(url, "postgres"), autocommit=True) as conn:
        if drop:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        else:
            conn.execute(f'CREATE DATABASE "{name}"')
    return name, _admin_url(url, name)


def _measure(ranks: int, work: Path) -> dict[str, object]:
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from submissions.models import Submission
    from tests.webapp.archive_rank_csvs import aurora_archive

    root = work / str(ranks)
    aurora_archive(root, ranks, range(ranks // 2, ranks // 2 + 12))
    started, cpu = time.perf_counter(), time.process_time()
    call_command("import_io500", str(root), stdout=io.StringIO())
    took, took_cpu = time.perf_counter() - started, time.process_time() - cpu
    run = Submission.objects.get(external_id=EXTERNAL_ID)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, pg_column_size(ranks), coalesce(pg_column_size(rank_summary), 0),"
            " octet_length(ranks::text) + coalesce(octet_length(rank_summary::text), 0)"
            " FROM submissions_phaseresult WHERE submission_id = %s AND ranks <> '[]'::jsonb"
            ' ORDER BY "order"',
            [run.pk],
        )
        phases = cursor.fetchall()
    client, times, cpu_times, size = Client(), [], [], 0
    for _ in range(5):
        started, cpu = time.perf_counter(), time.process_time()
        response = client.get(f"/results/{run.pk}/")
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu)
        size = len(response.content)
    Submission.objects.filter(pk=run.pk).delete()  # the next size imports afresh
    shutil.rmtree(root)
    return {
        "ranks": ranks,
        "import_s": took,
        "import_cpu_s": took_cpu,
        "phases": phases,
        "page_ms": statistics.median(times) * 1000,
        "page_cpu_ms": statistics.median(cpu_times) * 1000,
        "page_bytes": size,
    }


def _report(rows: list[dict[str, object]]) -> None:
    print("\nper phase (stored, after TOAST compression; JSON text in brackets)")
    print(f"{'ranks':>7} {'phase':<20} {'ranks col':>12} {'summary col':>12} {'JSON text':>12}")
    for row in rows:
        for name, ranks_col, summary_col, text in row["phases"]:  # type: ignore[attr-defined]
            print(f"{row['ranks']:>7} {name:<20} {ranks_col:>12,} {summary_col:>12,} {text:>12,}")
    print("\nwall time and this process's CPU time (the machine may be shared: CPU is steadier)")
    print(
        f"{'ranks':>7} {'import s':>9} {'(cpu s)':>8} {'stored/phase':>13} "
        f"{'page ms':>8} {'(cpu ms)':>9} {'page bytes':>11}"
    )
    for row in rows:
        phases: list[tuple[str, int, int, int]] = row["phases"]  # type: ignore[assignment]
        stored = statistics.mean(r[1] + r[2] for r in phases) if phases else 0
        print(
            f"{row['ranks']:>7} {row['import_s']:>9.2f} {row['import_cpu_s']:>8.2f} "
            f"{stored:>13,.0f} {row['page_ms']:>8.1f} {row['page_cpu_ms']:>9.1f} "
            f"{row['page_bytes']:>11,}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", default="2080,62400")
    args = parser.parse_args()
    base_url = os.environ.get("DATABASE_URL")
    if not base_url:
        sys.exit("set DATABASE_URL (PostgreSQL)")
    _name, url = _scratch_db(base_url)
    work = Path(tempfile.mkdtemp(prefix="archive-ranks-bench-"))
    os.environ.update(
        {"DATABASE_URL": url, "DEBUG": "0", "IOSCORE_INSECURE_DEV_KEY": "1",
         "ALLOWED_HOSTS": "testserver", "LOG_LEVEL": "WARNING"}
    )  # fmt: skip
    rows = []
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioscore_site.settings")
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        for ranks in (int(n) for n in args.ranks.split(",")):
            rows.append(_measure(ranks, work))
    finally:
        from django.db import connections

        connections.close_all()
        _scratch_db(base_url, drop=True)
        shutil.rmtree(work, ignore_errors=True)
    _report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
