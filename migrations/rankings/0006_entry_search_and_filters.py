# The list views at 100,000 entries (issue 21):
# * the search's text, a stored, lower-cased generated column of the display columns with a
#   trigram index, so q= is an index lookup instead of five ILIKEs per entry; adding the
#   generated column fills it for every existing entry (PostgreSQL rewrites the table);
# * the list-order index carries the filtered columns and the id, so a filtered count and a
#   page's ids are index-only scans.

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0005_list_value_indexes"),
        ("submissions", "0008_phase_rank_summary"),
    ]

    operations = [
        TrigramExtension(),
        migrations.AddField(
            model_name="listentry",
            name="search_text",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.functions.text.Lower(
                    django.db.models.functions.text.Concat(
                        "institution",
                        models.Value("\n"),
                        "system",
                        models.Value("\n"),
                        "storage_vendor",
                        models.Value("\n"),
                        "fs_type",
                        models.Value("\n"),
                        "fs_name",
                        output_field=models.TextField(),
                    )
                ),
                output_field=models.TextField(),
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["search_text"], opclasses=["gin_trgm_ops"], name="entry_search_trgm"
            ),
        ),
        migrations.RemoveIndex(model_name="listentry", name="entry_list_position"),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "position"],
                include=(
                    "id",
                    "fs_type",
                    "storage_vendor",
                    "client_nodes",
                    "level",
                    "origin_release",
                ),
                name="entry_list_position",
            ),
        ),
    ]
