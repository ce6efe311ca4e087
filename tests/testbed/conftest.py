"""The test bed of these tests: 2 client nodes, 2 chunk servers, brought up for each test module
and taken down after it. Tests skip, with the reason in one line, where the machine cannot run
one (no root, no namespaces, no FUSE, MooseFS not installed) or a bed of somebody else is up."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.testbed import lifecycle
from ioscore.testbed.layout import Bed
from ioscore.testbed.system import missing_requirement
from tests.suite.suite_helpers import suite_bin

__all__ = ["suite_bin"]

NODES = 2
SERVERS = 2


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """No Django here: replaces the service's autouse fixture of the same name."""


def bring_up(nodes: int, servers: int) -> Iterator[Bed]:
    """A bed of NODES client nodes and SERVERS chunk servers for a module, taken down after
    it; skips (the reason in one line) where the machine cannot run one."""
    reason = missing_requirement()
    if reason:
        pytest.skip(reason)
    if os.environ.get("IOSCORE_MPI", "openmpi") != "openmpi":
        pytest.skip("the test bed launches with Open MPI's mpirun (IOSCORE_MPI names another)")
    if Bed.load() is not None or lifecycle.leftovers():
        pytest.skip("a test bed is already up on this machine; these tests bring up their own")
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="ioscore-testbed-test-", dir=base) as tmp:
        up = lifecycle.up(nodes, servers, Path(tmp) / "servers", size_gib=2.0, io_timeout_s=30)
        try:
            yield up
        finally:
            lifecycle.down()


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    yield from bring_up(NODES, SERVERS)
