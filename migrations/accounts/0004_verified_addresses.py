"""E-mail addresses confirmed through their verification link (as keyed hashes)."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_token_role_and_expiry"),
    ]

    operations = [
        migrations.CreateModel(
            name="VerifiedAddress",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("verified", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
    ]
