"""`/healthz` answers anyone, so a database failure is reported without its text."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection


@pytest.mark.django_db(transaction=True)
def test_database_error_text_is_not_shown(client: Any, caplog: Any) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok"}
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(PORT="1", USER="hidden-db-user")
    try:
        response = client.get("/healthz")
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unreachable"}
    assert b"port" not in response.content and b"hidden-db-user" not in response.content
    assert b"PGSQL" not in response.content
    # the reason is in the log: port 1 over TCP, or its socket for the embedded database
    assert "port 1" in caplog.text or ".s.PGSQL.1" in caplog.text
    assert client.get("/healthz").status_code == 200
