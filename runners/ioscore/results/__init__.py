"""Django-free results library shared by the `ioscore` CLI and the leaderboard service.

Public API (the service imports these names; keep them stable):

* ``find_runs(path) -> list[Path]``: run directories (holding result_summary.txt or
  result.json) below a directory; skips macOS ``._*`` files and ``__MACOSX``.
* ``load_run(run_dir) -> RunResult``: parse one run directory (result.json preferred, else
  result_summary.txt + result.txt + config*.ini) of any IO500 era into the typed model.
* ``load_path(path) -> list[RunResult]``: every run in a directory or an archive
  (.tar.gz/.tgz/.tar/.zip, extracted safely into a temporary directory).
* ``recompute_scores(run) -> Scores``: BW, MD and TOTAL per the version's rules (SC17's
  TOTAL = BW x MD, zeros skipped since SC21); ``recompute_extended_scores`` for [SCOREX].
* ``config_hash(config)``, ``score_hash(version, phase_scores, md, bw, total, valid)``,
  ``kv_hash``; ``verify_hashes(run) -> HashCheck`` compares them with the printed ones.
* ``check(run, context) -> list[Issue]``: every rule of ``rules.RULES`` (pure functions);
  ``CheckContext`` carries the release, target list, declared nodes/ppn and the SCC flag;
  ``is_valid(issues)`` is True when no issue is INVALID.
* ``job_file_issues(root) -> list[Issue]``: the job script and job output an upload must
  carry (LEADERBOARD-RULES §9.3), searched below ``root``; ``find_job_files`` lists them.
* ``get_release(acronym)`` / ``Release``: accepted tags and the run-date window of a release.
* ``storable_text(text)``: valid UTF-8 without NUL, the form of every string the library
  reports (and the service stores).
* Archives: ``inspect_archive`` / ``extract_archive`` (safety rules, ``ArchiveLimits``
  passed in; ``UnsafeArchive`` names the refusal), ``archive_kind``, ``is_macos_metadata``.
* Untrusted JSON: ``loads_storable_json(text, max_depth)`` (raises ``UnstorableJSON``).
* IO500 pieces the importer reuses: ``load_summary_lines``, ``rank_csv``, ``finite_number``;
  ``phase_ranks_from_csv`` (a phase's CSV ranks, summarised above the threshold).
* The summary form: ``RANK_DETAIL_THRESHOLD`` (the suite's default: ranks up to
  which a phase keeps every rank), ``summarise_ranks`` / ``bounded_ranks`` (the one
  summariser: quantiles, named slowest/fastest ranks, rate histogram, per-host aggregates),
  ``summary_form`` (a whole phase above the threshold as the suite writes it).
* What an upload must hold, for pages that explain it: ``RUN_MARKERS``,
  ``JOB_SCRIPT_SUFFIXES``, ``JOB_OUTPUT_SUFFIXES``, ``JOB_OUTPUT_PREFIXES``,
  ``ARCHIVE_SUFFIXES``, ``MIN_WRITE_SECONDS`` / ``MIN_WRITE_SECONDS_SCC``.
* Stragglers and imbalance (one rule for the CLI report and the service): ``phase_spread``,
  ``work_rates``, ``median_without``.
* Rates in a phase's unit: ``rate_scale``, ``throughput_series`` (the aggregate time series).
* One chart per phase (the run page and ``ioscore report``): ``phase_panels`` / ``PhasePanel``
  (rate over the phase's own time axis, stonewall and wear-out marks, hosts, p99 per second).
* Operation latency: ``phase_latency`` / ``LatencySummary`` (either histogram layout),
  ``QUANTILE_KEYS`` and ``QUANTILE_LABELS`` (p50 ... p99.99).
* ``gc_paused()``: cyclic garbage collection off while many acyclic objects are built.
* What-if scoring, never official: ``EDITIONS`` (``Edition``), ``parse_formula`` (a
  ``Formula``, or ``FormulaError``; at most ``MAX_FORMULA_CHARS``), ``formula_values``,
  ``rerank``, ``RND4K_READ``, ``variable_name`` (a phase's name in formulas),
  ``formula_names`` and ``FORMULA_FUNCTIONS`` (what a formula may use).
* Packing a run directory for upload: ``pack_directory``, ``sha256_of``.
* ``ResultFormatError``: unreadable, unknown, truncated or wrongly encoded input; its message
  names the file and line (attributes ``path``, ``line``, ``reason``).

Model types (``model.py``): RunResult, PhaseResult, Scores, Issue, Severity, ScoreGroup.
"""

