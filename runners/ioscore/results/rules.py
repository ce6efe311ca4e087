"""Rule checks: each rule is a small pure function `(run, context) -> list[Issue]`.

Severities follow LEADERBOARD-RULES §9: B (blocking) -> INVALID, R (committee review) and
W -> WARNING, "could not be checked" -> INFO. The CLI's `validate` and the service run the
same `check()`; neither re-implements a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ioscore.results.hashing import verify_hashes
from ioscore.results.limits import number_problem
from ioscore.results.model import (
    SCORED_PHASES,
    WRITE_PHASES,
    Issue,
    RunResult,
    Severity,
)
from ioscore.results.parse_ini import get_option
from ioscore.results.plausibility import run_findings
from ioscore.results.releases import Release
from ioscore.results.scoring import (
    recompute_scores,
    relative_difference,
    release_order,
    rounding_tolerance,
)

MIN_WRITE_SECONDS = 300.0
MIN_WRITE_SECONDS_SCC = 30.0

# --- era data: how the benchmark of each era applied a rule -----------------------------
# The bash script (SC17-ISC20) applied the write minimum to the wall-clock duration of the
# whole phase command (date before and after mpirun, rounded to seconds), not to the time its
# [RESULT] line prints (IOR's or mdtest's own), and tagged a short phase [RESULT-invalid]
# itself (rule invalid-markers). Real case: SC18 submission 62 prints ior_easy_write 219.53 s
# for a phase the script timed at 787 s and accepted. So a short printed time is information.
# INVALID calls made in validate() (stonewall-time differing from minwrite, files-per-dir set)
# invalidated the run in isc20/sc20; since isc21 they only print a message in result.txt's
# [run] section (BENCHMARK-RULES §2.6; real case: sc23 submission 680, scc = TRUE).
VALIDATE_MESSAGE_ONLY_SINCE = (2021, 0)  # io500-isc21
_VALIDATE_MESSAGE = re.compile(r"ERROR INVALID (?:stonewall-time|files-per-dir)\b")


def validate_message_only(section: str, text: str, version: str | None) -> bool:
    """True for a result.txt INVALID message that had no effect in the run's era."""
    order = release_order(version)
    return (
        section == "run"
        and order is not None
        and order >= VALIDATE_MESSAGE_ONLY_SINCE
        and _VALIDATE_MESSAGE.match(text) is not None
    )


TOTAL_RELATIVE_TOLERANCE = 1e-3  # 0.1 %
TOTAL_ABSOLUTE_TOLERANCE = 0.01
DATA_PACKET_TYPES = ("timestamp", "offset", "incompressible", "random")
_DIRTY = re.compile(r"-\d+$")
_DESCRIBE = re.compile(r"-\d+-g[0-9a-f]{6,}")


@dataclass
class CheckContext:
    """What the run is judged against; every field is optional."""

    release: Release | None = None
    target_list: str | None = None  # "production" | "research" | "10-node-production" | "scc"
    client_nodes: int | None = None  # declared by the submitter
    ppn: int | None = None
    scc: bool | None = None  # None: take it from the run's config
    # the system description's file-system family (LEADERBOARD-RULES §4)
    fs_family: str | None = None
    system: Mapping[str, Any] | None = None  # the whole system description, when submitted

    @property
    def ten_node(self) -> bool:
        return bool(self.target_list and "10" in self.target_list.replace("-", ""))


def _is_scc(run: RunResult, ctx: CheckContext) -> bool:
    if ctx.scc is not None:
        return ctx.scc
    return (get_option(run.config, "global", "scc") or "").upper() in ("TRUE", "1")


def _issue(
    rule: str,
    severity: Severity,
    message: str,
    expected: object = None,
    actual: object = None,
    phase: str | None = None,
) -> Issue:
    return Issue(rule, severity, message, expected, actual, phase)


