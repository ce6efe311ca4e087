# The list views at 100,000 entries, part two:
# * each list's distinct search texts and filter choices (``rankings.list_index``), filled
#   here from the stored entries; the builder keeps them from now on;
# * the search text's 64-bit key, a stored generated column (PostgreSQL rewrites the table),
#   carried by the list-order index instead of the text;
# * an index per list and file system type in list order, one by institution and one by
#   search key.

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0007_list_statistics"),
        ("submissions", "0009_public_results_version"),
    ]

    operations = [
        migrations.CreateModel(
            name="ListFacet",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("fs_type", models.CharField(blank=True, max_length=100)),
                ("storage_vendor", models.CharField(blank=True, max_length=200)),
            ],
        ),
        migrations.CreateModel(
            name="ListSearchText",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("search_key", models.BigIntegerField()),
                ("search_text", models.TextField()),
                ("shared", models.BooleanField(help_text="another text of the list has this key")),
            ],
        ),
        migrations.RemoveIndex(
            model_name="listentry",
            name="entry_list_position",
        ),
        migrations.AddField(
            model_name="listentry",
            name="search_key",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Func(
                    django.db.models.functions.text.Lower(
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
                    models.Value(0),
                    function="hashtextextended",
                    output_field=models.BigIntegerField(),
                ),
                output_field=models.BigIntegerField(),
            ),
        ),
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
                    "search_key",
                ),
                name="entry_list_position",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                models.F("ranked_list"),
                django.db.models.functions.text.Upper("fs_type"),
                models.F("position"),
                include=(
                    "id",
                    "fs_type",
                    "storage_vendor",
                    "client_nodes",
                    "level",
                    "origin_release",
                    "search_key",
                ),
                name="entry_list_fs_position",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "institution", "position"], name="entry_list_inst"
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "search_key"],
                include=("id", "position"),
                name="entry_list_search",
            ),
        ),
        migrations.AddField(
            model_name="listfacet",
            name="origin_release",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="submissions.release",
            ),
        ),
        migrations.AddField(
            model_name="listfacet",
            name="ranked_list",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="rankings.rankedlist",
            ),
        ),
        migrations.AddField(
            model_name="listsearchtext",
            name="ranked_list",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="rankings.rankedlist",
            ),
        ),
        migrations.RunSQL(
            "INSERT INTO rankings_listsearchtext (ranked_list_id, search_key, search_text, shared) "
            "SELECT ranked_list_id, search_key, search_text, "
            "count(*) OVER (PARTITION BY ranked_list_id, search_key) > 1 FROM (SELECT DISTINCT "
            "ranked_list_id, search_key, search_text FROM rankings_listentry) t "
            "ORDER BY ranked_list_id, search_key; "
            "INSERT INTO rankings_listfacet "
            "(ranked_list_id, fs_type, storage_vendor, origin_release_id) "
            "SELECT DISTINCT ranked_list_id, fs_type, storage_vendor, origin_release_id "
            "FROM rankings_listentry",
            migrations.RunSQL.noop,
        ),
    ]
