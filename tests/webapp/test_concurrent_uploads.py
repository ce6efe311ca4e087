"""Two uploads of the same bytes at once: the one that fails does not delete the archive that
the other one stores (a row without its file)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DataError, connection, transaction

from submissions import intake
from submissions.models import Submission

from .helpers import tar_gz

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]
WAIT_S = 5  # how long one upload waits for the other to reach a point it may never reach


def test_a_failing_upload_keeps_the_concurrent_ones_archive(
    cast: Any, open_release: Any, media_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tar_gz({"io500-run/result_summary.txt": b"[RESULT] ior-easy-write 1 GiB/s\n"})
    creating = threading.Event()  # the succeeding upload is inside its row's transaction
    failed = threading.Event()  # the failing upload has cleaned up after itself
    real_create = intake._create

    def create(*args: Any) -> Submission:
        if threading.current_thread().name == "failing":
            creating.wait(WAIT_S)  # without the lock the other upload is mid-transaction now
            raise DataError("value too long for type character varying(200)")
        with transaction.atomic():  # the row stays uncommitted while the other one fails
            submission = real_create(*args)
            creating.set()
            failed.wait(WAIT_S)
        return submission

    monkeypatch.setattr(intake, "_create", create)
    outcome: dict[str, Any] = {}

    def upload(name: str) -> None:
        try:
            result = intake.receive_upload(
                SimpleUploadedFile("run.tgz", data), user=cast.submitter, site=cast.site
            )
            outcome[name] = result.submission
        except intake.IntakeError as exc:
            outcome[name] = exc
        finally:
            if name == "failing":
                failed.set()
            connection.close()

    failing = threading.Thread(target=upload, args=("failing",), name="failing")
    storing = threading.Thread(target=upload, args=("storing",), name="storing")
    failing.start()
    storing.start()
    failing.join()
    storing.join()
    stored = outcome["storing"]
    assert isinstance(stored, Submission)
    # refused, or (once the other upload committed first) answered with that submission
    assert isinstance(outcome["failing"], intake.IntakeError) or outcome["failing"] == stored
    path = Path(media_root) / str(stored.archive)
    assert path.is_file(), "the stored row's archive was deleted by the failing upload"
    assert path.read_bytes() == data
