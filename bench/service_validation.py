"""Service benchmark: upload -> validated latency, task time, and the corpus import.

Prints measured values next to their targets:
* median time from the upload request to the validated state for a real corpus submission
  (target < 1 s end to end) and the median task time (target < 200 ms);
* import of the whole dev corpus with ``import_io500`` (target < 30 s), first run and the
  idempotent re-run.

It runs against the PostgreSQL server of ``DATABASE_URL`` and the broker of
``CELERY_BROKER_URL``, in a scratch database it creates and drops itself (nothing else is
touched), with a real Celery worker subprocess and a temporary media directory.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore \
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/service_validation.py
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
WEBAPP = REPO / "webapp"
CORPUS = REPO.parent / "shared" / "data"
sys.path[:0] = [str(WEBAPP), str(REPO)]


def _admin_url(url: str, database: str) -> str:
    base, _, _name = url.rpartition("/")
    return f"{base}/{database}"


def _create_scratch_db(url: str) -> tuple[str, str]:
    import psycopg

    name = f"ioscore_bench_{os.getpid()}"
    with psycopg.connect(_admin_url(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, _admin_url(url, name)


def _drop_scratch_db(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(_admin_url(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=15)
    parser.add_argument("--submission", default="760", help="corpus submission id to upload")
    args = parser.parse_args()
    base_url = os.environ.get("DATABASE_URL")
    if not base_url or not os.environ.get("CELERY_BROKER_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis)")
    name, url = _create_scratch_db(base_url)
    media = Path(tempfile.mkdtemp(prefix="ioscore-bench-media-"))
    queue = f"ioscore-bench-{uuid.uuid4().hex[:8]}"
    os.environ.update(
        {
            "DATABASE_URL": url,
            "IOSCORE_MEDIA_DIR": str(media),
            "DEBUG": "1",
            "IOSCORE_VALIDATION_QUEUE": queue,
            "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "testserver",
        }
    )  # the in-process client
    worker = None
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioscore_site.settings")
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        worker = start_worker(queue, media.parent / f"{media.name}-worker.log")
        results = _bench_uploads(args.uploads, args.submission)
        imports = _bench_import()
    finally:
        if worker is not None:
            worker.send_signal(signal.SIGTERM)
            worker.wait(30)
        from django.db import connections

        connections.close_all()
        _drop_scratch_db(base_url, name)
        import shutil

        shutil.rmtree(media, ignore_errors=True)  # the temporary dir created above
    _report(results, imports)
    return 0


def start_worker(queue: str, log: Path, src: Path = REPO) -> subprocess.Popen[bytes]:
    """A Celery worker (solo pool) of the code in ``src`` on ``queue``, once it is ready."""
    path = [str(src / "webapp"), str(src / "runners"), str(REPO)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    command = [sys.executable, "-m", "celery", "-A", "ioscore_site", "worker", "--pool=solo"]
    command += ["-Q", queue, "--loglevel=INFO", "--without-gossip", "--without-mingle"]
    command += ["--without-heartbeat"]
    process = subprocess.Popen(
        command, cwd=src / "webapp", env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 60
    while b" ready." not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"the worker did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.05)
    return process


def submitter_client(acronym: str, versions: list[str]) -> Any:
    """An API client with the token of a new submitter ("bench", of a new site), and a
    release open for submissions that accepts ``versions``."""
    from datetime import timedelta

    from django.contrib.auth.models import Group, User
    from django.utils import timezone
    from rest_framework.test import APIClient

    from accounts.models import ApiToken, Site
    from submissions.models import Release

    user = User.objects.create_user("bench")
    user.groups.add(Group.objects.get(name="submitter"))
    site = Site.objects.create(name="Bench Site")
    site.members.add(user)
    today = timezone.now().date()
    Release.objects.create(
        acronym=acronym,
        release_date=today + timedelta(days=60),
        submission_deadline=today + timedelta(days=30),
        accepted_versions=versions,
    )
    _token, raw = ApiToken.issue(user, site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def _bench_uploads(count: int, submission_id: str) -> dict[str, list[float]]:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from submissions.models import Submission
    from tests.webapp.helpers import QUESTIONNAIRE, corpus_archive, example_system

    client = submitter_client("BENCH", ["io500-sc25"])
    system = json.dumps(example_system())
    answers = json.dumps(QUESTIONNAIRE)
    end_to_end: list[float] = []
    task: list[float] = []
    for i in range(count):
        archive = corpus_archive(CORPUS, submission_id, unique=f"bench upload {i}")
        started = time.perf_counter()
        response = client.post(
            "/api/v1/submissions/",
            {
                "archive": SimpleUploadedFile("run.tgz", archive),
                "system": system,
                "questionnaire": answers,
            },
            format="multipart",
        )
        pk = response.json()["id"]
        while Submission.objects.values_list("status", flat=True).get(pk=pk) not in (
            "under_review",
            "validation_failed",
        ):
            time.sleep(0.005)
        end_to_end.append(time.perf_counter() - started)
        row = Submission.objects.get(pk=pk)
        assert row.validation_started and row.validation_finished
        task.append((row.validation_finished - row.validation_started).total_seconds())
    return {"end_to_end": end_to_end[1:], "task": task[1:]}  # first upload warms caches


def _bench_import() -> list[float]:
    import io

    from django.core.management import call_command

    times = []
    for _ in range(2):
        started = time.perf_counter()
        call_command("import_io500", str(CORPUS), stdout=io.StringIO())
        times.append(time.perf_counter() - started)
    return times


def _report(results: dict[str, Any], imports: list[float]) -> None:
    rows = [
        ("upload -> validated (median)", statistics.median(results["end_to_end"]), 1.0),
        ("upload -> validated (max)", max(results["end_to_end"]), 1.0),
        ("task time (median)", statistics.median(results["task"]), 0.2),
        ("import_io500, first run", imports[0], 30.0),
        ("import_io500, re-run (idempotent)", imports[1], 30.0),
    ]
    print(f"{'measure':<36} {'seconds':>9} {'target':>8} {'ratio':>7}")
    for label, value, target in rows:
        print(f"{label:<36} {value:9.3f} {target:8.3f} {value / target:7.2f}")
    print(f"(uploads measured: {len(results['end_to_end'])}; ratio < 1 meets the target)")


if __name__ == "__main__":
    raise SystemExit(main())
