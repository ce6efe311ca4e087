from django.db import migrations, models


def create_row(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("submissions", "PublicResultsVersion").objects.get_or_create(pk=1)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0008_phase_rank_summary"),
    ]

    operations = [
        migrations.CreateModel(
            name="PublicResultsVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("counter", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(create_row, migrations.RunPython.noop),
    ]
