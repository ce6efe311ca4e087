"""A real series of uploaded IO500 runs: the SC25 archive run as the base, later runs derived
from it with one phase scaled (scores recomputed by the library), stored and moved through the
workflow as validation and the committee move them. The input of the IO500 alert tests (view
and browser)."""

from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path
from typing import Any

from ioscore.results import load_run, recompute_scores
from submissions.models import Status, StorageSystem
from submissions.workflow import COMMITTEE, SYSTEM, transition

from .plausibility_runs import SC25_RUN
from .portal_runs import store_result

DROP = 0.7  # the derived runs read at 70 % of the base run's ior-easy-read
PHASE = "ior-easy-read"


def storage_system(site: Any, name: str = "scratch") -> Any:
    return StorageSystem.objects.create(site=site, name=name, fs_type="Lustre")


def store_series(
    corpus_dir: Path,
    cast: Any,
    release: Any,
    system: Any,
    factors: list[float],
    accept: bool = True,
    first_day: int = 0,
    every_phase: float = 1.0,
) -> list[Any]:
    """One submission per factor, a day apart from ``first_day`` on, each through the
    automatic checks (to ``under_review``) and, with ``accept``, accepted by the committee.
    ``every_phase`` scales every phase besides (1: none)."""
    base = load_run(corpus_dir / "io500-submissions" / "dev" / SC25_RUN)
    assert base.start is not None
    stored = []
    for day, factor in enumerate(factors):
        run = copy.deepcopy(base)
        run.phases[PHASE].value *= factor
        for phase in run.phases.values():
            phase.value *= every_phase
        run.printed = recompute_scores(run)
        run.start = base.start + timedelta(days=first_day + day)
        submission = store_result(run, cast.submitter, cast.site, release, Status.VALIDATING)
        submission.storage_system = system
        submission.save(update_fields=["storage_system"])
        transition(submission, Status.UNDER_REVIEW, None, "automatic checks: 0 blocking", SYSTEM)
        if accept:
            transition(submission, Status.ACCEPTED, cast.reviewer, "measured as stated", COMMITTEE)
        stored.append(submission)
    return stored
