"""Two instances of the service on one machine and one broker never cross wires: each
submission is validated by its own instance's worker, against its own database.

Instance A is this test process (the test database) with a worker started as `make demo`
starts one (no -Q: it consumes its instance's default queue). Instance B is a second
database on the same server with its own state dir, whose worker and submitting process
derive their instance name themselves; both use the same broker (same Redis database, or the
same SQLAlchemy broker tables)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Status, Submission
from tests.fixtures.services import WEBAPP_DIR, Worker, service_env, worker_database_url

from .helpers import wait_for_status

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]
FINAL = {Status.UNDER_REVIEW, Status.VALIDATION_FAILED}
TASK_RECEIVED = re.compile(r"Task validation\.tasks\.validate_submission\[([0-9a-f-]+)\] received")

# Runs inside instance B: an open release, a submitter, and one upload of the archive at
# argv[1] (which queues its validation on commit); prints the submission's id.
SUBMIT_IN_B = textwrap.dedent(
    """
    import sys
    from datetime import timedelta
    from pathlib import Path
    import django
    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.utils import timezone
    from accounts.models import Site
    from accounts.provisioning import ensure_account
    from accounts.roles import SUBMITTER
    from submissions.intake import receive_upload
    from submissions.models import Release

    today = timezone.now().date()
    Release.objects.create(acronym="B99", name="instance B", release_date=today
        + timedelta(days=60), submission_deadline=today + timedelta(days=30))
    site = Site.objects.create(name="Instance B lab", abbreviation="IB", country="DEU")
    user, _ = ensure_account("b-submitter", SUBMITTER)
    site.members.add(user)
    upload = SimpleUploadedFile("b-run.tgz", Path(sys.argv[1]).read_bytes())
    print(receive_upload(upload, user=user, site=site).submission.pk, flush=True)
    """
)


def _python_in(env: dict[str, str], *args: str) -> str:
    """Run Python in the webapp folder with an instance's environment; its stdout."""
    done = subprocess.run(
        [sys.executable, *args],
        cwd=WEBAPP_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _received(worker: Worker) -> set[str]:
    """Ids of the validation tasks the worker received (a retry comes again, same id)."""
    return set(TASK_RECEIVED.findall(worker.log.read_text(errors="replace")))


@pytest.fixture
def instance_b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A second database on the test server, migrated, with its own state dir."""
    from django.db import connection

    name = f"{connection.settings_dict['NAME']}_b"
    admin_url = worker_database_url()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    var = tmp_path_factory.mktemp("instance-b")
    env = service_env(
        worker_database_url(name),
        IOSCORE_VAR=str(var),
        CELERY_BROKER_URL=str(settings.CELERY_BROKER_URL),  # the broker A uses
        IOSCORE_NOTIFICATIONS="0",
    )
    env.pop("IOSCORE_INSTANCE", None)
    _python_in(env, "manage.py", "migrate", "--noinput")
    yield {"env": env, "var": var, "name": name}
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _instance_name(env: dict[str, str]) -> str:
    probe = _python_in(
        env,
        "-c",
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.IOSCORE_INSTANCE, settings.IOSCORE_VALIDATION_QUEUE)",
    )
    instance, queue = probe.split()
    assert queue == instance  # validation goes to the queue a worker without -Q consumes
    return instance


def test_two_instances_each_validate_their_own_submission(
    cast: Any,
    open_release: Any,
    worker_factory: Any,
    instance_b: dict[str, Any],
    media_root: Path,
) -> None:
    name_b = _instance_name(instance_b["env"])
    assert name_b != settings.IOSCORE_INSTANCE
    assert settings.IOSCORE_VALIDATION_QUEUE == settings.IOSCORE_INSTANCE

    _purge(settings.IOSCORE_INSTANCE)  # tasks earlier tests queued with no worker to run them
    worker_a = worker_factory(None)  # consumes A's default queue, like the demo's worker
    # B submits while A's worker is the only one on the broker: were the wires crossed, A's
    # worker would take B's task now and B's submission would never be validated.
    archive_b = instance_b["var"] / "b-run.tgz"
    archive_b.write_bytes(_tiny_archive(b"instance B's run\n"))
    pk_b = int(_python_in(instance_b["env"], "-c", SUBMIT_IN_B, str(archive_b)).split()[-1])
    worker_b = Worker(
        None,
        instance_b["env"]["DATABASE_URL"],
        instance_b["var"] / "media",
        instance_b["var"] / "worker-b.log",
        # B's own instance name: the worker's defaults are this process's (A's) settings
        {
            **{k: v for k, v in instance_b["env"].items() if k.startswith(("IOSCORE", "CELERY"))},
            "IOSCORE_INSTANCE": name_b,
        },
    )
    try:
        _token, raw = ApiToken.issue(cast.submitter, cast.site)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
        upload = SimpleUploadedFile("a-run.tgz", _tiny_archive(b"instance A's run\n"))
        response = client.post("/api/v1/submissions/", {"archive": upload}, format="multipart")
        assert response.status_code == 201, response.content
        pk_a = response.json()["id"]

        assert wait_for_status(pk_a, FINAL, timeout=60) in FINAL
        assert _wait_in_b(instance_b["env"]["DATABASE_URL"], pk_b) in FINAL
    finally:
        worker_b.stop()

    # Each worker received exactly one validation: its own instance's.
    assert len(_received(worker_a)) == 1, worker_a.log.read_text()[-2000:]
    assert len(_received(worker_b)) == 1, worker_b.log.read_text()[-2000:]
    assert Submission.objects.get(pk=pk_a).validation_attempts == 1


def _purge(queue: str) -> None:
    from ioscore_site.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)


def _tiny_archive(body: bytes) -> bytes:
    import io
    import tarfile

    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        info = tarfile.TarInfo("run/notes.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    return data.getvalue()


def _wait_in_b(database_url: str, pk: int, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT status FROM submissions_submission WHERE id = %s", (pk,)
            ).fetchone()
            if (row and row[0] in FINAL) or time.monotonic() > deadline:
                return str(row[0]) if row else "missing"
            time.sleep(0.3)
