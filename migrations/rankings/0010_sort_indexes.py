# The list views at 100,000 entries, part three: an index per sortable column
# (list, column, position, with the id; the vendor's also with the release), so a sorted page is
# an ordered walk of the list, not a top-N sort of its 100,000 rows; the release and the level
# are what the release-date and level sorts read one value at a time (rankings.listview).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0009_list_order_keys"),
        ("submissions", "0009_public_results_version"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "origin_release", "position"],
                include=("id",),
                name="entry_sort_origin_release",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "level", "position"],
                include=("id",),
                name="entry_sort_level",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "system", "position"],
                include=("id",),
                name="entry_sort_system",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "storage_vendor", "position"],
                include=("id", "origin_release"),
                name="entry_sort_storage_vendor",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "fs_type", "position"],
                include=("id",),
                name="entry_sort_fs_type",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "client_nodes", "position"],
                include=("id",),
                name="entry_sort_client_nodes",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "total_procs", "position"],
                include=("id",),
                name="entry_sort_total_procs",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "ior_easy_write", "position"],
                include=("id",),
                name="entry_sort_ior_easy_write",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_easy_write", "position"],
                include=("id",),
                name="entry_sort_mdtest_easy_write",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "ior_hard_write", "position"],
                include=("id",),
                name="entry_sort_ior_hard_write",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_hard_write", "position"],
                include=("id",),
                name="entry_sort_mdtest_hard_write",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "find", "position"], include=("id",), name="entry_sort_find"
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "ior_easy_read", "position"],
                include=("id",),
                name="entry_sort_ior_easy_read",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_easy_stat", "position"],
                include=("id",),
                name="entry_sort_mdtest_easy_stat",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "ior_hard_read", "position"],
                include=("id",),
                name="entry_sort_ior_hard_read",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_hard_stat", "position"],
                include=("id",),
                name="entry_sort_mdtest_hard_stat",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_easy_delete", "position"],
                include=("id",),
                name="entry_sort_mdtest_easy_delete",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_hard_read", "position"],
                include=("id",),
                name="entry_sort_mdtest_hard_read",
            ),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(
                fields=["ranked_list", "mdtest_hard_delete", "position"],
                include=("id",),
                name="entry_sort_mdtest_hard_delete",
            ),
        ),
    ]
