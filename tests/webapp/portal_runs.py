"""A real run of our suite with a straggler, stored as the validation pipeline stores it: the
input of the portal's run-page tests (tests/webapp/test_portal_pages.py and the browser test
tests/e2e/test_portal_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ioscore.results import RunResult
from ioscore.results.loader import find_runs, load_run
from tests.fixtures.tiny_suite import tiny_suite_results

from .helpers import QUESTIONNAIRE, example_system

# rank 1 sleeps 3 ms before every operation: a real straggler (the suite marks the run invalid)
STRAGGLER_ARGS = ("--debug-delay-rank", "1", "--debug-delay-us", "3000")
NO_RND4K = "[ior-rnd4K-easy-read]\nrun = FALSE\n"  # its wear-out would equalise the ranks


@contextmanager
def straggler_run_dir(prefix: str) -> Iterator[Path]:
    with tiny_suite_results(prefix, STRAGGLER_ARGS, NO_RND4K) as results:
        yield find_runs(results)[0]


def store_run(run_dir: Path, owner: Any, site: Any, release: Any, status: str) -> Any:
    """A submission holding the run's phases (``validation.pipeline.phase_rows``), scores and
    the schema's example description with a complete questionnaire."""
    return store_result(load_run(run_dir), owner, site, release, status)


def store_result(run: RunResult, owner: Any, site: Any, release: Any, status: str) -> Any:
    """``store_run`` of a run already read (and perhaps changed) by the test."""
    from submissions.intake import save_metadata
    from submissions.models import PhaseResult, Submission
    from submissions.run_rows import aware, phase_rows

    printed = run.printed
    submission = Submission.objects.create(
        release=release,
        owner=owner,
        site=site,
        status=status,
        score_total=printed.total if printed else None,
        score_bw=printed.bw if printed else None,
        score_md=printed.md if printed else None,
        run_format=run.format or "",
        benchmark_version=run.version or "",
        run_mode=run.mode or "",
        run_start=aware(run.start),
        procs=run.procs,
        config=run.config,
    )
    for row in phase_rows(run):
        PhaseResult.objects.create(submission=submission, **row)
    system = example_system(client_nodes=1, procs_per_node=2)
    save_metadata(submission, system, QUESTIONNAIRE, owner)
    return submission
