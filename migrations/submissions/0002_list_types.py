"""Seed the list types of spec §1 (legacy IO500 / 10 Node Challenge for releases <= SC22)."""

from django.db import migrations

LIST_TYPES = [
    # slug, name, order, legacy, ten_node, award
    ("historical", "Historical", 10, False, False, False),
    ("full", "Full", 20, False, False, False),
    ("production", "Production", 30, False, False, True),
    ("research", "Research", 40, False, False, True),
    ("ten-node-production", "10-node Production", 50, False, True, True),
    ("ten-node-research", "10-node Research", 60, False, True, True),
    ("scc", "SCC", 70, False, False, False),
    ("io500", "IO500", 80, True, False, True),
    ("ten-node-challenge", "10 Node Challenge", 90, True, True, True),
]


def seed(apps, schema_editor):
    ListType = apps.get_model("submissions", "ListType")
    for slug, name, order, legacy, ten_node, award in LIST_TYPES:
        ListType.objects.update_or_create(
            slug=slug,
            defaults=dict(name=name, order=order, legacy=legacy, ten_node=ten_node, award=award),
        )


class Migration(migrations.Migration):
    dependencies = [("submissions", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
