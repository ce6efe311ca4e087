"""Quantities of a system description ({value, unit}) in base units, and the server roles that
hold data: what the plausibility arithmetic and the service's list columns share."""

from __future__ import annotations

from typing import Any

_DECIMAL = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
_HZ = {"Hz": 1, "kHz": 10**3, "MHz": 10**6, "GHz": 10**9}
METADATA_ROLES = {"MDS", "metadata"}
DATA_ROLES = {"OSS", "storage", "data", "NSD", "OSD", "server"}


def to_base(quantity: dict[str, Any] | None) -> float | None:
    """{value, unit} -> bytes, bytes/s or Hz (bit rates are converted to bytes/s)."""
    if not quantity:
        return None
    value = float(quantity["value"])
    unit: str = quantity["unit"]
    if unit in _HZ:
        return value * _HZ[unit]
    bits = "bit" in unit
    stem = unit.split("/")[0].replace("bit", "").replace("B", "")
    if stem.endswith("i"):
        factor = _BINARY[stem[0].upper()]
    elif stem:
        factor = _DECIMAL[stem[0].upper()]
    else:
        factor = 1
    return value * factor / (8 if bits else 1)
