"""Hostile archives at the worker: each ends ``validation_failed`` with a reason that names
the problem (or the limit), within a bounded time, without server paths in any message, and
a normal upload queued behind them is validated by the same worker.

The archives are stored as an earlier intake would have stored them (an archive accepted
before a limit existed, or imported): the worker must hold on its own."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import socket
import tarfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions import intake
from submissions.models import Status, Submission
from validation.tasks import requeue_stuck_validations

from .helpers import QUESTIONNAIRE, corpus_archive, corpus_files, example_system, wait_for_status

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]
DONE = {Status.UNDER_REVIEW, Status.VALIDATION_FAILED}
RUN = "sub-760/results/2025.11.03-14.51.48/"
# Margins of about 4x either way: the normal run needs well under both limits; the memory
# case needs ~800 MB (12M lists), the time case ~40 s of schema checks (250k ranks, ~230 MB).
TIME_LIMIT_S = 10
# Workers of these tests send no e-mail: no task may touch the database after a test ends.
NO_MAIL = {"IOSCORE_NOTIFICATIONS": "0"}
MEMORY_MB = 400


def _tar_gz(files: dict[str, bytes]) -> bytes:
    """Like helpers.tar_gz, plus incompressible padding so that only the hostile part (not
    the expansion-ratio limit) decides, and names that need not be UTF-8."""
    buffer = io.BytesIO()
    padding = random.Random(7).randbytes(400_000)
    with tarfile.open(fileobj=buffer, mode="w:gz", errors="surrogateescape") as archive:
        for name, content in {**files, "padding.bin": padding}.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def _run_files(corpus: Path, **changes: bytes) -> dict[str, bytes]:
    files = corpus_files(corpus, "760", "sub-760/")
    files["sub-760/job/run.slurm"] = b"#!/bin/bash\nsrun ./io500 config.ini\n"
    files["sub-760/job/slurm-1.out"] = b"IO500 version io500-sc25\n"
    for name, content in changes.items():
        files[RUN + name] = content
    return files


def _stored(cast: Any, release: Any, archive: bytes) -> int:
    """Store the archive and queue it the way the intake does, without its upload checks."""
    sha256 = hashlib.sha256(archive).hexdigest()
    final = Path(django_settings.IOSCORE_ARCHIVE_DIR) / sha256[:2] / f"{sha256}.tar.gz"
    final.parent.mkdir(parents=True, exist_ok=True)
    final.write_bytes(archive)
    upload = SimpleNamespace(name="run.tgz")
    submission = intake._create(  # the intake's own row creation and queueing
        upload,
        final,
        sha256,
        len(archive),
        cast.submitter,
        cast.site,
        release,
        example_system(),
        QUESTIONNAIRE,
        "research",
    )
    return int(submission.pk)


def _upload_normal(cast: Any, corpus: Path, unique: str) -> int:
    _token, raw = ApiToken.issue(cast.submitter, cast.site, unique)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("run.tgz", corpus_archive(corpus, "760", unique=unique)),
            "system": json.dumps(example_system()),
            "questionnaire": json.dumps(QUESTIONNAIRE),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def _summary_text(corpus: Path) -> str:
    path = corpus / "io500-submissions" / "dev" / "760" / RUN[len("sub-760/") :]
    return (path / "result_summary.txt").read_text("utf-8")


def _summary(corpus: Path, old: bytes, new: bytes) -> bytes:
    content = _summary_text(corpus).encode()
    assert old in content
    return content.replace(old, new, 1)


def _summary_value(corpus: Path, phase: str, value: str) -> bytes:
    lines = _summary_text(corpus).split("\n")
    for index, line in enumerate(lines):
        tokens = line.split()
        if len(tokens) > 2 and tokens[1] == phase:
            lines[index] = " ".join([tokens[0], tokens[1], value, *tokens[3:]])
            return "\n".join(lines).encode()
    raise AssertionError(f"{phase} not in the summary")


EXAMPLE_RESULT = (
    Path(__file__).resolve().parents[2] / "suite/schema/examples/short-run-np2.result.json"
)


def _result_json_ranks(count: int) -> bytes:
    """A schema-valid result.json whose phases each have `count` ranks: linear work for every
    step of validation (the per-rank checks, the model, the straggler rules, the stored rows)."""
    document = json.loads(EXAMPLE_RESULT.read_text())
    for phase in document["phases"]:
        if phase["ranks"]:
            first = phase["ranks"][0]
            phase["ranks"] = [dict(first, rank=rank) for rank in range(count)]
        if phase.get("timeseries"):
            phase["timeseries"]["per_rank"] = []
    return json.dumps(document).encode()


def _deep_tree_archive() -> bytes:
    deep = "/".join(["d"] * 1000)
    return _tar_gz({f"{deep}/f{i}": b"x" for i in range(2000)})


def _issues(submission_id: int) -> list[tuple[str, str]]:
    submission = Submission.objects.get(pk=submission_id)
    return [(i.rule, i.message) for i in submission.issues.filter(severity="invalid")]


def test_hostile_archives_fail_with_reasons_and_the_worker_carries_on(
    cast: Any, open_release: Any, corpus_dir: Path, worker_factory: Any, settings: Any
) -> None:
    queue = f"ioscore-hostile-{os.getpid()}"
    settings.IOSCORE_VALIDATION_QUEUE = settings.IOSCORE_NOTIFICATION_QUEUE = queue
    # Intake admits what the worker started here can validate: one process, this time limit.
    settings.IOSCORE_VALIDATION_WORKERS = 1
    settings.IOSCORE_VALIDATION_TIME_LIMIT_S = TIME_LIMIT_S
    worker_factory(
        queue,
        IOSCORE_VALIDATION_TIME_LIMIT_S=str(TIME_LIMIT_S),
        IOSCORE_VALIDATION_MEMORY_MB=str(MEMORY_MB),
        **NO_MAIL,
    )
    version = b"IO500 version io500-sc25 (standard)"
    cases = {
        # rule and message each hostile archive must end with
        ("result-format", "line longer than 16384 characters"): _run_files(
            corpus_dir,
            **{
                "result_summary.txt": _summary(
                    corpus_dir, version, b"IO500 version x" + b" " * 200_000 + b"y"
                )
            },
        ),
        ("result-format", "value of ior-easy-write is infinite"): _run_files(
            corpus_dir,
            **{"result_summary.txt": _summary_value(corpus_dir, "ior-easy-write", "inf")},
        ),
        ("result-format", "NaN is not a JSON number"): _run_files(
            corpus_dir, **{"result.json": b'{"schema": "ioscore-result/1", "x": NaN}'}
        ),
        ("result-format", "beyond the double-precision range"): _run_files(
            corpus_dir, **{"result.json": b'{"schema": "ioscore-result/1", "x": 1e400}'}
        ),
        ("result-format", "contains a NUL character"): _run_files(
            corpus_dir, **{"result.json": b'{"schema": "ioscore-result/1", "x": "a\\u0000"}'}
        ),
        ("result-format", "contains a lone surrogate"): _run_files(
            corpus_dir, **{"result.json": b'{"schema": "ioscore-result/1", "x": "\\ud800"}'}
        ),
        ("result-format", "nested deeper than 64 levels"): _run_files(
            corpus_dir, **{"result.json": b"[" * 100_000 + b"]" * 100_000}
        ),
        ("validation-limit", f"memory limit of {MEMORY_MB} MiB"): _run_files(
            corpus_dir, **{"result.json": b"[" + b"[]," * 12_000_000 + b"[]]"}
        ),
    }
    hostile = {key: _stored(cast, open_release, _tar_gz(files)) for key, files in cases.items()}
    deep = _stored(cast, open_release, _deep_tree_archive())
    odd_name = {
        name.replace("2025.11.03-14.51.48", "run-\udcff"): content
        for name, content in _run_files(corpus_dir).items()
    }
    non_utf8 = _stored(cast, open_release, _tar_gz(odd_name))
    normal = _upload_normal(cast, corpus_dir, "behind the hostile ones")

    # Bounded: each hostile archive costs at most the time limit plus unpacking.
    assert wait_for_status(normal, DONE, timeout=180) == Status.UNDER_REVIEW
    for (rule, message), submission_id in hostile.items():
        assert Submission.objects.get(pk=submission_id).status == Status.VALIDATION_FAILED
        found = _issues(submission_id)
        assert any(r == rule and message in m for r, m in found), (message, found)
    assert Submission.objects.get(pk=deep).status == Status.VALIDATION_FAILED
    assert any("member path longer than 1024" in m for _, m in _issues(deep)), _issues(deep)
    odd = Submission.objects.get(pk=non_utf8)
    assert odd.status == Status.VALIDATION_FAILED
    assert any(
        rule == "archive-safety" and "member names must be UTF-8" in message
        for rule, message in _issues(non_utf8)
    ), _issues(non_utf8)

    media = str(django_settings.MEDIA_ROOT)
    for submission in Submission.objects.filter(pk__in=[*hostile.values(), deep, non_utf8]):
        assert submission.score_total is None or submission.score_total < 1e300
        for issue in submission.issues.all():
            assert media not in issue.message and "/sandbox/" not in issue.message
        assert media not in submission.validation_error
    deadline = time.monotonic() + 10  # the last sandbox goes just after its commit
    while list((Path(media) / "sandbox").glob("sub*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list((Path(media) / "sandbox").glob("sub*")) == []


def test_a_validation_over_its_time_limit_fails_naming_it(
    cast: Any, open_release: Any, corpus_dir: Path, worker_factory: Any, settings: Any
) -> None:
    """Validation is linear and fast now, so a run too big to check in time is
    shown with a short limit: 30,000 ranks in every phase take ~1 s here (read one phase at
    a time, ~100 MB), the limit is 0.25 s, and memory (2 GiB) is not what stops it."""
    queue = f"ioscore-slow-{os.getpid()}"
    settings.IOSCORE_VALIDATION_QUEUE = settings.IOSCORE_NOTIFICATION_QUEUE = queue
    worker_factory(
        queue,
        IOSCORE_VALIDATION_TIME_LIMIT_S="0.25",
        IOSCORE_VALIDATION_MEMORY_MB="2048",
        **NO_MAIL,
    )
    files = _run_files(corpus_dir, **{"result.json": _result_json_ranks(30_000)})
    slow = _stored(cast, open_release, _tar_gz(files))
    assert wait_for_status(slow, DONE, timeout=180) == Status.VALIDATION_FAILED
    found = _issues(slow)
    assert any(r == "validation-limit" and "time limit of 0.25 s" in m for r, m in found), found


def test_attempts_that_never_finish_end_failed_with_the_last_reason(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    submission_id = _upload_normal(cast, corpus_dir, "poison")
    assert wait_for_status(submission_id, DONE) == Status.UNDER_REVIEW
    # As a poison upload leaves it after killing the worker again and again:
    Submission.objects.filter(pk=submission_id).update(
        status=Status.VALIDATING,
        validation_attempts=django_settings.IOSCORE_VALIDATION_MAX_ATTEMPTS,
        validation_error="OSError: [Errno 28] No space left on device",
    )
    deadline = time.monotonic() + 10  # the worker lets the lock go just after its commit
    while requeue_stuck_validations(600) != 1:  # re-queued once no live worker holds it
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert wait_for_status(submission_id, DONE) == Status.VALIDATION_FAILED
    (rule, message), *_ = _issues(submission_id)
    assert rule == "validation-attempts"
    assert message.startswith(
        f"validation stopped after {django_settings.IOSCORE_VALIDATION_MAX_ATTEMPTS} attempts"
    )
    assert message.endswith("last reason: OSError: [Errno 28] No space left on device")
    assert requeue_stuck_validations(600) == 0  # the sweep never feeds it back
    _wait_for_mail(submission_id)  # the session worker's last task, before the test ends


def _wait_for_mail(submission_id: int) -> None:
    from submissions.models import NotificationDelivery

    last = Submission.objects.get(pk=submission_id).transitions.order_by("-id").first()
    deadline = time.monotonic() + 30
    while not NotificationDelivery.objects.filter(transition=last).exists():
        assert time.monotonic() < deadline, "no e-mail sent for the last transition"
        time.sleep(0.1)


def _processes_of(queue: str) -> list[int]:
    """Processes whose command line names the queue: a worker and its forked children."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if queue.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue  # exited meanwhile
    return found


