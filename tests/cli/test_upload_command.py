"""`ioscore upload` against a local stand-in of the submission API (see standin_server.py)."""

from __future__ import annotations

import hashlib
import socket
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.cli import main
from ioscore.commands.upload import pack_directory

from .conftest import SC25_RUN
from .standin_server import TOKEN, StandInServer


@pytest.fixture
def server() -> Iterator[StandInServer]:
    with StandInServer() as running:
        yield running


def upload(path: Path, server_url: str, *extra: str) -> int:
    return main(
        [
            "upload",
            str(path),
            "--server",
            server_url,
            "--token",
            TOKEN,
            "--poll-interval",
            "0.05",
            "--poll-timeout",
            "10",
            *extra,
        ]
    )


def test_upload_validates_packs_and_follows_status(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert upload(sc25_copy, server.url) == 0
    out = capsys.readouterr().out
    assert f"{server.url}/submissions/1/" in out
    assert "under_review" in out and "questionnaire" in out  # the server's issues are shown
    # ... in the same shape as `ioscore validate` prints them, expected/actual included.
    assert "INVALID  questionnaire: no reproducibility" in out and "(expected 10 answers)" in out
    assert len(server.state.submissions) == 1
    fields = server.state.fields_seen[0]
    digest = hashlib.sha256(fields["archive"]).hexdigest()
    assert fields["sha256"].decode() == digest
    assert server.state.headers_seen[0]["X-Archive-SHA256"] == digest
    # The archive is a tar.gz of the run directory.
    packed = sc25_copy.parent / "check.tar.gz"
    packed.write_bytes(fields["archive"])
    with tarfile.open(packed) as tar:
        names = tar.getnames()
    assert "sc25/result_summary.txt" in names and "sc25/result.txt" in names
    assert "sc25/job.sh" in names and "sc25/slurm-4242.out" in names


def test_run_without_job_script_and_output_is_not_uploaded(
    server: StandInServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The service would reject it (LEADERBOARD-RULES §9.3); say so before sending anything."""
    assert upload(SC25_RUN, server.url) == 1
    err = capsys.readouterr().err
    assert "archive-job-script" in err and "archive-job-output" in err
    assert "ioscore run` writes job.sh" in err
    assert server.state.posts == 0


def test_packing_is_reproducible(sc25_copy: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.tgz", tmp_path / "b.tgz"
    pack_directory(sc25_copy, first)
    pack_directory(sc25_copy, second)
    assert first.read_bytes() == second.read_bytes()  # same run -> same SHA-256 -> dedup


def test_lost_response_is_retried_without_duplicate(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.state.drop_responses = 1
    assert upload(sc25_copy, server.url) == 0
    captured = capsys.readouterr()
    assert "retrying" in captured.err
    assert "already uploaded" in captured.err
    assert server.state.posts == 2
    assert len(server.state.submissions) == 1  # stored once, answered on the retry


def test_second_upload_of_the_same_archive_is_a_duplicate(
    server: StandInServer, sc25_copy: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "run.tar.gz"
    pack_directory(sc25_copy, archive)
    assert upload(archive, server.url) == 0
    assert upload(archive, server.url) == 0
    assert server.state.posts == 2 and len(server.state.submissions) == 1


def test_locally_invalid_run_is_not_uploaded(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = sc25_copy / "result_summary.txt"
    summary.write_text(summary.read_text("utf-8").replace("TOTAL 10.078942", "TOTAL 12.0"))
    assert upload(sc25_copy, server.url) == 1
    assert "invalid locally" in capsys.readouterr().err
    assert server.state.posts == 0
    assert upload(sc25_copy, server.url, "--force") == 0  # the committee may still see it
    assert server.state.posts == 1


def test_validation_failed_exits_1(server: StandInServer, sc25_copy: Path) -> None:
    server.state.status_sequence = ["validating", "validation_failed"]
    assert upload(sc25_copy, server.url) == 1
    assert server.state.posts == 1  # it was the service that failed it


def test_bad_token(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["upload", str(sc25_copy), "--server", server.url, "--token", "wrong"])
    assert code == 3 and "check --token" in capsys.readouterr().err


def test_server_down(sc25_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(
        [
            "upload",
            str(sc25_copy),
            "--server",
            f"http://127.0.0.1:{port}",
            "--token",
            TOKEN,
            "--retries",
            "1",
        ]
    )
    err = capsys.readouterr().err
    assert code == 3 and "failed after 2 attempts" in err and "Traceback" not in err


def test_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["upload", str(tmp_path / "none"), "--server", "http://x", "--token", TOKEN])
    assert code == 2 and "unreadable" in capsys.readouterr().err


def test_bad_system_json(server: StandInServer, sc25_copy: Path, tmp_path: Path) -> None:
    system = tmp_path / "system.json"
    system.write_text("{\n  'not': json\n}", encoding="utf-8")
    assert upload(sc25_copy, server.url, "--system", str(system)) == 2
    assert server.state.posts == 0


def test_multipart_body_length_and_progress(sc25_copy: Path, tmp_path: Path) -> None:
    import io

    from ioscore.commands.upload import MultipartBody, ProgressBar

    archive = tmp_path / "run.tar.gz"
    pack_directory(sc25_copy, archive)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = ProgressBar(0, screen, enabled=True)
    body = MultipartBody({"sha256": "abc"}, "archive", archive, bar)
    bar.total = len(body)
    sent = b"".join(iter(lambda: body.read(1000), b""))
    assert len(sent) == len(body)
    assert archive.read_bytes() in sent
    assert screen.getvalue().rstrip().endswith(f"100% {len(body)}/{len(body)} B")


def test_upload_request_has_a_length_and_is_not_chunked(sc25_copy: Path, tmp_path: Path) -> None:
    """gunicorn refuses Content-Length beside Transfer-Encoding: the body must be sized."""
    import requests

    from ioscore.commands.upload import MultipartBody

    archive = tmp_path / "run.tar.gz"
    pack_directory(sc25_copy, archive)
    body = MultipartBody({"sha256": "abc"}, "archive", archive, None)
    prepared = requests.Request(
        "POST",
        "http://127.0.0.1:9/api/v1/submissions/",
        data=body,
        headers={"Content-Type": body.content_type},
    ).prepare()
    assert prepared.headers["Content-Length"] == str(len(body))
    assert "Transfer-Encoding" not in prepared.headers


def test_each_issue_is_printed_once_when_the_server_reports(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (sc25_copy / "job.sh").unlink()  # locally invalid: no job script
    assert upload(sc25_copy, server.url, "--force") == 0
    captured = capsys.readouterr()
    # The server's findings are the list; the local check is one summary line, not a copy.
    assert "archive-job-script" not in captured.out + captured.err
    assert "local check found 1 invalid and 0 warning issue(s)" in captured.err
    assert captured.out.count("INVALID  questionnaire: no reproducibility") == 1


def test_local_issues_are_shown_when_the_server_never_answers(
    sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (sc25_copy / "job.sh").unlink()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    assert upload(sc25_copy, url, "--force", "--retries", "0") == 3
    err = capsys.readouterr().err
    assert err.count("archive-job-script") == 1
    assert "upload failed after 1 attempts" in err


def test_token_is_not_sent_over_plain_http_to_another_machine(
    sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused before any connection: the name need not even resolve.
    assert upload(sc25_copy, "http://scores.example.invalid") == 2
    err = capsys.readouterr().err
    assert "refusing to send the API token over plain HTTP to scores.example.invalid" in err


def test_token_is_not_sent_to_a_status_url_on_another_host(
    server: StandInServer, sc25_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The stand-in answers with status URLs on 127.0.0.1; the upload went to "localhost".
    as_localhost = server.url.replace("127.0.0.1", "localhost")
    assert upload(sc25_copy, as_localhost) == 2
    err = capsys.readouterr().err
    assert "refusing to send the API token to 127.0.0.1:" in err
    assert "not the --server host localhost:" in err
    assert upload(sc25_copy, as_localhost, "--allow-insecure") == 0
