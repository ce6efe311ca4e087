"""Fixtures of the native-suite tests; the helpers themselves live in suite_helpers.py."""

from __future__ import annotations

import pytest
from suite_helpers import suite_bin, workspace

__all__ = ["suite_bin", "workspace"]


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """The suite tests use no Django: this replaces the service's autouse fixture of the same
    name (tests/conftest.py), which needs pytest-django's `settings` and thus a database."""
