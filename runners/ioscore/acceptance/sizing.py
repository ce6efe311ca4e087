"""Sizing acceptance tests: -b/-s (IOR) and -n (mdtest) from a probe and the client RAM.

NERSC's practice: the data each node writes must exceed its page cache several times over
(otherwise a read measures client DRAM), and a fixed-data test should last long enough (30 s
to several minutes) that open/close and stragglers do not dominate. With

* ``ram`` bytes of RAM per client node, ``multiple`` K (default 3),
* ``node_bw`` the probe's write bandwidth per node (bytes/s), ``seconds`` T (default 300),

the data per node is ``max(K x ram, T x node_bw)``, split over ``ppn`` ranks and rounded up to
whole transfers: ``-b`` = per-rank data (one segment) or ``-b transfer -s N`` (N segments).
mdtest: ``-n`` = T x the probe's file-creation rate per rank. The arithmetic assumes the probe's
per-node (per-rank) rate holds at the plan's scale; the proposal says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """IOR's sizes: 4k, 1m, 8g, 1t (binary) or plain bytes; ValueError otherwise."""
    text = text.strip().lower()
    if text[-1:] in UNITS and text[:-1].isdigit():
        return int(text[:-1]) * UNITS[text[-1]]
    if text.isdigit():
        return int(text)
    raise ValueError(f"{text!r} is not a size (e.g. 4k, 1m, 8g)")


def format_size(size: int) -> str:
    """The shortest exact IOR spelling: 3221225472 -> '3g'."""
    for suffix, factor in (("t", 1 << 40), ("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{suffix}"
    return str(size)


@dataclass(frozen=True)
class IorSize:
    per_node_bytes: int
    per_rank_bytes: int  # rounded up to whole transfers
    transfer: int
    block: int  # -b with -s 1
    segments: int  # -s with -b = transfer
    by_cache: bool  # True: RAM x multiple decided; False: the duration did
    expected_seconds: float | None  # per-node data / per-node probe bandwidth

    def options(self) -> str:
        return f"-t {format_size(self.transfer)} -b {format_size(self.block)} -s 1"

    def segmented_options(self) -> str:
        t = format_size(self.transfer)
        return f"-t {t} -b {t} -s {self.segments}"


def size_ior(
    ram: int, ppn: int, transfer: int, node_bw: float | None, multiple: float, seconds: float
) -> IorSize:
    if ram <= 0 or ppn < 1 or transfer <= 0 or multiple <= 0 or seconds <= 0:
        raise ValueError("RAM, ppn, transfer size, multiple and seconds must be positive")
    by_cache_bytes = multiple * ram
    by_time_bytes = seconds * node_bw if node_bw else 0.0
    per_node = max(by_cache_bytes, by_time_bytes)
    transfers = max(1, math.ceil(per_node / ppn / transfer))
    per_rank = transfers * transfer
    expected = per_rank * ppn / node_bw if node_bw else None
    return IorSize(
        per_node_bytes=per_rank * ppn,
        per_rank_bytes=per_rank,
        transfer=transfer,
        block=per_rank,
        segments=transfers,
        by_cache=by_cache_bytes >= by_time_bytes,
        expected_seconds=expected,
    )


def size_mdtest(rank_rate: float, seconds: float) -> int:
    """-n: files per rank so that creating them takes about `seconds` at `rank_rate` files/s."""
    if rank_rate <= 0 or seconds <= 0:
        raise ValueError("the creation rate and the seconds must be positive")
    return max(1, math.ceil(rank_rate * seconds))