@pytest.mark.parametrize("pool", ["solo", "prefork"])
def test_whole_worker_killed_mid_check_is_validated_by_the_sweep_after_restart(
    cast: Any, open_release: Any, corpus_dir: Path, worker_factory: Any, settings: Any, pool: str
) -> None:
    queue = f"ioscore-killed-{pool}-{os.getpid()}"
    settings.IOSCORE_VALIDATION_QUEUE = settings.IOSCORE_NOTIFICATION_QUEUE = queue
    # The broker would hand the message out again only after an hour: the sweep must do it.
    slow = {"IOSCORE_BROKER_VISIBILITY_TIMEOUT": "3600", **NO_MAIL}
    doomed = worker_factory(queue, pool, IOSCORE_VALIDATION_PAUSE_S="60", **slow)
    processes = 2 if pool == "solo" else 3  # worker (+ pool process) + the checks' child
    submission_id = _upload_normal(cast, corpus_dir, f"killed mid-check ({pool})")
    wait_for_status(submission_id, {Status.VALIDATING})
    deadline = time.monotonic() + 20
    while len(_processes_of(queue)) < processes and time.monotonic() < deadline:
        time.sleep(0.05)  # the checks' child process is running (it pauses 60 s)
    assert len(_processes_of(queue)) == processes
    host = socket.gethostname()
    own_temp = Path(django_settings.MEDIA_ROOT) / "worker-tmp" / f"{host}-{doomed.process.pid}"
    assert own_temp.is_dir()  # the worker's temp dir, not /tmp
    if pool == "prefork":
        assert list(own_temp.glob("pymp-*"))  # where billiard keeps its pymp-* folder
    doomed.kill()  # SIGKILL to the worker process itself, not a pool child
    deadline = time.monotonic() + 5
    while _processes_of(queue) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_of(queue) == []  # its children died with it (PR_SET_PDEATHSIG)
    sandbox_root = Path(django_settings.IOSCORE_SANDBOX_DIR)
    assert len(list(sandbox_root.glob(f"sub{submission_id}-*"))) == 1  # left by the kill

    worker_factory(queue, pool, **slow)
    # What beat runs every sweep interval; the killed worker's lock goes once PostgreSQL has
    # seen its connection close (normally at once, later on a loaded machine).
    deadline = time.monotonic() + 20
    while requeue_stuck_validations(600) != 1:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert wait_for_status(submission_id, DONE, timeout=60) == Status.UNDER_REVIEW
    submission = Submission.objects.get(pk=submission_id)
    assert submission.validation_attempts == 2
    assert submission.phases.count() >= 12
    deadline = time.monotonic() + 10  # the task removes its sandbox just after committing
    while list(sandbox_root.glob(f"sub{submission_id}-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(sandbox_root.glob(f"sub{submission_id}-*")) == []
    assert not own_temp.exists()  # the killed worker's temp dir went when the new one started


def test_celery_soft_time_limit_ends_the_submission_failed(
    cast: Any, open_release: Any, corpus_dir: Path, settings: Any, monkeypatch: Any
) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    from validation import tasks

    settings.IOSCORE_VALIDATION_QUEUE = f"ioscore-nobody-{os.getpid()}"  # run here, not queued
    submission_id = _stored(cast, open_release, corpus_archive(corpus_dir, "760"))

    def hang(*_args: Any) -> Any:
        raise SoftTimeLimitExceeded()  # what the prefork pool raises in a task that hangs

    monkeypatch.setattr(tasks, "_evaluate_limited", hang)
    assert tasks.validate_submission(submission_id) == Status.VALIDATION_FAILED
    (rule, message), *_ = _issues(submission_id)
    limit = django_settings.IOSCORE_VALIDATION_SOFT_TIME_LIMIT_S
    assert (rule, message) == (
        "validation-limit",
        f"validation stopped: the task time limit of {limit:g} s was exceeded",
    )
    assert list(Path(django_settings.IOSCORE_SANDBOX_DIR).glob(f"sub{submission_id}-*")) == []


def test_sweep_removes_sandboxes_no_live_task_holds(settings: Any) -> None:
    import psycopg

    from tests.conftest import worker_database_url
    from validation.tasks import LOCK_NAMESPACE

    settings.IOSCORE_VALIDATION_QUEUE = f"ioscore-nobody-{os.getpid()}"
    root = Path(django_settings.IOSCORE_SANDBOX_DIR)
    dead = root / "sub987654-dead" / "archive" / "run"
    live = root / "sub987655-live"
    other = root / "not-a-sandbox"
    for path in (dead, live, other):
        path.mkdir(parents=True)
    # Another worker's connection holds the lock of 987655: its sandbox is in use.
    with psycopg.connect(worker_database_url(), autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, 987655])
        requeue_stuck_validations(600)
        assert not dead.parent.parent.exists()
        assert live.is_dir() and other.is_dir()
    requeue_stuck_validations(600)  # the holder's connection is closed: its lock is gone
    assert not live.exists() and other.is_dir()
    other.rmdir()
