"""Shared fixtures: the real corpus, a small cast of users per role, an open release, an
isolated media dir, and a real Celery worker subprocess on the pytest-django test database.

The worker is started lazily (only tests that request ``celery_worker`` pay for it) and
consumes its own queue, so a developer's running worker never steals test tasks.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.services import Worker, worker_broker_env, worker_database_url

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "data"
SAMPLE_ARCHIVE_DIR = REPO_ROOT / "examples" / "io500-sample"
CORPUS_MISSING = (
    f"needs the full IO500 data at {CORPUS_DIR} (the folder beside the repository), "
    "which is not there"
)


def corpus_present() -> bool:
    return (CORPUS_DIR / "io500-submissions" / "index.csv").is_file()


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The full IO500 data folder (../shared/data); tests using it skip without it."""
    if not corpus_present():
        pytest.skip(CORPUS_MISSING)
    return CORPUS_DIR


@pytest.fixture(scope="session")
def sample_archive_dir() -> Path:
    """The small real sample of the IO500 archive carried in the repository."""
    if not (SAMPLE_ARCHIVE_DIR / "io500-archive-dev").is_dir():
        pytest.fail(f"the in-repository IO500 sample {SAMPLE_ARCHIVE_DIR} is missing")
    return SAMPLE_ARCHIVE_DIR


# --- which tests need the full corpus ---------------------------------------------------------


def _corpus_names(module: Any) -> set[str]:
    """Global names of a module whose value is a path inside the full corpus."""
    return {
        name
        for name, value in vars(module).items()
        if isinstance(value, Path) and value.is_relative_to(CORPUS_DIR)
    }


def needs_full_corpus(item: pytest.Item) -> bool:
    """A test needs ../shared/data when it uses the corpus_dir fixture, its module names a
    path inside it (DEV, SC25_RUN, ...), or one of its fixtures' code does (sc25_copy)."""
    if "corpus_dir" in getattr(item, "fixturenames", ()):
        return True
    module = getattr(item, "module", None)
    if module is not None and module.__name__ != __name__ and _corpus_names(module):
        return True
    fixture_info = getattr(item, "_fixtureinfo", None)  # pytest keeps the closure here
    for definitions in getattr(fixture_info, "name2fixturedefs", {}).values():
        for definition in definitions:
            func = definition.func
            home = sys.modules.get(func.__module__)
            code = getattr(func, "__code__", None)
            if home is None or home.__name__ == __name__ or code is None:
                continue
            if _corpus_names(home) & set(code.co_names):
                return True
    return False


CORPUS_TESTS = pytest.StashKey[set[str]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    corpus_tests = {item.nodeid for item in items if needs_full_corpus(item)}
    config.stash[CORPUS_TESTS] = corpus_tests
    if not corpus_present():
        skip = pytest.mark.skip(reason=CORPUS_MISSING)
        for item in items:
            if item.nodeid in corpus_tests:
                item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Say which tests used the full corpus, per file: ran, or skipped because it is absent."""
    corpus_tests = config.stash.get(CORPUS_TESTS, set())
    if not corpus_tests:
        return
    # One outcome per test, the worst of its reports (a teardown error counts too).
    outcomes: dict[str, str] = {}
    for outcome in ("passed", "skipped", "failed", "error"):  # later ones win
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "nodeid", None) in corpus_tests:
                outcomes[report.nodeid] = outcome
    per_file: dict[str, dict[str, int]] = {}
    for nodeid, outcome in outcomes.items():
        counts = per_file.setdefault(nodeid.split("::")[0], {})
        counts[outcome] = counts.get(outcome, 0) + 1
    where = "present" if corpus_present() else "ABSENT"
    terminalreporter.write_sep("-", f"full IO500 corpus {CORPUS_DIR}: {where}")
    for path, counts in sorted(per_file.items()):
        ran = sum(n for outcome, n in counts.items() if outcome != "skipped")
        detail = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        terminalreporter.write_line(f"{path}: {ran} ran ({detail})")


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


@pytest.fixture(scope="session")
def worker_pool(
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
    broker_env = worker_broker_env()

    def start(queue: str | None, pool: str = "solo", **extra_env: str) -> Worker:
        env = {**broker_env, **extra_env}
        name = f"{queue or 'default'}-{len(started)}"
        worker = Worker(queue, url, media_root, logs / f"{name}.log", env, pool)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def worker_factory(worker_pool: Callable[..., Worker]) -> Iterator[Callable[..., Worker]]:
    """worker_pool for one test: the workers it starts live on (until the session ends), but
    the test ends only when they are idle, before its database is flushed under them (the
    e-mail tasks of their last transitions come after the state the test waited for)."""
    mine: list[Worker] = []

    def start(queue: str | None, pool: str = "solo", **extra_env: str) -> Worker:
        mine.append(worker_pool(queue, pool, **extra_env))
        return mine[-1]

    yield start
    for worker in mine:
        worker.wait_idle()


@pytest.fixture(scope="session")
def celery_worker(worker_pool: Callable[..., Worker]) -> Worker:
    """One worker for the session, on its own queue."""
    return worker_pool(f"ioscore-test-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def validation_queue(celery_worker: Worker, settings: Any, media_root: Path) -> Iterator[Worker]:
    """Route validation (and e-mail) tasks of this test to the session worker; afterwards
    wait until the worker is idle, so the test database is not flushed under its feet."""
    settings.IOSCORE_VALIDATION_QUEUE = celery_worker.queue
    settings.IOSCORE_NOTIFICATION_QUEUE = celery_worker.queue
    settings.IOSCORE_NOTIFICATIONS = True
    yield celery_worker
    celery_worker.wait_idle()


@pytest.fixture
def lists_queue(celery_worker: Worker, settings: Any) -> Iterator[Worker]:
    """Route this test's list updates (queued by acceptances) to the session worker; the
    worker is idle again before the test database is flushed."""
    settings.IOSCORE_LIST_UPDATES = True
    settings.IOSCORE_LISTS_QUEUE = celery_worker.queue
    yield celery_worker
    celery_worker.wait_idle()


@pytest.fixture(autouse=True)
def _no_stray_notifications(request: pytest.FixtureRequest) -> None:
    """Transitions committed by tests without a worker must not leave e-mail or list-update
    tasks on the broker's default queue; tests that route tasks to a worker turn them back on.
    List updates stay off with ``validation_queue`` too: tests that accept and then build the
    lists themselves must not race a worker doing the same (``lists_queue`` turns them on)."""
    uses_database = "django_db_setup" in request.fixturenames
    if uses_database and "validation_queue" not in request.fixturenames:
        request.getfixturevalue("settings").IOSCORE_NOTIFICATIONS = False
    if uses_database and "lists_queue" not in request.fixturenames:
        request.getfixturevalue("settings").IOSCORE_LIST_UPDATES = False
