#!/usr/bin/env python3
"""A run uploaded in the full form above the rank-detail threshold, through the
service, against an earlier version of the code: side by side, in alternation.

A synthetic full-form ``result.json`` of ``--ranks`` ranks (``ioscore.results.synthetic``)
is uploaded through the API (this tree's intake) as a .tar.gz and validated by a real Celery
worker (solo pool) started from each side's code, a fresh worker per upload; then that
side's code shows the run's page to its submitter, in fresh processes. Per side it prints:
upload-to-validated and task time, the worker's peak RSS (the task runs in it; its limited
child parses the file), the bytes stored per run (the per-rank columns, TOAST-compressed,
and as JSON text), the page's server time, size and the viewing process's peak RSS.

Everything lives in a scratch database (migrated by this tree: the change is a data
migration, the older code runs on it unchanged) and a media directory under /dev/shm, both
removed at the end.

Usage (from the repository root; Redis as the broker):

    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 .venv/bin/python bench/big_run.py \\
        --before-src main [--ranks 100000] [--runs 3]

Not a test: it asserts nothing but that every upload is validated and every page shown.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from revisions import export
from service_validation import start_worker, submitter_client

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SERVER = "postgresql://postgres@127.0.0.1:5432"
VIEWS = 3  # page views per process
DONE = ("under_review", "validation_failed")


def _peak_mb(pid: int | str = "self") -> float:
    """A process's peak RSS (VmHWM; ``ru_maxrss`` would survive exec, so a child would
    report its parent's peak)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _django(src: Path) -> None:
    """Django from ``src`` with the settings the bench's environment gives."""
    for entry in (str(REPO), str(src / "runners"), str(src / "webapp")):
        sys.path.insert(0, entry)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioscore_site.settings")
    import django

    django.setup()


# --- the page, in a fresh process of one side ------------------------------------------------


def view(src: Path, submission: int) -> dict[str, Any]:
    _django(src)
    from django.contrib.auth.models import User
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host
    client = Client()
    client.force_login(User.objects.get(username="bench"))
    assert client.get("/submissions/mine/").status_code == 200  # imports, connections
    baseline = _peak_mb()
    times, size = [], 0
    for n in range(VIEWS):
        started = time.perf_counter()
        response = client.get(f"/submissions/{submission}/?bench={n}")
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
        size = len(response.content)
    return {
        "page_ms": statistics.median(times),
        "page_bytes": size,
        "page_peak_mb": _peak_mb(),
        "page_rss_growth_mb": _peak_mb() - baseline,
    }


# --- the upload, from this process, validated by a worker of one side ------------------------


