"""Seed the list types of spec §1 (legacy IO500 / 10 Node Challenge for releases <= SC22).

The table is the one definition of the seeded rows; 0006 (rule, era) seeds it again, and
tests that flush the database call ``seed`` with the current models.
"""

from django.db import migrations

LIST_TYPES = [
    # slug, name, order, era, ten_node, award, rule
    ("historical", "Historical", 10, "any", False, False, "historical"),
    ("full", "Full", 20, "any", False, False, "full"),
    ("production", "Production", 30, "current", False, True, "production"),
    ("research", "Research", 40, "current", False, True, "research"),
    ("ten-node-production", "10-node Production", 50, "current", True, True, "production"),
    ("ten-node-research", "10-node Research", 60, "current", True, True, "research"),
    ("scc", "SCC", 70, "any", False, False, "scc"),
    ("io500", "IO500", 80, "legacy", False, True, "io500"),
    ("ten-node-challenge", "10 Node Challenge", 90, "legacy", True, True, "io500"),
]


def seed(apps, schema_editor):
    ListType = apps.get_model("submissions", "ListType")
    fields = {field.name for field in ListType._meta.get_fields()}
    for slug, name, order, era, ten_node, award, rule in LIST_TYPES:
        values = {"name": name, "order": order, "ten_node": ten_node, "award": award}
        if "legacy" in fields:  # the model as of 0002-0005
            values["legacy"] = era == "legacy"
        if "rule" in fields:  # from 0006 on
            values |= {"rule": rule, "era": era}
        ListType.objects.update_or_create(slug=slug, defaults=values)


class Migration(migrations.Migration):
    dependencies = [("submissions", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
