"""The reproducibility questionnaire (LEADERBOARD-RULES §5.1): its questions and the completeness
rule."""

from __future__ import annotations

from typing import Any

from .models import ReproducibilityLevel

MIN_WORDS = 10
# key -> short label; all required, each at least MIN_WORDS words of plain text.
QUESTIONS: dict[str, str] = {
    "purpose": "System purpose",
    "availability": "Availability",
    "storage_software": "Storage system software",
    "runtime_environment": "Runtime environment",
    "fault_tolerance": "Fault tolerance",
    "execution": "Execution",
    "caching": "Caching",
    "data_source": "Data source",
    "trust": "Trust",
}
OPTIONAL = {"feedback": "Free feedback"}
LEVEL_KEY = "expected_level"


def _shown(value: Any, limit: int = 60) -> str:
    """The value as found in the JSON, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def problems(answers: Any) -> list[tuple[str, str]]:
    """(key, message) for every missing or too-short answer; [] when complete. Each message
    names the field (its key and label) and the value found there."""
    if not isinstance(answers, dict):
        return [("", f"the questionnaire must be a JSON object, got {type(answers).__name__}")]
    found: list[tuple[str, str]] = []
    for key, label in QUESTIONS.items():
        value = answers.get(key)
        field = f"{key} ({label})"
        if key not in answers:
            found.append((key, f"{field}: answer missing"))
        elif not isinstance(value, str) or not value.strip():
            found.append((key, f"{field}: a text answer is needed, got {_shown(value)}"))
        elif len(value.split()) < MIN_WORDS:
            words = len(value.split())
            found.append(
                (key, f"{field}: at least {MIN_WORDS} words needed, got {words}: {_shown(value)}")
            )
    level = answers.get(LEVEL_KEY)
    if level not in ReproducibilityLevel.values:
        found.append(
            (
                LEVEL_KEY,
                f"{LEVEL_KEY}: must be one of "
                f"{', '.join(ReproducibilityLevel.values)}, got "
                f"{_shown(level) if LEVEL_KEY in answers else 'nothing'}",
            )
        )
    unknown = set(answers) - set(QUESTIONS) - set(OPTIONAL) - {LEVEL_KEY}
    found += [(key, "unknown question key") for key in sorted(unknown)]
    return found


# What each question asks for (LEADERBOARD-RULES §5.1), shown as help beside the answer on the
# upload form.
QUESTION_HELP: dict[str, str] = {
    "purpose": "Typical applications on this system and how the data they produce is used.",
    "availability": "Deployment period (or the create/destroy pattern of a cloud system) "
    "and who uses the system.",
    "storage_software": "How the storage software is obtained (commercial, open source, not "
    "public), the product page or repository of the exact version, and deployment "
    "specifics (server product, local file system, dual-ported media, ...).",
    "runtime_environment": "Confirm that every script and configuration needed to rebuild "
    "the environment is in the upload (striping commands, non-default tunables per node "
    "type, configuration dumps) and say where.",
    "fault_tolerance": "Single points of failure: power, network, protection between servers "
    "(replication, erasure coding, declustered RAID, failover) and media protection inside "
    "a server.",
    "execution": "How the run was launched (scheduler, set-up steps) and whether the system "
    "was dedicated to it.",
    "caching": "Every cache layer used on clients and servers: page cache, NVMe read cache, "
    "server RAM, controller or RAID cache.",
    "data_source": "Is the storage the primary copy of the data, or an acceleration layer in "
    "front of another system?",
    "trust": "Repeat runs, comparison with the hardware's limits, and how you ensured data "
    "was persistent before files were closed.",
    "feedback": "Anything you want the committee to know about the benchmark or the process.",
}

# The committee's levels (LEADERBOARD-RULES §5.2) and where each leads (§5.3), for the submitter's
# claim.
LEVEL_HELP: dict[str, str] = {
    ReproducibilityLevel.UNDEFINED: "Client and/or server metadata is missing. The committee "
    "asks for more information and may reject the submission.",
    ReproducibilityLevel.LIMITED: "Metadata is largely present, but the questionnaire is "
    "insufficient or missing. The committee asks for more information.",
    ReproducibilityLevel.PROPRIETARY: "Metadata and questionnaire are complete, but the system "
    "cannot be obtained openly or commercially. Eligible for the Research lists.",
    ReproducibilityLevel.FULLY_REPRODUCIBLE: "Complete, and anyone can obtain the hardware and "
    "software (open source, free or commercial; for cloud: every offering is listed). "
    "Eligible for the Production lists when it is also a production system without a single "
    "point of failure in storage; otherwise Research.",
}
