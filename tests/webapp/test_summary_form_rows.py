"""A summary-form run (above the suite's rank-detail threshold) keeps its rank
distributions through the service: stored with each phase row and read back into the
library's model, the straggler findings are the ones the library makes from the file."""

from __future__ import annotations

import json

import pytest

from ioscore.results import storable_json, synthetic
from ioscore.results.model import CountRows, RankColumns
from ioscore.results.parse_json import parse_result_json_text
from ioscore.results.stragglers import phase_spread
from rankings.charts import spread_payload
from submissions.models import PhaseResult
from submissions.run_rows import library_phase, phase_rows

RANKS, PPN, SLOW_HOST = 480, 8, 7


def _stored_rows() -> tuple[object, list[PhaseResult]]:
    full = synthetic.full_document(RANKS, ppn=PPN, slow_hosts=(SLOW_HOST,))
    run = parse_result_json_text(json.dumps(synthetic.summarised(full, threshold=64)), "r.json")
    # the JSON round trip the database does
    rows = [PhaseResult(**json.loads(json.dumps(row))) for row in phase_rows(run)]
    return run, rows


def test_rank_summary_survives_storage_and_gives_the_same_findings() -> None:
    run, rows = _stored_rows()
    assert rows and all(row.rank_summary is not None for row in rows)
    flagged_somewhere = False
    for row in rows:
        original = run.phases[row.name]
        assert original.rank_summary is not None
        again = library_phase(row)
        assert again.rank_summary == original.rank_summary
        before, after = phase_spread(original), phase_spread(again)
        assert after.straggler_ranks == before.straggler_ranks
        assert [f.host for f in after.host_stragglers] == [f.host for f in before.host_stragglers]
        flagged_somewhere |= bool(after.host_stragglers)
    assert flagged_somewhere, "the slow host is found from the stored summary"


def test_the_rank_chart_shows_the_named_ranks_only() -> None:
    _, rows = _stored_rows()
    for entry in spread_payload([library_phase(row) for row in rows]):
        assert 0 < len(entry["ranks"]) <= 2 * synthetic.EXTREME_RANKS


def test_full_form_rows_are_plain_json_whatever_the_model_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast reader packs ranks and time-series rows into arrays (RankColumns,
    CountRows); the rows stored are the same plain JSON as from the careful reader's lists."""
    text = json.dumps(synthetic.full_document(24, ppn=PPN, slow_hosts=(1,)))
    packed = parse_result_json_text(text, "r.json")
    phase = next(iter(packed.phases.values()))
    assert isinstance(phase.ranks, RankColumns)
    assert phase.timeseries and isinstance(phase.timeseries["per_rank"], CountRows)
    monkeypatch.setattr(storable_json, "fast_decode", lambda *args: storable_json.UNSURE)
    careful = parse_result_json_text(text, "r.json")
    assert type(next(iter(careful.phases.values())).ranks) is list
    rows = phase_rows(packed)
    assert rows == phase_rows(careful) == json.loads(json.dumps(rows))
