"""The reproducibility questionnaire (spec §5.1): its questions and the completeness rule."""

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


def problems(answers: Any) -> list[tuple[str, str]]:
    """(key, message) for every missing or too-short answer; [] when complete."""
    if not isinstance(answers, dict):
        return [("", "the questionnaire must be a JSON object")]
    found: list[tuple[str, str]] = []
    for key, label in QUESTIONS.items():
        value = answers.get(key)
        if not isinstance(value, str) or not value.strip():
            found.append((key, f"{label}: answer missing"))
        elif len(value.split()) < MIN_WORDS:
            found.append(
                (key, f"{label}: at least {MIN_WORDS} words needed, got {len(value.split())}")
            )
    level = answers.get(LEVEL_KEY)
    if level not in ReproducibilityLevel.values:
        found.append(
            (
                LEVEL_KEY,
                f"expected level must be one of "
                f"{', '.join(ReproducibilityLevel.values)}, got {level!r}",
            )
        )
    unknown = set(answers) - set(QUESTIONS) - set(OPTIONAL) - {LEVEL_KEY}
    found += [(key, "unknown question key") for key in sorted(unknown)]
    return found
