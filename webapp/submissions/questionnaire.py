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
