"""TLS ends at the reverse proxy in front of gunicorn (docs/SECURITY.md): with the
production settings and IOSCORE_HTTPS=1, Django trusts the proxy's X-Forwarded-Proto, sends
every plain request to https (but the container's /healthz), and marks its cookies Secure
and its answers with HSTS."""

from __future__ import annotations

import http.client
import http.server
import json
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .test_deploy_settings import REPO, WEBAPP, _env

PROBE = """
import json, django
django.setup()
from django.test import Client
c = Client(HTTP_HOST="scores.example.org")
plain = c.get("/accounts/login/")
healthz = c.get("/healthz")
tls = c.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
forged = c.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="http")
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location", "")],
    "healthz": healthz.status_code,
    "tls": [tls.status_code, tls.get("Strict-Transport-Security", "")],
    "csrf_secure": bool(tls.cookies["csrftoken"]["secure"]) if "csrftoken" in tls.cookies else None,
    "forged": forged.status_code,
}))
"""


def _behind_proxy(tmp_path: Path, https: str) -> dict[str, object]:
    env = _env(
        tmp_path,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="scores.example.org",
        IOSCORE_HTTPS=https,
        DJANGO_SETTINGS_MODULE="ioscore_site.settings",
    )
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=WEBAPP,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def test_production_settings_behind_a_tls_proxy(tmp_path: Path) -> None:
    seen = _behind_proxy(tmp_path, "1")
    assert seen["plain"] == [301, "https://scores.example.org/accounts/login/"]
    assert seen["forged"] == 301  # only "https" from the proxy counts
    assert seen["healthz"] in (200, 503)  # answered over HTTP, never redirected
    status, hsts = seen["tls"]  # type: ignore[misc]
    assert status == 200
    assert hsts == "max-age=31536000; includeSubDomains; preload"
    assert seen["csrf_secure"] is True


def test_plain_http_service_as_compose_ships_it(tmp_path: Path) -> None:
    seen = _behind_proxy(tmp_path, "0")  # docker-compose.yml's default: no proxy in front
    assert seen["plain"][0] == 200  # type: ignore[index]
    assert seen["tls"][1] == ""  # type: ignore[index]
    assert seen["csrf_secure"] is False


class _Echo(http.server.BaseHTTPRequestHandler):
    """The web app's place behind the proxy: answers with the headers it was sent."""

    def do_GET(self) -> None:
        body = json.dumps(dict(self.headers.items())).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.timeout(60)
@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (Debian nginx-light)")
def test_the_compose_proxy_config_ends_tls_and_sets_the_forwarded_proto(tmp_path: Path) -> None:
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-keyout", str(tmp_path / "key.pem")),
            *("-out", str(tmp_path / "cert.pem")),
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    plain, tls = _free_port(), _free_port()
    config = (REPO / "docker" / "proxy" / "nginx.conf").read_text()
    for old, new in {
        "server web:8000;": f"server 127.0.0.1:{upstream.server_port};",
        "listen 80;": f"listen 127.0.0.1:{plain};",
        "listen 443 ssl;": f"listen 127.0.0.1:{tls} ssl;",
        "/etc/ioscore/tls": str(tmp_path),
        "/tmp/ioscore-proxy": str(tmp_path / "proxy"),
    }.items():
        assert old in config, old
        config = config.replace(old, new)
    (tmp_path / "nginx.conf").write_text(config)
    nginx = subprocess.Popen(
        ["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", tls), timeout=1).close()
                break
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                assert time.monotonic() < deadline, "nginx did not listen"
                time.sleep(0.1)
        redirect = http.client.HTTPConnection("127.0.0.1", plain, timeout=10)
        redirect.request("GET", "/lists/?q=1", headers={"Host": "scores.example.org"})
        answer = redirect.getresponse()
        assert answer.status == 301
        assert answer.getheader("Location") == "https://scores.example.org/lists/?q=1"
        secure = http.client.HTTPSConnection(
            "127.0.0.1", tls, timeout=10, context=ssl._create_unverified_context()
        )
        secure.request(
            "GET",
            "/lists/",
            headers={"Host": "scores.example.org", "X-Forwarded-Proto": "http"},
        )
        answer = secure.getresponse()
        assert answer.status == 200
        seen = json.loads(answer.read())
        assert seen["X-Forwarded-Proto"] == "https"  # set by the proxy, the client's dropped
        assert seen["Host"] == "scores.example.org"
        assert seen["X-Forwarded-For"] == "127.0.0.1"
    finally:
        nginx.terminate()
        nginx.wait(timeout=20)
        upstream.shutdown()