from ioscore.results.archive import (
    ARCHIVE_SUFFIXES,
    ArchiveLimits,
    UnsafeArchive,
    archive_kind,
    extract_archive,
    inspect_archive,
    is_macos_metadata,
)
from ioscore.results.archive import Member as ArchiveMember
from ioscore.results.editions import (
    EDITIONS,
    FORMULA_FUNCTIONS,
    MAX_FORMULA_CHARS,
    RND4K_READ,
    Edition,
    Formula,
    FormulaError,
    formula_values,
    parse_formula,
    rerank,
    variable_name,
)
from ioscore.results.editions import known_names as formula_names
from ioscore.results.errors import ResultFormatError
from ioscore.results.gc_pause import gc_paused
from ioscore.results.hashing import (
    HashCheck,
    config_hash,
    extended_score_hash,
    kv_hash,
    score_hash,
    verify_hashes,
)
from ioscore.results.jobfiles import (
    JOB_OUTPUT_PREFIXES,
    JOB_OUTPUT_SUFFIXES,
    JOB_SCRIPT_SUFFIXES,
    find_job_files,
    job_file_issues,
)
from ioscore.results.latency import (
    QUANTILE_KEYS,
    QUANTILE_LABELS,
    LatencySummary,
    phase_latency,
)
from ioscore.results.limits import storable_text
from ioscore.results.loader import RUN_MARKERS, find_runs, load_run, load_summary_lines
from ioscore.results.model import (
    BW_PHASES,
    MD_PHASES,
    SCORED_PHASES,
    WRITE_PHASES,
    CountRows,
    HostAggregate,
    Issue,
    PhaseResult,
    RankStat,
    RankSummary,
    RunResult,
    ScoreGroup,
    Scores,
    Severity,
)
from ioscore.results.numbers import SIGNIFICANT, significant, whole_or_significant
from ioscore.results.packing import pack_directory, sha256_of
from ioscore.results.parse_rankcsv import (
    finite_number,
    phase_ranks_from_csv,
    rank_csv,
    suite_rank_file,
)
from ioscore.results.paths import load_path
from ioscore.results.phase_panels import PhasePanel, phase_panels
from ioscore.results.plausibility import Finding as PlausibilityFinding
from ioscore.results.plausibility import (
    ReadOfWrite,
    beyond_hardware,
    cache_findings,
    ceilings,
    node_bytes,
    run_findings,
    written_per_node,
)
from ioscore.results.plausibility import summary as plausibility_summary
from ioscore.results.rank_summary import (
    RANK_DETAIL_THRESHOLD,
    bounded_ranks,
    summarise_ranks,
    summary_form,
)
from ioscore.results.regressions import DEFAULT_FRACTION, Drop, Point, drops
from ioscore.results.releases import BUILTIN_RELEASES, Release, get_release
from ioscore.results.rules import (
    MIN_WRITE_SECONDS,
    MIN_WRITE_SECONDS_SCC,
    RULES,
    CheckContext,
    check,
    is_valid,
)
from ioscore.results.scoring import recompute_extended_scores, recompute_scores
from ioscore.results.storable_json import UnstorableJSON
from ioscore.results.storable_json import loads as loads_storable_json
from ioscore.results.stragglers import median_without, phase_spread, rate_histogram, work_rates
from ioscore.results.throughput import rate_scale, throughput_series

__all__ = [
    "ARCHIVE_SUFFIXES",
    "BUILTIN_RELEASES",
    "BW_PHASES",
    "DEFAULT_FRACTION",
    "EDITIONS",
    "FORMULA_FUNCTIONS",
    "JOB_OUTPUT_PREFIXES",
    "JOB_OUTPUT_SUFFIXES",
    "JOB_SCRIPT_SUFFIXES",
    "MAX_FORMULA_CHARS",
    "MD_PHASES",
    "MIN_WRITE_SECONDS",
    "MIN_WRITE_SECONDS_SCC",
    "QUANTILE_KEYS",
    "QUANTILE_LABELS",
    "RANK_DETAIL_THRESHOLD",
    "RND4K_READ",
    "RULES",
    "RUN_MARKERS",
    "SCORED_PHASES",
    "SIGNIFICANT",
    "WRITE_PHASES",
    "ArchiveLimits",
    "ArchiveMember",
    "CheckContext",
    "CountRows",
    "Drop",
    "Edition",
    "Formula",
    "FormulaError",
    "HashCheck",
    "HostAggregate",
    "Issue",
    "LatencySummary",
    "PhasePanel",
    "PhaseResult",
    "PlausibilityFinding",
    "Point",
    "RankStat",
    "RankSummary",
    "ReadOfWrite",
    "Release",
    "ResultFormatError",
    "RunResult",
    "ScoreGroup",
    "Scores",
    "Severity",
    "UnsafeArchive",
    "UnstorableJSON",
    "archive_kind",
    "beyond_hardware",
    "bounded_ranks",
    "cache_findings",
    "ceilings",
    "check",
    "config_hash",
    "drops",
    "extended_score_hash",
    "extract_archive",
    "find_job_files",
    "find_runs",
    "finite_number",
    "formula_names",
    "formula_values",
    "gc_paused",
    "get_release",
    "inspect_archive",
    "is_macos_metadata",
    "is_valid",
    "job_file_issues",
    "kv_hash",
    "load_path",
    "load_run",
    "load_summary_lines",
    "loads_storable_json",
    "median_without",
    "node_bytes",
    "pack_directory",
    "parse_formula",
    "phase_latency",
    "phase_panels",
    "phase_ranks_from_csv",
    "phase_spread",
    "plausibility_summary",
    "rank_csv",
    "rate_histogram",
    "rate_scale",
    "recompute_extended_scores",
    "recompute_scores",
    "rerank",
    "run_findings",
    "score_hash",
    "sha256_of",
    "significant",
    "storable_text",
    "suite_rank_file",
    "summarise_ranks",
    "summary_form",
    "throughput_series",
    "variable_name",
    "verify_hashes",
    "whole_or_significant",
    "work_rates",
    "written_per_node",
]
