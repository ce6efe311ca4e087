"""BW, MD and TOTAL recomputed from the phase values (BENCHMARK-RULES §3.2, §7.2).

* BW = geometric mean of the 4 IOR phases (GiB/s), MD = of the 7 mdtest phases + find (kIOPS).
* TOTAL = sqrt(BW x MD); the SC17 bash script printed BW x MD instead (kept per run as
  ``total_formula = "product"``, detected by the loader).
* Zeros: since SC21 phases with a score <= 0 are left out of the mean; isc20-isc21 and the
  bash script multiplied them in, which makes the group 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from ioscore.results.model import BW_PHASES, MD_PHASES, RunResult, ScoreGroup, Scores

_TAG = re.compile(r"^io500-(isc|sc)(\d\d)")


def release_order(version: str | None) -> tuple[int, int] | None:
    """(year, 0 for ISC / 1 for SC) of a version's release tag, None when not a tag."""
    if not version:
        return None
    match = _TAG.match(version)
    if not match:
        return None
    return 2000 + int(match.group(2)), 0 if match.group(1) == "isc" else 1


def zeros_skipped(run: RunResult) -> bool:
    """True when phases scoring <= 0 are left out of the means (SC21 and later)."""
    if run.format == "ioscore-json":
        return True
    if run.format in ("bash", "c-app-2020"):
        return False
    order = release_order(run.version)
    if order is None:
        return True  # custom or empty versions of the 2021+ format: the newer rule
    return order >= (2021, 1)


def geometric_mean(values: Iterable[float], skip_zeros: bool) -> float:
    chosen = [v for v in values if v > 0] if skip_zeros else list(values)
    if not chosen:
        return 0.0
    if any(v <= 0 for v in chosen):
        return 0.0
    return math.exp(sum(math.log(v) for v in chosen) / len(chosen))


def _total(bw: float, md: float, formula: str) -> float:
    if formula == "product":
        return bw * md
    return math.sqrt(bw * md) if bw > 0 and md > 0 else 0.0


def recompute_scores(run: RunResult) -> Scores:
    """The standard score from the mandatory phases present in the run."""
    skip = zeros_skipped(run)
    bw_values = [run.phases[n].value for n in BW_PHASES if n in run.phases]
    md_values = [run.phases[n].value for n in MD_PHASES if n in run.phases]
    bw = geometric_mean(bw_values, skip)
    md = geometric_mean(md_values, skip)
    complete = len(bw_values) == len(BW_PHASES) and len(md_values) == len(MD_PHASES)
    positive = all(v > 0 for v in bw_values + md_values)
    mandatory_valid = all(run.phases[n].valid for n in (*BW_PHASES, *MD_PHASES) if n in run.phases)
    valid = complete and positive and mandatory_valid and not run.invalid_markers
    return Scores(bw=bw, md=md, total=_total(bw, md, run.total_formula), valid=valid)


def recompute_extended_scores(run: RunResult) -> Scores | None:
    """[SCOREX]: every scored phase, optional ones included; None for standard runs."""
    if run.printed_extended is None and run.mode != "extended":
        return None
    skip = zeros_skipped(run)
    bw = geometric_mean((p.value for p in run.phases.values() if p.group == ScoreGroup.BW), skip)
    md = geometric_mean((p.value for p in run.phases.values() if p.group == ScoreGroup.MD), skip)
    valid = all(p.valid for p in run.phases.values()) and not run.invalid_markers
    return Scores(bw=bw, md=md, total=_total(bw, md, run.total_formula), valid=valid)


def _rounding(values: list[tuple[float, int | None]]) -> float:
    """First-order relative error of a geometric mean of values printed with d decimals."""
    errors = [0.5 * 10.0 ** -(d if d is not None else 6) / v for v, d in values if v > 0]
    return sum(errors) / len(errors) if errors else 0.0


def rounding_tolerance(run: RunResult) -> float:
    """Relative error the printed precision of the inputs can cause in the recomputed TOTAL.

    Bash summaries print phases with 3 decimals, so a small phase value (e.g. 0.6 GiB/s) alone
    moves TOTAL by up to ~0.1 %; C-app values have 6 decimals. Twice the first-order bound
    plus the rounding of the printed TOTAL itself.
    """
    bw = _rounding(
        [(run.phases[n].value, run.phases[n].decimals) for n in BW_PHASES if n in run.phases]
    )
    md = _rounding(
        [(run.phases[n].value, run.phases[n].decimals) for n in MD_PHASES if n in run.phases]
    )
    combined = bw + md if run.total_formula == "product" else (bw + md) / 2
    printed = 0.0
    if run.printed is not None and run.printed.total > 0:
        decimals = run.extra.get("total_decimals", 6)
        printed = 0.5 * 10.0 ** -int(decimals) / run.printed.total
    return 2.0 * combined + printed + 1e-12


def relative_difference(a: float, b: float) -> float:
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))
