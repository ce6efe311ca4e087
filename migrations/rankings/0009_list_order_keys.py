# A list's ``position`` becomes a gapped list-order key (``rankings.list_order``), so
# that an accepted run leaves the other rows' keys alone and updates only their ranks, which
# are in no index: with room in the table's pages PostgreSQL updates those rows in place (HOT)
# instead of writing a new tuple and an entry in each of the 12 indexes for every row below
# the new one (one acceptance: 24.8 s at 100,000 submissions).
# * every list's entries renumbered 1..N in their order where they are not (the builder and
#   the import always wrote them so: normally no row), then keys GAP, 2*GAP, ... as bigint;
# * fillfactor 50: an UPDATE of every row of a page fits in that page (the heap doubles; the
#   indexes do not change). The old row versions are pruned when the page is next read, once
#   no transaction older than that update runs; while one does (a long report, a backup),
#   the next acceptance's updates fall back to other pages, as before. The type change
#   rewrites the table (and its indexes), so the existing rows are laid out with that room.
# Reverse: the default fill factor and positions 1..N per list again (as integer).

from django.db import migrations, models

TABLE = "rankings_listentry"
GAP = 1 << 32  # rankings.list_order.GAP when this was written

DENSE = (
    f"UPDATE {TABLE} AS e SET position = d.n FROM (SELECT id, row_number() OVER "
    f"(PARTITION BY ranked_list_id ORDER BY position, id) AS n FROM {TABLE}) AS d "
    "WHERE e.id = d.id AND e.position <> d.n"
)

FORWARD = [
    DENSE,
    f"ALTER TABLE {TABLE} SET (fillfactor = 50)",
    f"ALTER TABLE {TABLE} ALTER COLUMN position TYPE bigint USING position::bigint * {GAP}",
]

REVERSE = [
    f"ALTER TABLE {TABLE} RESET (fillfactor)",
    DENSE,
    f"ALTER TABLE {TABLE} ALTER COLUMN position TYPE integer",
]


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0008_list_search_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="listentry",
                    name="position",
                    field=models.PositiveBigIntegerField(
                        help_text=(
                            "list-order key: increasing in display order, with gaps "
                            "(rankings.list_order)"
                        )
                    ),
                ),
            ],
            database_operations=[migrations.RunSQL(FORWARD, REVERSE)],
        ),
    ]
