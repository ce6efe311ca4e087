"""Shared fixtures: the real corpus, a small cast of users per role, an open release, an
isolated media dir, and a real Celery worker subprocess on the pytest-django test database.

The worker is started lazily (only tests that request ``celery_worker`` pay for it) and
consumes its own queue, so a developer's running worker never steals test tasks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "data"
WEBAPP_DIR = REPO_ROOT / "webapp"
WORKER_READY_TIMEOUT_S = 60


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not (CORPUS_DIR / "io500-submissions" / "index.csv").is_file():
        pytest.skip(f"IO500 corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR


# --- media: one directory for the session, shared with the worker -------------------------


@pytest.fixture(scope="session")
def media_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point MEDIA_ROOT (archives, upload temp files, sandboxes) at a temporary directory."""
    from django.conf import settings

    root = tmp_path_factory.mktemp("media")
    saved = {
        k: getattr(settings, k)
        for k in (
            "MEDIA_ROOT",
            "IOSCORE_ARCHIVE_DIR",
            "IOSCORE_SANDBOX_DIR",
            "FILE_UPLOAD_TEMP_DIR",
        )
    }
    settings.MEDIA_ROOT = root
    settings.IOSCORE_ARCHIVE_DIR = root / "archives"
    settings.IOSCORE_SANDBOX_DIR = root / "sandbox"
    settings.FILE_UPLOAD_TEMP_DIR = str(root / "tmp")
    (root / "tmp").mkdir()
    yield root
    for key, value in saved.items():
        setattr(settings, key, value)


@pytest.fixture(autouse=True)
def _fast_password_hashing(request: pytest.FixtureRequest) -> None:
    """PBKDF2 costs ~0.3 s per user; tests create many users and never need real hashing.
    (Skipped when pytest runs with ``-p no:django``, as the suite's own tests do.)"""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings = request.getfixturevalue("settings")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache(request: pytest.FixtureRequest) -> None:
    """Every test starts with an empty cache: the rate-limit counters (all test requests come
    from one address) and cached pages never carry over from an earlier test."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.core.cache import cache

    cache.clear()


# --- the cast -------------------------------------------------------------------------------


@dataclass
class Cast:
    site: Any
    other_site: Any
    submitter: Any
    other_submitter: Any
    reviewer: Any
    admin: Any
    password: str = "correct horse battery staple"


@pytest.fixture
def cast(db: None) -> Cast:
    """One user per role (+ a submitter of another site), in their role groups."""
    from django.contrib.auth.models import Group, User

    from accounts.models import Site
    from accounts.roles import ADMIN, REVIEWER, SUBMITTER

    def user(name: str, group: str) -> Any:
        account = User.objects.create_user(name, f"{name}@example.org", Cast.password)
        account.groups.add(Group.objects.get_or_create(name=group)[0])
        return account

    site = Site.objects.create(name="Test University", abbreviation="TU", country="DEU")
    other_site = Site.objects.create(name="Other Lab", abbreviation="OL", country="USA")
    people = Cast(
        site,
        other_site,
        user("submitter", SUBMITTER),
        user("other", SUBMITTER),
        user("reviewer", REVIEWER),
        user("admin", ADMIN),
    )
    site.members.add(people.submitter)
    other_site.members.add(people.other_submitter)
    return people


@pytest.fixture
def open_release(db: None) -> Any:
    """A release still open for submissions that accepts the SC25 tag (corpus run 760)."""
    from datetime import date

    from django.utils import timezone

    from submissions.models import Release

    today = timezone.now().date()
    return Release.objects.create(
        acronym="TST99",
        name="test release",
        release_date=today + timedelta(days=60),
        submission_deadline=today + timedelta(days=30),
        tag_date=date(2025, 9, 1),
        accepted_versions=["io500-sc25"],
    )


# --- Celery ---------------------------------------------------------------------------------


class Worker:
    """A `celery worker --pool=solo` subprocess on the test database."""

    def __init__(
        self,
        queue: str,
        database_url: str,
        media: Path,
        log: Path,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.queue = queue
        self.log = log
        self.mail_dir = log.with_suffix(".mail")  # its e-mails, one file per message
        env = dict(os.environ)
        env.update(
            {
                "DATABASE_URL": database_url,
                "IOSCORE_MEDIA_DIR": str(media),
                "DEBUG": "1",
                "IOSCORE_BROKER_VISIBILITY_TIMEOUT": "3",
                "IOSCORE_VALIDATION_QUEUE": queue,
                "IOSCORE_NOTIFICATION_QUEUE": queue,
                "IOSCORE_EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                "IOSCORE_EMAIL_FILE_PATH": str(self.mail_dir),
                "PYTHONPATH": os.pathsep.join(
                    [str(WEBAPP_DIR), str(REPO_ROOT), env.get("PYTHONPATH", "")]
                ),
            }
        )
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "ioscore_site",
                "worker",
                "--pool=solo",
                "--concurrency=1",
                "-Q",
                queue,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"{queue}@%h",
                "--loglevel=INFO",
            ],
            cwd=WEBAPP_DIR,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + WORKER_READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery worker exited:\n{self.log.read_text()[-3000:]}")
            if b" ready." in self.log.read_bytes():
                return
            time.sleep(0.1)
        raise RuntimeError(f"celery worker not ready:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL, as a crash or OOM would: no ack, no cleanup."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def worker_database_url() -> str:
    from django.db import connection

    params = connection.settings_dict
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgresql://{user}{password}@{host}:{port}/{params['NAME']}"


@pytest.fixture(scope="session")
def worker_factory(
    django_db_setup: None,
    django_db_blocker: Any,
    media_root: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., Worker]]:
    """Start workers on the test database; all are stopped before the database is dropped."""
    started: list[Worker] = []
    logs = tmp_path_factory.mktemp("celery")
    with django_db_blocker.unblock():
        url = worker_database_url()

    def start(queue: str, **extra_env: str) -> Worker:
        worker = Worker(queue, url, media_root, logs / f"{queue}-{len(started)}.log", extra_env)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture(scope="session")
def celery_worker(worker_factory: Callable[..., Worker]) -> Worker:
    """One worker for the session, on its own queue."""
    return worker_factory(f"ioscore-test-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def validation_queue(celery_worker: Worker, settings: Any, media_root: Path) -> Worker:
    """Route validation (and e-mail) tasks of this test to the session worker."""
    settings.IOSCORE_VALIDATION_QUEUE = celery_worker.queue
    settings.IOSCORE_NOTIFICATION_QUEUE = celery_worker.queue
    settings.IOSCORE_NOTIFICATIONS = True
    return celery_worker


@pytest.fixture(autouse=True)
def _no_stray_notifications(request: pytest.FixtureRequest) -> None:
    """Transitions committed by tests without a worker must not leave e-mail tasks on the
    broker's default queue; tests that route tasks to a worker turn them back on."""
    uses_database = "django_db_setup" in request.fixturenames
    if uses_database and "validation_queue" not in request.fixturenames:
        request.getfixturevalue("settings").IOSCORE_NOTIFICATIONS = False