def archive_of(document: bytes) -> bytes:
    """A unique upload: the run's result.json, a job script and its output."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for name, content in (
            ("run/result.json", document),
            ("job/run.slurm", b"#!/bin/bash\nsrun ioscore-suite run config.ini\n"),
            ("job/slurm-1.out", f"bench upload {uuid.uuid4()}\n".encode()),
        ):
            member = tarfile.TarInfo(name)
            member.size = len(content)
            member.mtime = 1_700_000_000
            tar.addfile(member, io.BytesIO(content))
    return buffer.getvalue()


def upload(client: Any, document: bytes) -> dict[str, Any]:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from submissions.models import Submission
    from tests.webapp.helpers import QUESTIONNAIRE, example_system

    archive = archive_of(document)
    started = time.perf_counter()
    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("run.tar.gz", archive),
            "system": json.dumps(example_system()),
            "questionnaire": json.dumps(QUESTIONNAIRE),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content[:500]
    pk = response.json()["id"]
    while Submission.objects.values_list("status", flat=True).get(pk=pk) not in DONE:
        time.sleep(0.05)
    took = time.perf_counter() - started
    row = Submission.objects.get(pk=pk)
    assert row.validation_started and row.validation_finished
    return {
        "submission": pk,
        "archive_mb": len(archive) / 2**20,
        "validated_s": took,
        "task_s": (row.validation_finished - row.validation_started).total_seconds(),
        "state": row.status,
        "phases": row.phases.count(),
        # why a synthetic run fails validation (no real system: rules, not the ingest)
        "blocking": ",".join(
            sorted(set(row.issues.filter(severity="invalid").values_list("rule", flat=True)))
        ),
    }


def stored_bytes(submission: int) -> dict[str, float]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_column_size(ranks) + coalesce(pg_column_size(timeseries), 0)"
            " + coalesce(pg_column_size(rank_summary), 0)),"
            " sum(octet_length(ranks::text) + octet_length(coalesce(timeseries::text, ''))"
            " + octet_length(coalesce(rank_summary::text, '')))"
            " FROM submissions_phaseresult WHERE submission_id = %s",
            [submission],
        )
        held, text = cursor.fetchone()
    return {"stored_mb": held / 2**20, "json_mb": text / 2**20}


def run_view(src: Path, submission: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src / "runners")}
    out = subprocess.run(
        [sys.executable, __file__, "--view", str(src), str(submission)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--view":
        print(json.dumps(view(Path(sys.argv[2]), int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", required=True, help="a directory or a git revision")
    parser.add_argument("--ranks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://"):
        sys.exit("set CELERY_BROKER_URL to a Redis database (redis://127.0.0.1:6379/N)")
    before_src = Path(args.before_src)
    exported = None if before_src.is_dir() else export(args.before_src, "big-run-")
    sides = {"before": exported or before_src, "after": REPO}
    scratch = Path(tempfile.mkdtemp(prefix="big-run-", dir="/dev/shm"))
    database = f"ioscore_bench_big_run_{os.getpid()}"
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", database], check=True)
    os.environ.update(
        {
            "DATABASE_URL": f"{SERVER}/{database}",
            "IOSCORE_MEDIA_DIR": str(scratch / "media"),
            "IOSCORE_INSECURE_DEV_KEY": "1",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "testserver",
            "LOG_LEVEL": "WARNING",
            # both sides' workers and this process on one name (the default derives it
            # from the code's path too); one worker at a time, a fresh one per upload
            "IOSCORE_INSTANCE": database,
            "IOSCORE_VALIDATION_QUEUE": database,
        }
    )
    try:
        _django(REPO)
        from django.core.management import call_command
        from django.db import connections

        from ioscore.results import synthetic

        call_command("migrate", verbosity=0)
        client = submitter_client("BIGRUN", ["synthetic"])
        document = json.dumps(
            synthetic.full_document(args.ranks, ppn=100, slow_hosts=(1,))
        ).encode()
        print(f"{args.ranks:,} ranks: result.json of {len(document) / 2**20:.0f} MB")
        results: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for n in range(args.runs):
            for side, src in sides.items():
                log = scratch / f"worker-{side}-{n}.log"
                worker = start_worker(os.environ["IOSCORE_VALIDATION_QUEUE"], log, src)
                try:
                    result = upload(client, document)
                    result["worker_peak_mb"] = _peak_mb(worker.pid)
                finally:
                    worker.send_signal(signal.SIGTERM)
                    worker.wait(60)
                result.update(stored_bytes(result["submission"]))
                connections.close_all()  # the view's process reads what was committed
                result.update(run_view(src, result["submission"]))
                results[side].append(result)
                print(f"run {n + 1} {side:6} " + " ".join(f"{k}={v}" for k, v in result.items()))
        report(results)
    finally:
        from django.db import connections

        connections.close_all()
        subprocess.run(
            ["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--force", database], check=False
        )
        shutil.rmtree(scratch, ignore_errors=True)
        if exported is not None:
            shutil.rmtree(exported)


def report(results: dict[str, list[dict[str, Any]]]) -> None:
    columns = (
        ("validated_s", "validated s", "{:.1f}"),
        ("task_s", "task s", "{:.1f}"),
        ("worker_peak_mb", "worker MB", "{:.0f}"),
        ("stored_mb", "held MB", "{:.1f}"),
        ("json_mb", "JSON MB", "{:.1f}"),
        ("page_ms", "page ms", "{:.1f}"),
        ("page_bytes", "page KB", "{:.0f}"),
        ("page_peak_mb", "page RSS MB", "{:.0f}"),
    )
    print(f"\nmedians of {len(results['after'])} runs")
    print(f"{'':8}" + "".join(f"{label:>13}" for _, label, _ in columns) + f"{'state':>14}")
    for side, runs in results.items():
        cells = []
        for key, _, shape in columns:
            value = statistics.median(r[key] for r in runs)
            cells.append(shape.format(value / 1024 if key == "page_bytes" else value))
        states = ",".join(sorted({r["state"] for r in runs}))
        print(f"{side:8}" + "".join(f"{c:>13}" for c in cells) + f"{states:>14}")
    for key, label in (("validated_s", "upload to validated"), ("page_ms", "page server time")):
        ratio = statistics.median(r[key] for r in results["before"]) / statistics.median(
            r[key] for r in results["after"]
        )
        print(f"{label} before / after: {ratio:.1f}x")


if __name__ == "__main__":
    main()
