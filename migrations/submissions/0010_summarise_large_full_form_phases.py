"""Phases stored in the full form with more than the rank-detail threshold's ranks (a run
uploaded with the suite's threshold raised) are rewritten in the summary form, as
``run_rows.iter_phase_rows`` now stores them: every page decoded ~21 MB of rank JSON per
phase of a 100,000-rank run. The run's archive, kept unchanged, still holds every rank."""

from django.db import migrations

from ioscore.results import RANK_DETAIL_THRESHOLD, summary_form
from submissions.run_rows import library_phase, rank_fields

_LARGE_FULL_FORM = (
    "SELECT p.id, s.run_format FROM submissions_phaseresult p"
    " JOIN submissions_submission s ON s.id = p.submission_id WHERE p.rank_summary IS NULL"
    " AND jsonb_typeof(p.ranks) = 'array' AND jsonb_array_length(p.ranks) > %s ORDER BY p.id"
)
# Every rank's record is in the file the ranks were read from: a suite run's result.json
# (loader.RUN_MARKERS); an IO500 import's per-rank CSVs are named per phase (no one file).
_RANKS_FILE = {"ioscore-json": "result.json"}


def summarise(apps, schema_editor):  # type: ignore[no-untyped-def]
    PhaseResult = apps.get_model("submissions", "PhaseResult")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_LARGE_FULL_FORM, [RANK_DETAIL_THRESHOLD])
        found = cursor.fetchall()
    for pk, run_format in found:  # one phase's ranks in memory at a time
        row = PhaseResult.objects.get(pk=pk)
        phase = summary_form(library_phase(row), full_file=_RANKS_FILE.get(run_format))
        PhaseResult.objects.filter(pk=pk).update(**rank_fields(phase))


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0009_public_results_version"),
    ]

    operations = [
        migrations.RunPython(summarise, migrations.RunPython.noop),
    ]
