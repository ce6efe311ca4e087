"""`ioscore upload DIR|ARCHIVE --server URL --token T` (and `--acceptance`: an acceptance plan's
results directory, kept by the service as the site's private history; see ``acceptance_upload``).

Validates locally, packs a directory as tar.gz (an archive is sent as is), uploads it as
multipart with a progress bar, then follows the server-side validation status. Network errors
and 5xx answers are retried with the *same bytes*: the server de-duplicates by the archive's
SHA-256 (also sent as header `X-Archive-SHA256` and field `sha256`), so a retry after a lost
response cannot create a second submission.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import requests

from ioscore.commands.validate import (
    add_context_arguments,
    context_from_args,
    issue_lines,
    validate_path,
)
from ioscore.results import ResultFormatError, Severity, pack_directory, sha256_of
from ioscore.results.archive import is_archive

FINAL_STATES = {
    "validation_failed",
    "under_review",
    "accepted",
    "rejected",
    "withdrawn",
    "draft",
    "changes_requested",
    "published",
}
RETRY_STATUS = {502, 503, 504}


class UploadError(Exception):
    def __init__(self, message: str, exit_code: int = 3) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@contextmanager
def as_archive(path: Path) -> Iterator[Path]:
    """An archive as it is, or a directory packed into a temporary one."""
    if is_archive(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="ioscore-upload-") as temp:
        archive = Path(temp) / f"{path.resolve().name or 'result'}.tar.gz"
        pack_directory(path.resolve(), archive)
        yield archive


class ProgressBar:
    def __init__(self, total: int, stream: IO[str], enabled: bool) -> None:
        self.total, self.stream, self.enabled, self.done, self.last = total, stream, enabled, 0, -1

    def advance(self, count: int) -> None:
        self.done += count
        percent = int(100 * self.done / self.total) if self.total else 100
        if self.enabled and percent != self.last:
            self.last = percent
            bar = "#" * (percent // 4)
            self.stream.write(f"\rupload [{bar:<25}] {percent:3d}% {self.done}/{self.total} B")
            if percent >= 100:
                self.stream.write("\n")
            self.stream.flush()


class MultipartBody(io.RawIOBase):
    """A multipart/form-data body streamed from disk, with a length for Content-Length."""

    def __init__(
        self, fields: dict[str, str], file_field: str, file_path: Path, progress: ProgressBar | None
    ) -> None:
        self.boundary = f"ioscore-{uuid.uuid4().hex}"
        head = b""
        for name, value in fields.items():
            head += (
                f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"'
                f"\r\n\r\n{value}\r\n"
            ).encode()
        head += (
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
            f'filename="{file_path.name}"\r\nContent-Type: application/octet-stream'
            "\r\n\r\n"
        ).encode()
        self.parts: list[bytes | Path] = [head, file_path, f"\r\n--{self.boundary}--\r\n".encode()]
        self.length = len(head) + file_path.stat().st_size + len(self.parts[2])  # type: ignore[arg-type]
        self.progress = progress
        self._index, self._offset = 0, 0
        self._position = 0
        self._file: IO[bytes] | None = None

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self.length

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        # requests sizes a stream as len() - tell(); without a working tell() it falls back to
        # chunked transfer encoding, which strict servers (gunicorn) refuse beside a length.
        return self._position

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        size = size if size and size > 0 else 1 << 16
        while self._index < len(self.parts):
            part = self.parts[self._index]
            if isinstance(part, bytes):
                chunk = part[self._offset : self._offset + size]
                self._offset += len(chunk)
            else:
                if self._file is None:
                    self._file = part.open("rb")
                chunk = self._file.read(size)
            if chunk:
                self._position += len(chunk)
                if self.progress:
                    self.progress.advance(len(chunk))
                return chunk
            if self._file is not None:
                self._file.close()
                self._file = None
            self._index, self._offset = self._index + 1, 0
        return b""


def _request_with_retry(
    send: Callable[[], requests.Response], what: str, retries: int, delay: float, log: IO[str]
) -> requests.Response:
    for attempt in range(retries + 1):
        try:
            response = send()
        except (requests.ConnectionError, requests.Timeout) as exc:
            problem = f"network error: {exc.__class__.__name__}"
        else:
            if response.status_code not in RETRY_STATUS:
                return response
            problem = f"HTTP {response.status_code}"
        if attempt == retries:
            raise UploadError(f"{what} failed after {retries + 1} attempts ({problem})")
        print(f"ioscore upload: {what}: {problem}; retrying in {delay:.1f} s", file=log)
        time.sleep(delay)
        delay = min(delay * 2, 30.0)
    raise AssertionError("unreachable")


def _json(response: requests.Response, what: str) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        raise UploadError(
            f"{what}: server answered HTTP {response.status_code} without JSON: "
            f"{response.text[:200]!r}"
        ) from None
    if not isinstance(data, dict):
        raise UploadError(f"{what}: unexpected answer {data!r:.200}")
    return data


LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


def token_refusal(url: str, server: str) -> str | None:
    """Why the API token must not go to ``url`` (None: it may): only over HTTPS unless to
    this machine, and only to the host of ``--server`` (a status URL the server returns
    could name any)."""
    target, home = urlsplit(url), urlsplit(server)
    if target.scheme != "https" and target.hostname not in LOCAL_HOSTS:
        return (
            f"refusing to send the API token over plain HTTP to {target.hostname} "
            "(use https://, or --allow-insecure)"
        )
    if (target.scheme, target.hostname, target.port) != (home.scheme, home.hostname, home.port):
        return (
            f"refusing to send the API token to {target.netloc}, not the --server host "
            f"{home.netloc} (--allow-insecure to allow)"
        )
    return None


def upload_archive(
    archive: Path,
    server: str,
    token: str,
    *,
    system: str | None = None,
    questionnaire: str | None = None,
    endpoint: str = "/api/v1/submissions/",
    extra_fields: dict[str, str] | None = None,
    retries: int = 4,
    retry_delay: float = 1.0,
    poll_interval: float = 2.0,
    poll_timeout: float = 600.0,
    progress: bool = True,
    log: IO[str] | None = None,
    allow_insecure: bool = False,
) -> dict[str, Any]:
    """Upload and follow the status; returns the final status document (plus "url")."""
    log = log if log is not None else sys.stderr

    def check(target: str) -> None:
        refusal = None if allow_insecure else token_refusal(target, server)
        if refusal:
            raise UploadError(refusal, exit_code=2)

    url = server.rstrip("/") + endpoint
    check(url)
    digest = sha256_of(archive)
    headers = {
        "Authorization": f"Token {token}",
        "X-Archive-SHA256": digest,
        "Accept": "application/json",
    }
    fields = {"sha256": digest}
    if system is not None:
        fields["system"] = system
    if questionnaire is not None:
        fields["questionnaire"] = questionnaire
    fields.update(extra_fields or {})

    def send() -> requests.Response:
        bar = ProgressBar(0, log, progress and log.isatty())
        body = MultipartBody(fields, "archive", archive, bar)
        bar.total = len(body)
        return requests.post(
            url,
            data=body,
            timeout=(10, 300),
            headers={**headers, "Content-Type": body.content_type},
        )

    response = _request_with_retry(send, "upload", retries, retry_delay, log)
    if response.status_code in (401, 403):
        raise UploadError(f"upload refused (HTTP {response.status_code}): check --token")
    created = _json(response, "upload")
    if response.status_code >= 400:
        raise UploadError(
            f"upload rejected (HTTP {response.status_code}): {json.dumps(created)[:500]}"
        )
    if created.get("duplicate"):
        print(
            f"ioscore upload: this archive (sha256 {digest[:12]}...) was already uploaded; "
            "showing the existing submission",
            file=log,
        )
    status_url = created.get("status_url")
    if status_url:
        check(status_url)
    status: dict[str, Any] = dict(created)
    deadline = time.monotonic() + poll_timeout
    while status_url and status.get("status") not in FINAL_STATES:
        if time.monotonic() > deadline:
            print("ioscore upload: still validating; check the status page later", file=log)
            break
        time.sleep(poll_interval)
        answer = _request_with_retry(
            lambda: requests.get(status_url, headers=headers, timeout=30),
            "status",
            retries,
            retry_delay,
            log,
        )
        status = _json(answer, "status")
    status.setdefault("url", created.get("url"))
    status.setdefault("id", created.get("id"))
    status["duplicate"] = bool(created.get("duplicate"))
    status["sha256"] = digest
    return status


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("upload", help="validate, pack and submit a result")
    parser.add_argument("path", type=Path, metavar="DIR|ARCHIVE")
    parser.add_argument("--server", required=True, help="e.g. https://leaderboard.example.org")
    parser.add_argument(
        "--token", default=os.environ.get("IOSCORE_TOKEN"), help="API token (or $IOSCORE_TOKEN)"
    )
    parser.add_argument(
        "--allow-insecure",
        action="store_true",
        help="send the token over plain HTTP to another machine, or to a status URL on "
        "another host than --server",
    )
    parser.add_argument("--system", type=Path, help="system description JSON (ioscore sysinfo)")
    parser.add_argument("--questionnaire", type=Path, help="questionnaire JSON")
    parser.add_argument("--force", action="store_true", help="upload even if locally invalid")
    parser.add_argument("--retries", type=int, default=4)
    parser.add_argument("--poll-timeout", type=float, default=600.0)
    parser.add_argument("--poll-interval", type=float, default=2.0)
    add_context_arguments(parser)
    acceptance = parser.add_argument_group(
        "acceptance runs", "--acceptance: the results directory of `ioscore run PLAN`"
    )
    acceptance.add_argument(
        "--acceptance",
        action="store_true",
        help="upload an acceptance run (private to your site, never ranked) instead of an "
        "IO500 submission",
    )
    acceptance.add_argument("--storage-system", type=int, help="id of your site's storage system")
    acceptance.add_argument("--label", default="", help="a short label, e.g. 'after firmware 2.4'")
    acceptance.add_argument("--notes", type=Path, help="a text file of notes on this run")
    parser.set_defaults(handler=handle)


def _read_json_arg(path: Path | None, what: str) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise UploadError(f"{path}: cannot read {what}: {exc}", 2) from None
    except json.JSONDecodeError as exc:
        raise UploadError(f"{path}:{exc.lineno}: {what} is not JSON: {exc.msg}", 2) from None
    return text


def handle(args: argparse.Namespace) -> int:
    if not args.token:
        print("ioscore upload: --token (or $IOSCORE_TOKEN) is required", file=sys.stderr)
        return 2
    if args.acceptance:
        return handle_acceptance(args)
    if args.storage_system is not None or args.label or args.notes is not None:
        print(
            "ioscore upload: --storage-system, --label and --notes need --acceptance",
            file=sys.stderr,
        )
        return 2
    try:
        context = context_from_args(args)
        reports, valid = validate_path(args.path, context, as_upload=True)
    except KeyError as exc:
        print(f"ioscore upload: {exc.args[0]}", file=sys.stderr)
        return 2
    except ResultFormatError as exc:
        print(f"ioscore upload: unreadable: {exc}", file=sys.stderr)
        return 2
    local = [
        issue
        for report in reports
        for issue in report["issues"]
        if issue["severity"] != Severity.INFO.value
    ]

    def show_local_issues() -> None:
        for line in issue_lines(local):
            print("local check:" + line, file=sys.stderr)

    if not valid and not args.force:
        show_local_issues()
        print(
            "ioscore upload: the result is invalid locally; fix it or use --force", file=sys.stderr
        )
        return 1
    if local:
        # The server runs the same checks: its list follows, so each issue is printed once.
        counts = {s.value: sum(i["severity"] == s.value for i in local) for s in Severity}
        invalid, warning = counts[Severity.INVALID.value], counts[Severity.WARNING.value]
        print(
            f"ioscore upload: local check found {invalid} invalid and {warning} warning "
            "issue(s); uploading anyway (--force), the server's findings follow"
            if not valid
            else f"ioscore upload: local check found {warning} warning(s); the "
            "server's findings follow",
            file=sys.stderr,
        )
    try:
        system = _read_json_arg(args.system, "system description")
        questionnaire = _read_json_arg(args.questionnaire, "questionnaire")
        with as_archive(args.path) as archive:
            status = upload_archive(
                archive,
                args.server,
                args.token,
                system=system,
                questionnaire=questionnaire,
                retries=args.retries,
                poll_timeout=args.poll_timeout,
                poll_interval=args.poll_interval,
                allow_insecure=args.allow_insecure,
            )
    except UploadError as exc:
        show_local_issues()  # the server's findings will not come
        print(f"ioscore upload: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"submission {status.get('id')}: {status.get('status')}  {status.get('url') or ''}")
    if status.get("status") not in FINAL_STATES:
        show_local_issues()  # still validating: what we know so far
    for line in issue_lines(status.get("issues") or []):
        print(line)
    return 1 if status.get("status") in ("validation_failed", "rejected") else 0


ACCEPTANCE_ENDPOINT = "/api/v1/acceptance/runs/"
MAX_NOTES_CHARS = 20_000  # the service's limit


def acceptance_fields(args: argparse.Namespace) -> dict[str, str]:
    """The form fields of an acceptance upload (label, notes, storage system)."""
    fields = {"label": args.label}
    if args.storage_system is not None:
        fields["storage_system"] = str(args.storage_system)
    if args.notes is not None:
        try:
            notes = args.notes.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UploadError(f"{args.notes}: cannot read the notes: {exc}", 2) from None
        if len(notes) > MAX_NOTES_CHARS:
            raise UploadError(f"{args.notes}: notes longer than {MAX_NOTES_CHARS} characters", 2)
        fields["notes"] = notes
    return fields


def check_acceptance(path: Path) -> int:
    """Read every acceptance result.json locally with the library's loader, as the service
    will; returns how many launches were read (ResultFormatError when one is unreadable)."""
    from ioscore.acceptance.results import find_tests
    from ioscore.results.archive import unpacked

    with unpacked(path) as root:
        return sum(len(test.launches) for test in find_tests(root))


def handle_acceptance(args: argparse.Namespace) -> int:
    """`ioscore upload --acceptance DIR|ARCHIVE`: check locally, pack, upload. The service
    validates in the request, so its answer is final: nothing to poll."""
    if args.system is not None or args.questionnaire is not None:
        print(
            "ioscore upload: --system and --questionnaire are for IO500 submissions, "
            "not --acceptance",
            file=sys.stderr,
        )
        return 2
    try:
        launches = check_acceptance(args.path)
    except ResultFormatError as exc:
        print(f"ioscore upload: unreadable: {exc}", file=sys.stderr)
        return 2
    if not launches:
        print(
            f"ioscore upload: no acceptance result.json (ioscore-suite ior or mdtest) in "
            f"{args.path}",
            file=sys.stderr,
        )
        return 2
    print(f"local check: {launches} acceptance launch(es) read", file=sys.stderr)
    try:
        fields = acceptance_fields(args)
        with as_archive(args.path) as archive:
            answer = upload_archive(
                archive,
                args.server,
                args.token,
                endpoint=ACCEPTANCE_ENDPOINT,
                extra_fields=fields,
                retries=args.retries,
                allow_insecure=args.allow_insecure,
            )
    except UploadError as exc:
        print(f"ioscore upload: {exc}", file=sys.stderr)
        return exc.exit_code
    total, failed = answer.get("targets_total") or 0, answer.get("targets_failed") or 0
    verdict = (
        f"{answer.get('verdict')} ({failed} of {total} targets failed)" if total else "no targets"
    )
    print(
        f"acceptance run {answer.get('id')}: {answer.get('tests')} test(s), {verdict}"
        f"{' (already uploaded)' if answer.get('duplicate') else ''}  {answer.get('url') or ''}"
    )
    return 0
