"""The IO500 config and score hashes (BENCHMARK-RULES §5.4), recomputed from scratch.

The primitive rotates a 32-bit value left by 2 and adds each byte as a *signed* char (x86);
pairs are combined by XOR, so order does not matter and identical pairs cancel. The hashes
are integrity aids, not security: a mismatch is shown to reviewers, never auto-blocking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ioscore.results.model import SCORED_PHASES, RunResult, ScoreGroup

_MASK = 0xFFFFFFFF

# Options whose default is the empty string (not unset): hashed as kv(name, "") even though
# config.ini prints them empty. Their sections: find-easy, find, find-hard (BENCHMARK-RULES §5.4).
EMPTY_STRING_DEFAULTS = frozenset({"external-mpi-args", "external-extra-args"})


def _feed(h: int, text: str) -> int:
    for byte in text.encode("utf-8"):
        signed = byte - 256 if byte > 127 else byte
        h = ((((h << 2) | (h >> 30)) & _MASK) + signed) & _MASK
    return h


def kv_hash(key: str, value: str) -> int:
    """The hash of one key/value pair, started from 0."""
    return _feed(_feed(0, key), value)


def format_hash(value: int) -> str:
    """C's "%X": upper-case hex, no leading zeros."""
    return f"{value:X}"


def config_hash(config: Mapping[str, Mapping[str, str]]) -> str:
    """Hash of every set option of a config.ini (section -> key -> effective value).

    config.ini lists every option of the binary's table, empty when unset; so an empty value
    means "not hashed" except for the options whose default is the empty string.
    """
    h = 0
    for options in config.values():
        for key, value in options.items():
            if value != "" or key in EMPTY_STRING_DEFAULTS:
                h ^= kv_hash(key, value)
    return format_hash(h)


def score_hash(
    version: str,
    phase_scores: Iterable[tuple[str, float]],
    md: float,
    bw: float,
    total: float,
    valid: bool = True,
) -> str:
    """The [SCORE] hash: version, each scored mandatory phase's "%f", MD, BW, SCORE."""
    return _scores_hash(kv_hash("version", version), phase_scores, md, bw, total, valid)


def extended_score_hash(
    phase_scores: Iterable[tuple[str, float]], md: float, bw: float, total: float, valid: bool
) -> str:
    """The [SCOREX] hash: optional scored phases and the extended MD/BW/SCORE, no version."""
    return _scores_hash(0, phase_scores, md, bw, total, valid)


def _scores_hash(
    h: int,
    phase_scores: Iterable[tuple[str, float]],
    md: float,
    bw: float,
    total: float,
    valid: bool,
) -> str:
    """XOR onto h each phase's "%f", then MD, BW, SCORE, and the invalid marker."""
    for name, score in phase_scores:
        h ^= kv_hash(name, f"{score:f}")
    h ^= kv_hash("MD", f"{md:f}") ^ kv_hash("BW", f"{bw:f}") ^ kv_hash("SCORE", f"{total:f}")
    if not valid:
        h ^= kv_hash("valid", "NO")
    return format_hash(h)


@dataclass
class HashCheck:
    """Recomputed hashes next to the printed ones; `None` means "cannot be checked"."""

    config_expected: str | None  # printed in result.txt
    config_actual: str | None  # recomputed from config.ini
    score_expected: str | None
    score_actual: str | None
    config_reason: str | None = None  # why the config hash could not be checked
    score_reason: str | None = None
    extended_expected: str | None = None  # [SCOREX] hash (extended mode only)
    extended_actual: str | None = None

    @property
    def extended_ok(self) -> bool | None:
        if self.extended_expected is None or self.extended_actual is None:
            return None
        return self.extended_expected.upper() == self.extended_actual

    @property
    def config_ok(self) -> bool | None:
        if self.config_expected is None or self.config_actual is None:
            return None
        return self.config_expected.upper() == self.config_actual

    @property
    def score_ok(self) -> bool | None:
        if self.score_expected is None or self.score_actual is None:
            return None
        return self.score_expected.upper() == self.score_actual


def run_score_hash(run: RunResult) -> str | None:
    """Recompute a run's [SCORE] hash from result.txt's strings, or None if not possible.

    ioscore's result.json carries the full doubles; "%f" of them is what the suite hashed.
    """
    printed = run.printed if run.format == "ioscore-json" else run.printed_txt
    if printed is None or run.version is None:
        return None
    pairs: list[tuple[str, float]] = []
    for name in SCORED_PHASES:
        phase = run.phases.get(name)
        if phase is None:
            return None
        score = phase.score_txt if phase.score_txt is not None else phase.value
        pairs.append((name, score))
    return score_hash(run.version, pairs, printed.md, printed.bw, printed.total, printed.valid)


def verify_hashes(run: RunResult) -> HashCheck:
    """Recompute the config hash (from config.ini) and the score hash of a C-app run."""
    check = HashCheck(run.config_hash, None, run.score_hash, None)
    if run.format in ("bash",):
        check.config_reason = check.score_reason = "bash-era runs carry no hashes"
        return check
    if run.config_hash is None:
        check.config_reason = "no config-hash printed (result.txt missing)"
    elif not run.config or "config_source" in run.extra:
        check.config_reason = "no generated config.ini next to the run"
    else:
        check.config_actual = config_hash(run.config)
    if run.score_hash is None:
        check.score_reason = "no score hash printed (result.txt missing)"
    else:
        check.score_actual = run_score_hash(run)
        if check.score_actual is None:
            check.score_reason = "result.txt lacks a scored phase or the version"
    if run.score_hash_extended is not None and run.printed_txt_extended is not None:
        check.extended_expected = run.score_hash_extended
        check.extended_actual = run_extended_score_hash(run)
    return check


def run_extended_score_hash(run: RunResult) -> str:
    """[SCOREX] hash from the optional scored phases' result.txt scores."""
    mandatory = set(SCORED_PHASES)
    pairs = [
        (p.name, p.score_txt if p.score_txt is not None else p.value)
        for p in run.phases.values()
        if p.group != ScoreGroup.NONE and p.name not in mandatory
    ]
    ext = run.printed_txt_extended
    assert ext is not None
    return extended_score_hash(pairs, ext.md, ext.bw, ext.total, ext.valid)