def rule_version_accepted(run: RunResult, ctx: CheckContext) -> list[Issue]:
    rule = "version-accepted"
    release = ctx.release
    if release is None:
        return [
            _issue(rule, Severity.INFO, "no release given: version not checked", None, run.version)
        ]
    if run.format == "bash":
        if release.legacy_format:
            return []
        return [
            _issue(
                rule,
                Severity.INVALID,
                f"bash-era result format is only valid for historic imports, "
                f"not for {release.acronym}",
                "C application result",
                "bash script",
            )
        ]
    expected = list(release.accepted_tags)
    if not release.accepts(run.version):
        what = "empty version (built outside git)" if not run.version else "custom version"
        if run.version and run.version.startswith("io500-"):
            what = "a tag not announced for this release"
        return [
            _issue(
                rule,
                Severity.WARNING,
                f"{what}: needs a committee whitelist for {release.acronym}",
                expected,
                run.version,
            )
        ]
    issues = []
    version = run.version or ""
    if _DESCRIBE.search(version):
        issues.append(
            _issue(
                rule,
                Severity.WARNING,
                "git-describe suffix: built from a commit after the tag",
                expected,
                version,
            )
        )
    if version.endswith("-dirty") or (
        _DIRTY.search(version) and not re.search(r"-g[0-9a-f]+$", version)
    ):
        issues.append(
            _issue(
                rule,
                Severity.WARNING,
                "trailing -N: the source tree was locally modified",
                expected,
                version,
            )
        )
    return issues


def rule_mandatory_phases(run: RunResult, ctx: CheckContext) -> list[Issue]:
    issues = []
    for name in SCORED_PHASES:
        phase = run.phases.get(name)
        if phase is None:
            issues.append(
                _issue(
                    "mandatory-phases",
                    Severity.INVALID,
                    f"scored phase {name} is missing",
                    "present",
                    "missing",
                    name,
                )
            )
        elif not phase.value > 0:
            issues.append(
                _issue(
                    "mandatory-phases",
                    Severity.INVALID,
                    f"scored phase {name} has no positive score",
                    "> 0",
                    phase.value,
                    name,
                )
            )
    return issues


def rule_no_invalid_markers(run: RunResult, ctx: CheckContext) -> list[Issue]:
    issues = []
    for marker in run.invalid_markers:
        # Markers are "<file>:<line>: <text>" (IO500 files) or "<file> [phase]: <text>" (json).
        where, _, text = marker.partition(": ")
        issues.append(
            _issue(
                "invalid-markers",
                Severity.INVALID,
                f"marked invalid in {where}",
                "no invalid marker",
                text or marker,
            )
        )
    if run.printed is not None and not run.printed.valid and not issues:
        issues.append(
            _issue(
                "invalid-markers", Severity.INVALID, "the score line is invalid", "valid", "invalid"
            )
        )
    return issues


def rule_write_phase_runtime(run: RunResult, ctx: CheckContext) -> list[Issue]:
    minimum = MIN_WRITE_SECONDS_SCC if _is_scc(run, ctx) else MIN_WRITE_SECONDS
    issues = []
    for name in WRITE_PHASES:
        phase = run.phases.get(name)
        if phase is None or phase.time is None:
            continue  # missing phases are reported by mandatory-phases
        if phase.time < minimum:
            judged = run.format != "bash"  # era data above
            issues.append(
                _issue(
                    "write-phase-min-runtime",
                    Severity.INVALID if judged else Severity.INFO,
                    f"{name} ran {phase.time:.3f} s, less than {minimum:.0f} s"
                    + (
                        ""
                        if judged
                        else " as printed; the script of this era timed the whole phase "
                        "command and marks a short one [RESULT-invalid] itself"
                    ),
                    f">= {minimum:.0f}",
                    phase.time,
                    name,
                )
            )
    return issues


def rule_stonewall_time(run: RunResult, ctx: CheckContext) -> list[Issue]:
    rule = "stonewall-time"
    expected = 30 if _is_scc(run, ctx) else 300
    value = get_option(run.config, "debug", "stonewall-time")
    if value is None or value == "":
        exes = [p.extra.get("exe", "") for p in run.phases.values() if p.name in WRITE_PHASES]
        found = {m for exe in exes for m in re.findall(r"(?:-D|-W)[ =](\d+)", str(exe))}
        if found:
            value = ",".join(sorted(found))
        elif run.format == "bash":
            return [
                _issue(
                    rule,
                    Severity.INFO,
                    "bash-era run without config: stonewall not recorded",
                    expected,
                    None,
                )
            ]
        else:
            return [
                _issue(
                    rule, Severity.INFO, "stonewall-time not found (no config.ini)", expected, None
                )
            ]
    if value != str(expected):
        return [
            _issue(
                rule,
                Severity.INVALID,
                f"stonewall-time must be {expected}{' (SCC)' if expected == 30 else ''}",
                expected,
                value,
            )
        ]
    return []


