"""Each rule has a passing and a failing case, built from real runs copied to tmp and edited."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscore.results import RULES, CheckContext, Issue, Severity, check, get_release, load_run

from .conftest import BASH_RUN, DEV, SC21_EXTENDED, SC25_RUN, SCC_RUN, edit


def issues(run_dir: Path, rule: str, ctx: CheckContext | None = None) -> list[Issue]:
    return [i for i in check(load_run(run_dir), ctx or CheckContext()) if i.rule == rule]


def severities(found: list[Issue]) -> set[Severity]:
    return {i.severity for i in found}


@pytest.fixture
def sc25(copy_run) -> Path:  # type: ignore[no-untyped-def]
    return copy_run(SC25_RUN)


SC25 = CheckContext(release=get_release("SC25"))


def test_every_rule_is_a_pure_function_of_run_and_context() -> None:
    run = load_run(DEV / SC25_RUN)
    for rule in RULES:
        assert rule(run, SC25) == rule(run, SC25)
    assert check(run, SC25) == []  # the real sc25 run is clean for SC25


def test_version_accepted(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "version-accepted", SC25) == []
    wrong = issues(sc25, "version-accepted", CheckContext(release=get_release("ISC25")))
    assert severities(wrong) == {Severity.WARNING}
    assert wrong[0].expected == ["io500-isc25"] and wrong[0].actual == "io500-sc25"
    bash = issues(copy_run(BASH_RUN), "version-accepted", SC25)
    assert severities(bash) == {Severity.INVALID}
    edit(sc25 / "result_summary.txt", "io500-sc25 (standard)", "io500-sc25-26 (standard)")
    dirty = issues(sc25, "version-accepted", SC25)
    assert severities(dirty) == {Severity.WARNING} and "locally modified" in dirty[0].message


def test_mandatory_phases(sc25: Path) -> None:
    assert issues(sc25, "mandatory-phases") == []
    summary = sc25 / "result_summary.txt"
    edit(summary, "71.617650 kIOPS", "0.000000 kIOPS")
    zero = issues(sc25, "mandatory-phases")
    assert [(i.phase, i.actual) for i in zero] == [("find", 0.0)]
    lines = summary.read_text("utf-8").splitlines(keepends=True)
    summary.write_text("".join(line for line in lines if " find " not in line), "utf-8")
    missing = issues(sc25, "mandatory-phases")
    assert [(i.phase, i.severity) for i in missing] == [("find", Severity.INVALID)]


def test_invalid_markers(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "invalid-markers") == []
    edit(sc25 / "result_summary.txt", "time 449.645 seconds", "time 449.645 seconds [INVALID]")
    marked = issues(sc25, "invalid-markers")
    assert severities(marked) == {Severity.INVALID}
    # A real sc23-era run printed "; ERROR INVALID stonewall-time < 30s" into result.txt:
    # since isc21 that validate() message had no effect (BENCHMARK-RULES §2.6).
    scc_run = copy_run(SCC_RUN)
    assert issues(scc_run, "invalid-markers") == []
    messages = load_run(scc_run).extra["result_txt_messages"]
    assert any("ERROR INVALID stonewall-time < 30s" in m for m in messages)
    # In isc20/sc20 the same message invalidated the run.
    for name in ("result_summary.txt", "result.txt"):
        edit(scc_run / name, "io500-isc22_v1", "io500-sc20")
    assert severities(issues(scc_run, "invalid-markers")) == {Severity.INVALID}


def test_write_phase_min_runtime(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "write-phase-min-runtime") == []
    edit(sc25 / "result_summary.txt", "time 362.459 seconds", "time 299.990 seconds")
    short = issues(sc25, "write-phase-min-runtime")
    assert [(i.phase, i.actual) for i in short] == [("mdtest-hard-write", 299.99)]
    scc = issues(sc25, "write-phase-min-runtime", CheckContext(scc=True))
    assert scc == []  # 30 s is enough under SCC rules
    # The bash script timed the whole phase command, not the printed time, and tagged a short
    # phase [RESULT-invalid] itself: a short printed time is information only.
    bash = copy_run(BASH_RUN)
    edit(bash / "result_summary.txt", "time 315.32 seconds", "time 219.53 seconds")
    assert severities(issues(bash, "write-phase-min-runtime")) == {Severity.INFO}
    assert issues(bash, "invalid-markers") == []


def test_stonewall_time(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "stonewall-time") == []
    edit(sc25 / "config.ini", "stonewall-time = 300", "stonewall-time = 200")
    low = issues(sc25, "stonewall-time")
    assert [(i.severity, i.expected, i.actual) for i in low] == [(Severity.INVALID, 300, "200")]
    # Real SCC run with scc = TRUE kept stonewall 300: must be 30.
    scc = issues(copy_run(SCC_RUN), "stonewall-time")
    assert [(i.expected, i.actual) for i in scc] == [(30, "300")]


def test_score_recomputed(sc25: Path) -> None:
    assert issues(sc25, "score-recomputed") == []
    summary = sc25 / "result_summary.txt"
    edit(summary, "TOTAL 10.078942", "TOTAL 10.083000")  # +0.04 %: within 0.1 %
    assert issues(sc25, "score-recomputed") == []
    edit(summary, "TOTAL 10.083000", "TOTAL 10.250000")
    wrong = issues(sc25, "score-recomputed")
    assert severities(wrong) == {Severity.INVALID}
    assert wrong[0].expected == pytest.approx(10.078942) and wrong[0].actual == 10.25


def test_hashes(sc25: Path) -> None:
    assert issues(sc25, "score-hash") == [] and issues(sc25, "config-hash") == []
    edit(sc25 / "result.txt", "hash            = 7960B935", "hash            = 7960B936")
    score = issues(sc25, "score-hash")
    assert [(i.severity, i.expected, i.actual) for i in score] == [
        (Severity.WARNING, "7960B935", "7960B936")
    ]
    edit(sc25 / "config.ini", "n = 1000000", "n = 2000000")
    config = issues(sc25, "config-hash")
    assert severities(config) == {Severity.WARNING} and config[0].actual == "263E5AFE"


def test_summary_matches_result_txt(sc25: Path) -> None:
    assert issues(sc25, "summary-matches-result-txt") == []
    edit(sc25 / "result.txt", "score           = 34.950286", "score           = 34.960286")
    found = issues(sc25, "summary-matches-result-txt")
    assert [(i.phase, i.expected, i.actual) for i in found] == [
        ("ior-easy-write", 34.960286, 34.950286)
    ]


def test_procs_nodes_ppn(sc25: Path) -> None:
    assert issues(sc25, "procs-nodes-ppn", CheckContext(client_nodes=40, ppn=8)) == []
    wrong = issues(sc25, "procs-nodes-ppn", CheckContext(client_nodes=10, ppn=8))
    assert [(i.severity, i.expected, i.actual) for i in wrong] == [(Severity.WARNING, 80, 320)]


def test_ten_client_nodes(sc25: Path) -> None:
    ten = CheckContext(target_list="10-node-production", client_nodes=10, ppn=32)
    assert issues(sc25, "ten-client-nodes", ten) == []
    forty = CheckContext(target_list="10-node-production", client_nodes=40, ppn=8)
    assert severities(issues(sc25, "ten-client-nodes", forty)) == {Severity.INVALID}
    small = CheckContext(target_list="production", client_nodes=4, ppn=80)
    assert severities(issues(sc25, "ten-client-nodes", small)) == {Severity.WARNING}


def test_release_window(sc25: Path) -> None:
    assert issues(sc25, "release-window", SC25) == []
    edit(sc25 / "result.txt", "; START 2025-10-21 12:48:09", "; START 2024-10-21 12:48:09")
    late = issues(sc25, "release-window", SC25)
    assert [(i.severity, i.actual) for i in late] == [(Severity.WARNING, "2024-10-21")]


def test_fixed_options(sc25: Path) -> None:
    assert issues(sc25, "fixed-options") == []
    config = sc25 / "config.ini"
    edit(config, "dataPacketType = timestamp", "dataPacketType = random")
    assert severities(issues(sc25, "fixed-options")) == {Severity.WARNING}
    edit(config, "dataPacketType = random", "dataPacketType = zeros")
    assert severities(issues(sc25, "fixed-options")) == {Severity.INVALID}
    edit(config, "dataPacketType = zeros", "dataPacketType = timestamp")
    edit(
        sc25 / "result.txt", "-t 47008 -b 47008 -s 10000000 -w", "-t 47104 -b 47104 -s 10000000 -w"
    )
    record = issues(sc25, "fixed-options")
    assert [(i.phase, i.severity) for i in record] == [("ior-hard-write", Severity.INVALID)]


def test_fixed_options_mandatory_phase_disabled(sc25: Path) -> None:
    text = (sc25 / "config.ini").read_text("utf-8")
    start = text.index("[mdtest-hard-read]")
    (sc25 / "config.ini").write_text(
        text[:start] + text[start:].replace("run = TRUE", "run = FALSE", 1), "utf-8"
    )
    found = issues(sc25, "fixed-options")
    assert [(i.phase, i.actual) for i in found] == [("mdtest-hard-read", "FALSE")]


def test_find_found(sc25: Path) -> None:
    assert issues(sc25, "find-found") == []
    edit(sc25 / "result.txt", "found           = 69124", "found           = 0")
    assert [(i.severity, i.actual) for i in issues(sc25, "find-found")] == [(Severity.INVALID, 0)]


def test_no_debug_settings(sc25: Path) -> None:
    assert issues(sc25, "no-debug-settings") == []
    edit(sc25 / "config.ini", "pause-dir = \n", "pause-dir = /tmp/pause\n")
    paused = issues(sc25, "no-debug-settings")
    assert [(i.severity, i.actual) for i in paused] == [(Severity.INVALID, "/tmp/pause")]
    edit(sc25 / "config.ini", "pause-dir = /tmp/pause\n", "pause-dir = \n")
    edit(sc25 / "result.txt", "; START", "; ERROR INVALID DRY RUN MODE ACTIVATED\n; START")
    dry = issues(sc25, "no-debug-settings")
    assert [i.actual for i in dry] == ["dry run"]


def test_scc_consistent(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "scc-consistent", CheckContext(target_list="production")) == []
    assert severities(issues(sc25, "scc-consistent", CheckContext(target_list="scc"))) == {
        Severity.INVALID
    }
    scc_run = copy_run(SCC_RUN)
    assert issues(scc_run, "scc-consistent", CheckContext(target_list="scc")) == []
    wrong = issues(scc_run, "scc-consistent", CheckContext(target_list="production"))
    assert [i.actual for i in wrong] == ["scc = TRUE"]


def test_extended_mode(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "extended-mode") == []
    extended = issues(copy_run(SC21_EXTENDED), "extended-mode")
    assert severities(extended) == {Severity.INFO}


def test_external_find(sc25: Path) -> None:
    assert issues(sc25, "external-find") == []
    text = (sc25 / "config.ini").read_text("utf-8")
    start = text.index("[find]")
    (sc25 / "config.ini").write_text(
        text[:start]
        + text[start:].replace("external-script = \n", "external-script = /opt/dfind\n", 1),
        "utf-8",
    )
    found = issues(sc25, "external-find")
    assert [(i.severity, i.actual) for i in found] == [(Severity.WARNING, "/opt/dfind")]


def test_companion_files(sc25: Path, copy_run) -> None:  # type: ignore[no-untyped-def]
    assert issues(sc25, "companion-files") == []
    # Real submission 642 has a top-level result_summary.txt without result.txt or config.
    found = issues(copy_run("642"), "companion-files")
    assert [i.expected for i in found] == ["result.txt", "config*.ini"]
    assert issues(copy_run(BASH_RUN), "companion-files") == []  # legacy: never had them


def test_fewer_procs_than_nodes(sc25: Path) -> None:
    found = issues(sc25, "procs-nodes-ppn", CheckContext(client_nodes=400, ppn=1))
    assert [(i.message, i.actual) for i in found] == [("fewer processes than client nodes", 320)]


def test_dirty_ioscore_build_needs_review(sc25: Path) -> None:
    from ioscore.results import Release

    release = Release("TST1", ("io500-sc25",), None, None)
    edit(sc25 / "result_summary.txt", "io500-sc25 (standard)", "io500-sc25-dirty (standard)")
    found = issues(sc25, "version-accepted", CheckContext(release=release))
    assert [i.severity for i in found] == [Severity.WARNING]
    assert "locally modified" in found[0].message


DAOS_RUN = "776/results/2025.11.04-17.24.20"  # real io500-sc25 run with api = DFS --dfs.pool=...


def test_api_matches_fs_family(sc25: Path) -> None:
    daos = DEV / DAOS_RUN
    assert issues(daos, "api-matches-fs-family", CheckContext(fs_family="DAOS")) == []
    assert issues(daos, "api-matches-fs-family") == []  # nothing declared: nothing to compare
    assert issues(daos, "api-matches-fs-family", CheckContext(fs_family="other")) == []
    found = issues(daos, "api-matches-fs-family", CheckContext(fs_family="Lustre"))
    assert [(i.severity, i.expected, i.actual) for i in found] == [
        (Severity.WARNING, "DAOS", "Lustre")
    ]
    assert "api = DFS --dfs.pool=" in found[0].message
    # POSIX works on every family (DAOS through dfuse too): no warning either way
    for family in ("Lustre", "DAOS", "Spectrum Scale"):
        assert issues(sc25, "api-matches-fs-family", CheckContext(fs_family=family)) == []
    # a backend option of one family's tuning gives it away as well
    edit(sc25 / "config.ini", "api = POSIX", "api = POSIX --posix.lustre.stripecount=8")
    found = issues(sc25, "api-matches-fs-family", CheckContext(fs_family="Spectrum Scale"))
    assert [(i.expected, i.actual) for i in found] == [("Lustre", "Spectrum Scale")]
    assert issues(sc25, "api-matches-fs-family", CheckContext(fs_family="lustre")) == []


def test_hardware_plausibility_warns_with_the_arithmetic(corpus_dir: Path) -> None:
    import json

    from ioscore.system_description import EXAMPLE_PATH

    run_dir = corpus_dir / "io500-submissions" / "dev" / SC25_RUN
    run = load_run(run_dir)
    description = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
    assert issues(run_dir, "hardware-plausible") == []  # no description: nothing to compare
    assert issues(run_dir, "hardware-plausible", CheckContext(system=description)) == []
    easy_read = run.phases["ior-easy-read"].value * 2**30
    description["run"]["client_network_bandwidth"] = {"value": easy_read / 2e9, "unit": "GB/s"}
    found = issues(run_dir, "hardware-plausible", CheckContext(system=description))
    assert "ior-easy-read" in {i.phase for i in found}
    assert all(i.severity == Severity.WARNING for i in found)
    read = next(i for i in found if i.phase == "ior-easy-read")
    assert "2.00 times what the client network can carry" in read.message
