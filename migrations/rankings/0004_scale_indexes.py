"""Indexes the pages need at 100,000 submissions (plans in bench/service_scale.py).

``submissions_phaseresult (name, value DESC)``: the best published value of each phase (the
radar's "history" reference on result, run and compare pages, ``charts.history_best``) is
read from the top of this index instead of aggregating every phase row. It is the rankings
pages' query, so the index is declared here, in SQL (the table belongs to ``submissions``,
whose model state it does not change).
"""

from django.db import migrations

INDEX = "rankings_phaseresult_name_value"


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0003_published_lists"),
        ("submissions", "0007_as_submitted_names"),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS {INDEX} "
            "ON submissions_phaseresult (name, value DESC NULLS LAST)",
            f"DROP INDEX IF EXISTS {INDEX}",
        ),
    ]
