"""A correction may record a withdrawn entry, without its values."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0011_pending_list_updates"),
    ]

    operations = [
        migrations.AlterField(
            model_name="correction",
            name="kind",
            field=models.CharField(
                choices=[
                    ("added", "Entry added"),
                    ("removed", "Entry removed"),
                    ("withdrawn", "Entry withdrawn"),
                    ("moved", "Entry moved between lists"),
                    ("score", "Score changed"),
                    ("rename", "Metadata renamed"),
                ],
                max_length=10,
            ),
        ),
    ]