def rule_total_recomputed(run: RunResult, ctx: CheckContext) -> list[Issue]:
    if run.printed is None:
        return [_issue("score-recomputed", Severity.INVALID, "no printed score", "score", None)]
    scores = recompute_scores(run)
    printed = run.printed.total
    difference = abs(scores.total - printed)
    # 0.1 % or 0.01 absolute, widened only as far as the printed precision forces (bash: 3
    # decimals per phase can move TOTAL by more than 0.1 % when a phase value is tiny).
    relative = max(TOTAL_RELATIVE_TOLERANCE, rounding_tolerance(run))
    if (
        difference <= TOTAL_ABSOLUTE_TOLERANCE
        or relative_difference(scores.total, printed) <= relative
    ):
        return []
    formula = "BW x MD (SC17)" if run.total_formula == "product" else "sqrt(BW x MD)"
    return [
        _issue(
            "score-recomputed",
            Severity.INVALID,
            f"printed TOTAL differs from {formula} recomputed from the phases "
            f"(BW {scores.bw:.6f}, MD {scores.md:.6f})",
            round(scores.total, 6),
            printed,
        )
    ]


def rule_hashes(run: RunResult, ctx: CheckContext) -> list[Issue]:
    check = verify_hashes(run)
    issues = []
    for label, ok, expected, actual, reason in (
        (
            "config",
            check.config_ok,
            check.config_expected,
            check.config_actual,
            check.config_reason,
        ),
        ("score", check.score_ok, check.score_expected, check.score_actual, check.score_reason),
    ):
        rule = f"{label}-hash"
        if ok is False:
            hint = run.extra.get("config_overwritten") if label == "config" else None
            why = f" ({hint})" if hint else ""
            issues.append(
                _issue(
                    rule,
                    Severity.WARNING,
                    f"{label} hash does not match the recomputed one{why}",
                    actual,
                    expected,
                )
            )
        elif ok is None and run.format != "bash":
            issues.append(
                _issue(rule, Severity.INFO, f"{label} hash not checked: {reason}", actual, expected)
            )
    return issues


def rule_summary_matches_result_txt(run: RunResult, ctx: CheckContext) -> list[Issue]:
    issues = []
    for name, phase in run.phases.items():
        if phase.score_txt is None:
            continue
        if abs(phase.score_txt - phase.value) > 5e-7 * max(1.0, abs(phase.value)):
            issues.append(
                _issue(
                    "summary-matches-result-txt",
                    Severity.WARNING,
                    f"{name}: result_summary.txt and result.txt disagree",
                    phase.score_txt,
                    phase.value,
                    name,
                )
            )
    if run.printed is not None and run.printed_txt is not None:
        for key in ("bw", "md", "total"):
            a, b = getattr(run.printed, key), getattr(run.printed_txt, key)
            if abs(a - b) > 5e-7 * max(1.0, abs(a)):
                issues.append(
                    _issue(
                        "summary-matches-result-txt",
                        Severity.WARNING,
                        f"score {key}: result_summary.txt and result.txt disagree",
                        b,
                        a,
                    )
                )
    return issues


def rule_procs_match(run: RunResult, ctx: CheckContext) -> list[Issue]:
    rule = "procs-nodes-ppn"
    if ctx.client_nodes is None or ctx.ppn is None:
        return []
    expected = ctx.client_nodes * ctx.ppn
    issues = []
    if ctx.ppn < 1:
        issues.append(
            _issue(rule, Severity.WARNING, "processes per node must be >= 1", ">= 1", ctx.ppn)
        )
    if run.procs is None:
        issues.append(_issue(rule, Severity.INFO, "procs not recorded in the run", expected, None))
    elif run.procs < ctx.client_nodes:
        issues.append(
            _issue(
                rule,
                Severity.WARNING,
                "fewer processes than client nodes",
                f">= {ctx.client_nodes}",
                run.procs,
            )
        )
    elif run.procs != expected:
        issues.append(
            _issue(
                rule,
                Severity.WARNING,
                f"procs {run.procs} != {ctx.client_nodes} nodes x {ctx.ppn} ppn",
                expected,
                run.procs,
            )
        )
    return issues


