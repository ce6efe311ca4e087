"""Cyclic garbage collection paused while many acyclic objects are built.

A full collection rescans every object built so far, so building millions of small acyclic
objects (a large result.json decoded, the list builder's facts and entries) with the collector
on makes the work superlinear. Nothing such a block builds is cyclic; what becomes garbage is
collected after, as usual. Nested use is safe: only the outermost pause turns it back on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
