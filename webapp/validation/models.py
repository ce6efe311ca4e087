"""Issues found by the automatic checks (LEADERBOARD-RULES §9), stored per submission."""

from __future__ import annotations

from django.db import models

from ioscore.results import Severity
from submissions.models import Submission


class ValidationIssue(models.Model):
    """One ``ioscore.results.Issue`` (or an archive-level problem) for a submission.

    A validation run replaces the whole set atomically, so the rows always describe the
    latest complete run.
    """

    # The library's levels (one Severity for CLI and service), stored as their text.
    INVALID = Severity.INVALID.value
    WARNING = Severity.WARNING.value
    INFO = Severity.INFO.value
    SEVERITIES = [(level.value, level.value) for level in Severity]

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="issues")
    rule = models.CharField(max_length=80)
    severity = models.CharField(max_length=10, choices=SEVERITIES)
    message = models.TextField()
    expected = models.JSONField(null=True, blank=True)
    actual = models.JSONField(null=True, blank=True)
    phase = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["submission", "id"]

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
            "phase": self.phase or None,
        }