def rule_ten_nodes(run: RunResult, ctx: CheckContext) -> list[Issue]:
    rule = "ten-client-nodes"
    if ctx.ten_node:
        if ctx.client_nodes != 10:
            return [
                _issue(
                    rule,
                    Severity.INVALID,
                    "10-node lists need exactly 10 client nodes",
                    10,
                    ctx.client_nodes,
                )
            ]
        return []
    if ctx.client_nodes is not None and ctx.client_nodes < 10 and ctx.target_list:
        return [
            _issue(
                rule,
                Severity.WARNING,
                "fewer than 10 client nodes: listed but not award-eligible",
                ">= 10",
                ctx.client_nodes,
            )
        ]
    return []


def rule_release_window(run: RunResult, ctx: CheckContext) -> list[Issue]:
    release = ctx.release
    if release is None or release.window_start is None or release.window_end is None:
        return []
    when = run.start.date() if run.start else _date_of_timestamp(run.timestamp)
    window = f"{release.window_start} .. {release.window_end}"
    if when is None:
        return [_issue("release-window", Severity.INFO, "run date unknown", window, None)]
    if not release.window_start <= when <= release.window_end:
        return [
            _issue(
                "release-window",
                Severity.WARNING,
                f"run date outside the {release.acronym} window; older runs need a note",
                window,
                str(when),
            )
        ]
    return []


def _date_of_timestamp(stamp: str | None) -> date | None:
    match = re.match(r"^(\d{4})\.(\d\d)\.(\d\d)", stamp or "")
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


# Fixed by code (BENCHMARK-RULES §4.3): a different value on the tool command line means the
# source was edited. (phase, (flag, value) that must come first, the one after it, what)
_FIXED_EXE = (
    ("ior-hard-write", ("t", "47008"), ("b", "47008"), "47008-byte ior-hard records"),
    ("ior-hard-read", ("t", "47008"), ("b", "47008"), "47008-byte ior-hard records"),
    ("mdtest-hard-write", ("w", "3901"), ("e", "3901"), "3901-byte mdtest-hard files"),
    ("mdtest-hard-read", ("w", "3901"), ("e", "3901"), "3901-byte mdtest-hard files"),
)
# `-X 123` / `-X=123` options of a command line; one pass, no backtracking across options
# (a `-t.*-b` pattern re-scans the rest of the line for every `-t`: quadratic).
_NUMERIC_OPTION = re.compile(r"-([A-Za-z])[ =](\d+)(?!\w)")


def _has_fixed_options(exe: str, first: tuple[str, str], then: tuple[str, str]) -> bool:
    """True when option `first` appears before option `then` on the command line `exe`."""
    seen_first = False
    for match in _NUMERIC_OPTION.finditer(exe):
        option = (match.group(1), match.group(2))
        if seen_first and option == then:
            return True
        seen_first = seen_first or option == first
    return False


def rule_fixed_options(run: RunResult, ctx: CheckContext) -> list[Issue]:
    rule = "fixed-options"
    issues = []
    packet = get_option(run.config, "global", "dataPacketType")
    if packet:
        if packet.lower() not in DATA_PACKET_TYPES:
            issues.append(
                _issue(
                    rule,
                    Severity.INVALID,
                    "unknown dataPacketType",
                    "|".join(DATA_PACKET_TYPES),
                    packet,
                )
            )
        elif packet.lower() != "timestamp":
            issues.append(
                _issue(
                    rule,
                    Severity.WARNING,
                    "dataPacketType changed from the default: rules forbid gains "
                    "from deduplication or compression",
                    "timestamp",
                    packet,
                )
            )
    files_per_dir = get_option(run.config, "mdtest-hard", "files-per-dir")
    if files_per_dir:
        issues.append(
            _issue(
                rule,
                Severity.WARNING,
                "files-per-dir is set: needs a committee exception",
                "unset",
                files_per_dir,
            )
        )
    for section, options in run.config.items():
        for key, value in options.items():
            if key.lower() in ("run", "norun"):
                disabled = value.upper() == ("FALSE" if key.lower() == "run" else "TRUE")
                if disabled and _covers_mandatory(section):
                    issues.append(
                        _issue(
                            rule,
                            Severity.INVALID,
                            f"[{section}] {key} = {value} disables a mandatory phase",
                            "run = TRUE",
                            value,
                            section,
                        )
                    )
    for phase_name, first, then, what in _FIXED_EXE:
        phase = run.phases.get(phase_name)
        exe = phase.extra.get("exe") if phase is not None else None
        if isinstance(exe, str) and exe and not _has_fixed_options(exe, first, then):
            issues.append(
                _issue(
                    rule,
                    Severity.INVALID,
                    f"{phase_name} command line lacks the fixed {what}",
                    f"-{first[0]} {first[1]} ... -{then[0]} {then[1]}",
                    exe[:200],
                    phase_name,
                )
            )
    return issues


