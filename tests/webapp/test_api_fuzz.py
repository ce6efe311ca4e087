"""schemathesis against the service's own OpenAPI document: generated requests (valid and
invalid by the schema) to every public and token-authenticated operation never get a 5xx.

The number of examples per operation and generation mode is bounded
(``IOSCORE_API_FUZZ_EXAMPLES``, default 6) so ``make test`` stays short; raise it for a
longer run. Boundary values of every parameter (huge numbers, NUL bytes) are sent by
``test_hostile_queries``; this test explores the request shapes the document allows."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from accounts.models import ApiToken

from .test_rankings import World, build

pytestmark = pytest.mark.django_db
EXAMPLES = int(os.environ.get("IOSCORE_API_FUZZ_EXAMPLES", "6"))


@pytest.fixture
def wsgi_app() -> Iterator[Any]:
    """The real WSGI application, keeping the test's connection open between requests (as
    Django's test client does; the handler would close it after each one)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(cast: Any) -> Any:
    """The document the service serves at /api/v1/schema/, over a list with one entry."""
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    world.submission(sc19, 4.0, owner=cast.submitter)
    build()
    return schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))


def _server_errors(operation: Any, headers: dict[str, str], app: Any) -> list[str]:
    failures: list[str] = []
    cases = st.one_of(*[operation.as_strategy(mode) for mode in GenerationMode])

    @settings(
        max_examples=EXAMPLES * len(GenerationMode),
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases)
    def run(case: Any) -> None:
        # A savepoint per request: a database error would otherwise abort the test's
        # transaction and fail every request after the one that caused it.
        savepoint = transaction.savepoint()
        response = case.call(app=app, headers=headers)
        transaction.savepoint_rollback(savepoint)
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} {case.query}")

    run()
    return failures


@pytest.mark.parametrize("who", ["anonymous", "submitter", "reviewer"])
def test_no_generated_request_gets_a_server_error(
    api_schema: Any, cast: Any, wsgi_app: Any, who: str
) -> None:
    headers: dict[str, str] = {}
    if who != "anonymous":
        _token, raw = ApiToken.issue(getattr(cast, who), cast.site)
        headers["Authorization"] = f"Token {raw}"
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 10, "the document lists the submission and read APIs"
    failures = [f for operation in operations for f in _server_errors(operation, headers, wsgi_app)]
    assert not failures, "\n".join(sorted(set(failures))[:40])
