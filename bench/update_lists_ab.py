#!/usr/bin/env python3
"""One acceptance's list update at scale, or a full build, against an earlier version of the
code: side by side, in alternation.

Each run is a fresh process of one side: ``--before-src`` (a directory, or a git revision
exported to a temporary one) on database ``--before``, this tree on ``--after`` (the same
database for both when the change needs no migration; else a copy left at the old migration
and a migrated copy). A run accepts one more submission in the newest release
(``service_scale.accept_one``: a copy of its best run, which that run keeps out of every
de-duplicated list) and times ``update_lists``; ``--better-production`` accepts instead a
run better than a Production entry of the release on that entry's storage system (the
entry replaced goes back to Research); ``--build`` times a build of every
list from nothing instead (the lists deleted first, inside a transaction rolled back), and
``--rebuild`` a build over the lists as built (it reads, proposes and compares every list and
writes nothing). Per side it prints the wall time, the CPU time of the Python process (the
builder's own work: a busy machine disturbs it less), the SQL time of the placing UPDATE and
of the list index upkeep, how many of the entry table's row updates were HOT
(``pg_stat_user_tables``), the table and index sizes; then the medians and their ratio.

Usage (from the repository root):

    createdb -T ioscore_service_scale_100000 mine_a; createdb -T ... mine_b
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/mine_b webapp/manage.py migrate
    .venv/bin/python bench/update_lists_ab.py --before mine_a --after mine_b \\
        --before-src main [--runs 3] [--build | --rebuild]

Not a test: it asserts nothing. Every acceptance adds a submission to its database: run it on
copies, never on the generated databases.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from revisions import export

HERE = Path(__file__).resolve().parent
SERVER = "postgresql://postgres@127.0.0.1:5432"
TABLE = "rankings_listentry"


def child(src: Path, url: str, build: str) -> None:
    """In a fresh process: set up Django from ``src``, run once, print the times as JSON."""
    sys.path.insert(0, str(src / "bench"))
    import pages_bench as pb
    import service_scale as ss

    pb.setup_django(url, pb.shim_dir())
    from django.db import connection, transaction

    sql: dict[str, float] = {"placing": 0.0, "list_index": 0.0}

    def timing(execute: Any, text: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(text, params, many, context)
        finally:
            took = time.perf_counter() - started
            if text.startswith(f"UPDATE {TABLE} "):
                sql["placing"] += took
            elif "rankings_listsearchtext" in text or "rankings_listfacet" in text:
                sql["list_index"] += took

    cpu = time.process_time()
    with connection.execute_wrapper(timing):
        if build == "production":
            result = accept_better_production()
        elif build:
            from rankings.maintenance.builder import build_lists
            from rankings.models import RankedList

            with transaction.atomic():
                if build == "scratch":
                    RankedList.objects.all().delete()
                started = time.perf_counter()
                build_lists()
                took = time.perf_counter() - started
                transaction.set_rollback(True)
            result: dict[str, Any] = {"update_s": took}
        else:
            result = ss.accept_one()
    result["cpu_s"] = time.process_time() - cpu
    print(json.dumps({**result, **{f"{k}_s": v for k, v in sql.items()}}))


def accept_better_production() -> dict[str, Any]:
    """Accept, in the newest release, a copy of its best Production entry with a rated
    questionnaire, submitted a minute later at 1.5 times the score, and update the lists
    (as ``service_scale.accept_one``, with the models both sides have)."""
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry, ListState, RankedList
    from submissions.models import PhaseResult, Questionnaire, Release, Submission

    release = Release.objects.order_by("-release_date").first()
    assert release is not None
    newest = RankedList.objects.filter(release=release)
    states = list(newest.values_list("pk", "state", "frozen_at", "published_at"))
    newest.update(state=ListState.DRAFT, frozen_at=None, published_at=None)
    best = (
        ListEntry.objects.filter(
            ranked_list__release=release,
            ranked_list__list_type__slug="production",
            origin_release=release,
        )
        .exclude(submission__questionnaire__assigned_level="")
        .order_by("-score")
        .values_list("submission_id", flat=True)
        .first()
    )
    model = Submission.objects.get(pk=best)
    phases = list(model.phases.all())
    description = model.system_description
    questionnaire = Questionnaire.objects.filter(submission=model).first()
    model.pk = None
    model._state.adding = True
    model.submitted_at = (model.submitted_at or model.created) + timedelta(minutes=1)
    model.io500_id = None
    model.score_total = (model.score_total or 0.0) * 1.5
    model.save()
    PhaseResult.objects.bulk_create(
        [
            PhaseResult(submission=model, name=p.name, order=p.order, value=p.value, unit=p.unit)
            for p in phases
        ]
    )
    description.pk = None
    description.submission = model
    description.save()
    if questionnaire is not None:
        questionnaire.pk = None
        questionnaire._state.adding = True
        questionnaire.submission = model
        questionnaire.save()
    started = time.perf_counter()
    report = update_lists([model.pk])
    took = time.perf_counter() - started
    for pk, state, frozen_at, published_at in states:
        RankedList.objects.filter(pk=pk).update(
            state=state, frozen_at=frozen_at, published_at=published_at
        )
    return {
        "update_s": took,
        "written": len(report.created) + len(report.rewritten),
        "skipped": len(report.unchanged),
        "stale": len(report.stale),
    }


def table_stats(database: str) -> tuple[int, int, int, int]:
    """(row updates, HOT updates, heap bytes, index bytes) of the entry table."""
    out = subprocess.run(
        [
            "psql",
            f"{SERVER}/{database}",
            "-Atc",
            "SELECT pg_stat_clear_snapshot(); SELECT n_tup_upd, n_tup_hot_upd, "
            f"pg_table_size('{TABLE}'), pg_indexes_size('{TABLE}') "
            f"FROM pg_stat_user_tables WHERE relname = '{TABLE}'",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[-1]
    upd, hot, heap, index = map(int, out.split("|"))
    return upd, hot, heap, index


def run(src: Path, database: str, build: str) -> dict[str, Any]:
    before = table_stats(database)
    env = {**os.environ, "PYTHONPATH": str(src / "runners")}
    command = [sys.executable, __file__, "--child", str(src), f"{SERVER}/{database}"]
    out = subprocess.run(
        [*command, build],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    time.sleep(1.5)  # the server's statistics of the child's updates
    after = table_stats(database)
    result["updates"] = after[0] - before[0]
    result["hot"] = after[1] - before[1]
    result["heap_mb"], result["index_mb"] = after[2] >> 20, after[3] >> 20
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="database the code before runs on")
    parser.add_argument("--after", required=True, help="database this tree runs on")
    parser.add_argument(
        "--before-src", required=True, help="the code before: a directory or a revision"
    )
    parser.add_argument("--runs", type=int, default=3)
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--build", action="store_const", const="scratch", dest="build", default="")
    how.add_argument("--rebuild", action="store_const", const="over", dest="build")
    how.add_argument("--better-production", action="store_const", const="production", dest="build")
    args = parser.parse_args()
    before_src = Path(args.before_src)
    exported = None if before_src.is_dir() else export(args.before_src, "update-lists-ab-")
    try:
        compare(
            args,
            {"before": (exported or before_src, args.before), "after": (HERE.parent, args.after)},
        )
    finally:
        if exported is not None:
            shutil.rmtree(exported)


def compare(args: argparse.Namespace, sides: dict[str, tuple[Path, str]]) -> None:
    results: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for n in range(args.runs):
        for side, (src, database) in sides.items():
            result = run(src, database, args.build)
            results[side].append(result)
            print(f"run {n + 1} {side:6} " + " ".join(f"{k}={v}" for k, v in result.items()))
    print()
    columns = ("update_s", "cpu_s", "placing_s", "list_index_s")
    print(f"{'median of ' + str(args.runs):14}" + "".join(f"{c:>14}" for c in columns), end="")
    print(f"{'HOT/updates':>16}{'heap MB':>9}{'index MB':>9}")
    for side, runs in results.items():
        row = "".join(f"{statistics.median(r[c] for r in runs):14.3f}" for c in columns)
        last = runs[-1]
        hot = f"{last['hot']}/{last['updates']}"
        print(f"{side:14}{row}{hot:>16}{last['heap_mb']:>9}{last['index_mb']:>9}")
    ratio = statistics.median(r["update_s"] for r in results["before"]) / statistics.median(
        r["update_s"] for r in results["after"]
    )
    cpu_ratio = statistics.median(r["cpu_s"] for r in results["before"]) / statistics.median(
        r["cpu_s"] for r in results["after"]
    )
    print(
        f"\nbefore / after (medians): wall {ratio:.1f}x, CPU of the Python process {cpu_ratio:.1f}x"
    )


if __name__ == "__main__":
    main()
