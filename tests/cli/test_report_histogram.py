"""The report's rank histogram when every rank ran at (nearly) the same rate."""

from __future__ import annotations

from ioscore.report.charts import rank_histogram_figure
from ioscore.results import PhaseResult, RankStat


def test_equal_ranks_draw_one_bar_with_three_digit_ticks() -> None:
    ranks = [
        RankStat(rank=i, host="n1", start=0.0, end=10.0, first_done=10.0, items=1_576_216 + i)
        for i in range(32)
    ]
    phase = PhaseResult(name="mdtest-easy-write", value=1.0, unit="kIOPS", time=10.0, ranks=ranks)
    figure = rank_histogram_figure(phase)
    assert figure is not None
    (bar,) = figure.data
    assert list(bar.y) == [32]
    ticks = list(figure.layout.xaxis.ticktext)
    assert all(len(t.replace(".", "").lstrip("0")) <= 3 for t in ticks), ticks
    assert len(set(ticks)) == len(ticks)
    assert "all ranks within" in figure.layout.title.text
