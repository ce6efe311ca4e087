# The list views at 100,000 entries:
# * the search's text, a stored, lower-cased generated column of the display columns, so q= is
#   one LIKE on one column instead of five UPPER(...) LIKEs and a join per entry; adding the
#   generated column fills it for every existing entry (PostgreSQL rewrites the table);
# * the list-order index carries the filtered columns, the search text and the id, so a
#   filtered or searched count and a page's ids are index-only scans of the list's range.

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0005_list_value_indexes"),
        ("submissions", "0008_phase_rank_summary"),
    ]

    operations = [
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
                    "search_text",
                ),
                name="entry_list_position",
            ),
        ),
    ]