def _covers_mandatory(section: str) -> bool:
    section = section.lower()
    return any(name == section or name.startswith(section + "-") for name in SCORED_PHASES)


def rule_find_found(run: RunResult, ctx: CheckContext) -> list[Issue]:
    phase = run.phases.get("find")
    if phase is None:
        return []
    found = phase.extra.get("found")
    if found is None:
        return []
    try:
        count = int(str(found).strip())
    except ValueError:
        return [
            _issue(
                "find-found", Severity.WARNING, "find 'found' is not a number", "> 0", found, "find"
            )
        ]
    if count <= 0:
        return [
            _issue("find-found", Severity.INVALID, "find matched no files", "> 0", count, "find")
        ]
    return []


def rule_external_find(run: RunResult, ctx: CheckContext) -> list[Issue]:
    script = get_option(run.config, "find", "external-script")
    if not script:
        return []
    return [
        _issue(
            "external-find",
            Severity.WARNING,
            "an external find tool was used: its source must be in the upload",
            "source of the find tool",
            script,
            "find",
        )
    ]


def rule_companion_files(run: RunResult, ctx: CheckContext) -> list[Issue]:
    """LEADERBOARD-RULES §9.2: a C-app run should come with result.txt and config*.ini."""
    if run.format in ("bash", "ioscore-json"):
        return []  # legacy outputs have neither; result.json carries both
    issues = []
    names = {Path(f).name for f in run.files}
    if "result.txt" not in names:
        issues.append(
            _issue(
                "companion-files",
                Severity.WARNING,
                "result.txt is missing next to result_summary.txt",
                "result.txt",
                None,
            )
        )
    if not run.config_files:
        issues.append(
            _issue(
                "companion-files",
                Severity.WARNING,
                "no config*.ini next to result_summary.txt",
                "config*.ini",
                None,
            )
        )
    return issues


def rule_no_debug_settings(run: RunResult, ctx: CheckContext) -> list[Issue]:
    issues = []
    pause = get_option(run.config, "debug", "pause-dir")
    if pause:
        issues.append(
            _issue(
                "no-debug-settings",
                Severity.INVALID,
                "pause-dir is set, which invalidates the run",
                "unset",
                pause,
            )
        )
    texts = list(run.invalid_markers) + list(run.extra.get("result_txt_messages", []))
    if any("DRY RUN" in text.upper() or "DRY-RUN" in text.upper() for text in texts):
        issues.append(
            _issue(
                "no-debug-settings",
                Severity.INVALID,
                "the run was a dry run",
                "real run",
                "dry run",
            )
        )
    return issues


def rule_scc_consistent(run: RunResult, ctx: CheckContext) -> list[Issue]:
    config_scc = (get_option(run.config, "global", "scc") or "").upper() in ("TRUE", "1")
    target_scc = bool(ctx.target_list and ctx.target_list.lower() == "scc")
    if ctx.target_list is None or config_scc == target_scc:
        return []
    return [
        _issue(
            "scc-consistent",
            Severity.INVALID,
            "the config's scc flag does not match the target list",
            f"scc = {'TRUE' if target_scc else 'FALSE'}",
            f"scc = {'TRUE' if config_scc else 'FALSE'}",
        )
    ]


def rule_extended_mode(run: RunResult, ctx: CheckContext) -> list[Issue]:
    if run.mode == "extended":
        return [
            _issue(
                "extended-mode",
                Severity.INFO,
                "extended mode: only the standard score is ranked; [SCOREX] is stored separately",
                "standard",
                "extended",
            )
        ]
    return []


# Backends (the first word of an `api` value) that only talk to one file-system family, and
# backend options that only exist for one. POSIX, MPIIO, MMAP, HDF5, ... work on any family
# (DAOS through dfuse included), so they imply nothing.
API_FAMILIES = {"DFS": "DAOS", "DAOS": "DAOS", "IME": "IME", "CEPHFS": "Ceph", "RADOS": "Ceph"}
OPTION_FAMILIES = (
    ("--posix.lustre.", "Lustre"),
    ("--posix.gpfs.", "Spectrum Scale"),
    ("--posix.beegfs.", "BeeGFS"),
    ("--dfs.", "DAOS"),
)


