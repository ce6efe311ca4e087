"""An archive is one submission per owner, not one in all: another account's identical upload
is its own submission, so the answer to it reveals nothing of anyone else's."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_token_role_and_expiry"),
        ("submissions", "0010_summarise_large_full_form_phases"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="submission",
            name="archive_sha256",
            field=models.CharField(blank=True, db_index=True, max_length=64, null=True),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.UniqueConstraint(
                fields=("owner", "archive_sha256"), name="submission_unique_archive_per_owner"
            ),
        ),
    ]
