"""Canonical descriptive values: file-system type, storage vendor and institution.

Submitters spell the same thing many ways (BeeGFS/beegfs, Inspur/INSPUR, "Queen Mary; University
Of London"), and the IO500 archive's folder names stand in for a file-system type when no record
states one (mustang, Red, Work). Filters and groupings need one entry per real value, so the
importer and the upload path store the canonical value and keep what was given in the
``*_submitted`` columns of ``SystemDescription``. The table is data
(``data/canonical_names.toml``); ``manage.py canonicalise_names`` re-applies it to stored rows.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "data" / "canonical_names.toml"
FIELDS = ("fs_type", "storage_vendor", "institution")
UNKNOWN_FS_TYPE = "unknown"
PLACEHOLDERS = "fs_type_placeholders"
# Where the raw value of a canonical column is kept, and the label the result page uses.
SUBMITTED = {field: f"{field}_submitted" for field in FIELDS}
LABELS = {"fs_type": "FS type", "storage_vendor": "Storage vendor", "institution": "Institution"}


def match_key(value: str) -> str:
    """Letters and digits only, case-folded: spellings that differ only in case, spacing or
    punctuation are one value."""
    return "".join(ch for ch in value.casefold() if ch.isalnum())


class TableError(ValueError):
    """The mapping table is malformed (a value claimed by two canonical names, a bad type)."""


@dataclass(frozen=True)
class Table:
    # field -> match key -> canonical value
    names: dict[str, dict[str, str]]
    # match keys of FS "types" that name no software (see the table's comment)
    placeholders: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, document: dict[str, Any], where: str = "table") -> Table:
        names: dict[str, dict[str, str]] = {}
        for field in FIELDS:
            section = document.get(field, {})
            if not isinstance(section, dict):
                raise TableError(f"{where}: [{field}] must be a table")
            keys: dict[str, str] = {}
            for canonical, aliases in section.items():
                if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                    raise TableError(f"{where}: [{field}] {canonical!r}: aliases must be strings")
                for spelling in (canonical, *aliases):
                    key = match_key(spelling)
                    if not key:
                        raise TableError(f"{where}: [{field}] {spelling!r} has no letters")
                    if keys.get(key, canonical) != canonical:
                        raise TableError(
                            f"{where}: [{field}] {spelling!r} is claimed by both "
                            f"{keys[key]!r} and {canonical!r}"
                        )
                    keys[key] = canonical
            names[field] = keys
        unknown = set(document) - {*FIELDS, PLACEHOLDERS}
        if unknown:
            raise TableError(f"{where}: unknown section(s) {', '.join(sorted(unknown))}")
        values = document.get(PLACEHOLDERS, {}).get("values", [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise TableError(f"{where}: [{PLACEHOLDERS}] values must be a list of strings")
        placeholders = frozenset(match_key(v) for v in values)
        if clash := placeholders & set(names["fs_type"]):
            raise TableError(f"{where}: placeholder(s) also FS types: {', '.join(sorted(clash))}")
        return cls(names, placeholders)

    def canonical(self, field: str, value: str) -> str:
        """The canonical spelling; a value the table does not know is kept as given (trimmed)."""
        value = " ".join(value.split())
        return self.names[field].get(match_key(value), value)

    def is_fs_type(self, value: str) -> bool:
        return match_key(value) in self.names["fs_type"]

    def fs_type(self, stated: str, fs_name: str = "") -> str:
        """The canonical type of a stated FS type; a placeholder ("Parallel Filesystem")
        gives way to the FS name when that names a known type (wekafs)."""
        if match_key(stated) in self.placeholders and self.is_fs_type(fs_name):
            return self.canonical("fs_type", fs_name)
        return self.canonical("fs_type", stated)

    def fs_type_of_folder(self, folder: str, stated: str = "") -> str:
        """The type of a file system known only by its archive folder: the folder itself when
        it names a type, else the type a record or list row states, else "unknown"."""
        if self.is_fs_type(folder):
            return self.canonical("fs_type", folder)
        if stated.strip() and match_key(stated) not in self.placeholders:
            return self.canonical("fs_type", stated)
        return UNKNOWN_FS_TYPE


@cache
def table() -> Table:
    with TABLE.open("rb") as handle:
        return Table.parse(tomllib.load(handle), str(TABLE))


def canonical_columns(flat: dict[str, Any]) -> dict[str, Any]:
    """``SystemDescription`` column values with the canonical fields replaced and the given
    values kept in ``*_submitted`` (the upload path; the importer resolves folders first)."""
    out = dict(flat)
    names = table()
    for field in FIELDS:
        raw = str(flat.get(field) or "")
        out[SUBMITTED[field]] = raw
        if field == "fs_type":
            out[field] = names.fs_type(raw, str(flat.get("fs_name") or "")) if raw else ""
        else:
            out[field] = names.canonical(field, raw) if raw else ""
    return out


def as_submitted(description: Any) -> list[tuple[str, str, str]]:
    """(label, canonical, as submitted) for each canonical column whose stored value differs
    from what was submitted: the result page shows "as submitted: ..." for these."""
    if description is None:
        return []
    rows = []
    for field in FIELDS:
        raw = getattr(description, SUBMITTED[field], "") or ""
        value = getattr(description, field, "") or ""
        if raw and raw != value:
            rows.append((LABELS[field], value, raw))
    return rows