def _families_named_by_api(run: RunResult) -> dict[str, list[str]]:
    """family -> the `[section] api` settings that imply it."""
    named: dict[str, list[str]] = {}
    for section, options in run.config.items():
        for key, value in options.items():
            words = value.split() if key.lower() == "api" else []
            if not words:
                continue
            families = {API_FAMILIES.get(words[0].upper())}
            families |= {
                family
                for word in words[1:]
                for prefix, family in OPTION_FAMILIES
                if word.lower().startswith(prefix)
            }
            for family in families - {None}:
                named.setdefault(str(family), []).append(f"[{section}] api = {value}")
    return named


def rule_api_matches_fs_family(run: RunResult, ctx: CheckContext) -> list[Issue]:
    """LEADERBOARD-RULES §9.17 (W): a backend or option that belongs to one file-system family while
    the description declares another (e.g. DFS on a "Lustre" system) is probably a wrong form."""
    declared = (ctx.fs_family or "").strip()
    if not declared or declared.lower() == "other":
        return []
    issues = []
    for family, settings in sorted(_families_named_by_api(run).items()):
        if family.lower() == declared.lower():
            continue
        shown = settings[0] + (f" (and {len(settings) - 1} more)" if len(settings) > 1 else "")
        issues.append(
            _issue(
                "api-matches-fs-family",
                Severity.WARNING,
                f"the config's API is for {family}, but the system description declares "
                f"{declared}: {shown}",
                family,
                declared,
            )
        )
    return issues


def rule_hardware_plausible(run: RunResult, ctx: CheckContext) -> list[Issue]:
    """A phase faster than the declared hardware can carry needs a human look (a warning); a
    read that may have come from client or server memory is said (information). Each message
    carries its arithmetic (``plausibility``)."""
    if not ctx.system:
        return []
    severity = {"beyond-hardware": Severity.WARNING, "cache": Severity.INFO}
    return [
        _issue("hardware-plausible", severity[f.kind], f.message, phase=f.phase)
        for f in run_findings(run, ctx.system)
    ]


def rule_numbers_finite(run: RunResult, ctx: CheckContext) -> list[Issue]:
    """Every phase number and score finite and not negative, recomputed ones included.

    The parsers already refuse such input; this also covers runs built elsewhere and scores
    that overflow when recomputed from huge (finite) phase values.
    """
    rule = "numbers-finite"
    found: list[Issue] = []
    for phase in run.phases.values():
        for what, value in (("value", phase.value), ("time", phase.time)):
            problem = None if value is None else number_problem(value)
            if problem:
                message = f"{phase.name} {what} {problem}"
                found.append(
                    _issue(rule, Severity.INVALID, message, "finite >= 0", str(value), phase.name)
                )
    scores = [("printed", run.printed), ("printed extended", run.printed_extended)]
    if not found:
        scores.append(("recomputed", recompute_scores(run)))
    for label, group in scores:
        for what in ("bw", "md", "total"):
            value = None if group is None else getattr(group, what)
            problem = None if value is None else number_problem(value)
            if problem:
                message = f"{label} {what.upper()} score {problem}"
                found.append(_issue(rule, Severity.INVALID, message, "finite >= 0", str(value)))
    return found


Rule = Callable[[RunResult, CheckContext], list[Issue]]

RULES: tuple[Rule, ...] = (
    rule_numbers_finite,
    rule_version_accepted,
    rule_mandatory_phases,
    rule_no_invalid_markers,
    rule_write_phase_runtime,
    rule_stonewall_time,
    rule_total_recomputed,
    rule_hashes,
    rule_summary_matches_result_txt,
    rule_procs_match,
    rule_ten_nodes,
    rule_release_window,
    rule_fixed_options,
    rule_find_found,
    rule_external_find,
    rule_companion_files,
    rule_no_debug_settings,
    rule_scc_consistent,
    rule_extended_mode,
    rule_api_matches_fs_family,
    rule_hardware_plausible,
)


def check(run: RunResult, context: CheckContext | None = None) -> list[Issue]:
    """Run every rule; the run is valid when no issue has severity INVALID."""
    ctx = context if context is not None else CheckContext()
    issues: list[Issue] = []
    for rule in RULES:
        issues.extend(rule(run, ctx))
    return issues


def is_valid(issues: list[Issue]) -> bool:
    return not any(issue.severity == Severity.INVALID for issue in issues)
