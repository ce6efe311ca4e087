"""A small stand-in for the leaderboard's submission API (contract in the issue text).

Used to test `ioscore upload` deterministically, including failures the real service cannot be
made to produce on demand (a connection dropped after the server stored the upload).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "s3cret-token"


@dataclass
class State:
    submissions: dict[str, dict[str, Any]] = field(default_factory=dict)  # sha256 -> record
    posts: int = 0
    drop_responses: int = 0  # drop the connection after storing, this many times
    status_sequence: list[str] = field(default_factory=lambda: ["validating", "under_review"])
    headers_seen: list[dict[str, str]] = field(default_factory=list)
    fields_seen: list[dict[str, bytes]] = field(default_factory=list)
    polls: int = 0


def _multipart(content_type: str, body: bytes) -> dict[str, bytes]:
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    parts = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        parts[str(name)] = part.get_payload(decode=True) or b""
    return parts


def make_handler(state: State, base: list[str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.posts += 1
            if self.path != "/api/v1/submissions/":
                return self._send(404, {"detail": "not found"})
            if self.headers.get("Authorization") != f"Token {TOKEN}":
                return self._send(401, {"detail": "Invalid token."})
            fields = _multipart(self.headers["Content-Type"], body)
            state.headers_seen.append(dict(self.headers))
            state.fields_seen.append(fields)
            digest = hashlib.sha256(fields["archive"]).hexdigest()
            duplicate = digest in state.submissions
            if not duplicate:
                number = len(state.submissions) + 1
                state.submissions[digest] = {
                    "id": number,
                    "url": f"{base[0]}/submissions/{number}/",
                    "status_url": f"{base[0]}/api/v1/submissions/{number}/status/",
                }
            record = state.submissions[digest]
            if state.drop_responses > 0:
                state.drop_responses -= 1
                self.close_connection = True
                self.connection.shutdown(2)  # stored, but the answer is lost
                return None
            return self._send(
                200 if duplicate else 201,
                {**record, "status": "submitted", "duplicate": duplicate},
            )

        def do_GET(self) -> None:
            for record in state.submissions.values():
                if self.path == f"/api/v1/submissions/{record['id']}/status/":
                    index = min(state.polls, len(state.status_sequence) - 1)
                    state.polls += 1
                    status = state.status_sequence[index]
                    issues = []
                    if status in ("under_review", "validation_failed"):
                        issues = [
                            {
                                "rule": "questionnaire",
                                "severity": "invalid",
                                "message": "no reproducibility questionnaire was submitted",
                                "expected": "10 answers",
                                "actual": None,
                                "phase": "",
                            }
                        ]
                    return self._send(200, {"id": record["id"], "status": status, "issues": issues})
            return self._send(404, {"detail": "not found"})

    return Handler


class StandInServer:
    def __init__(self) -> None:
        self.state = State()
        base: list[str] = [""]
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.state, base))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        base[0] = self.url
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StandInServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
