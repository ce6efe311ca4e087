"""`ioscore layout MANIFEST --resultdir DIR`: record which storage servers hold each rank's file.

MANIFEST is the `<test file>.ioscore-test.json` that `ioscore-suite ior` writes beside its data
(keep the data with -k, or probe between a write launch and its read launch); the record goes
to DIR/layout.json, where `ioscore report` finds it and shows throughput per storage server.
Run it where the files are mounted (on a client node).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ioscore import fslayout


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "layout",
        help="record which storage servers hold each rank's file (for per-server throughput)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("manifest", type=Path, metavar="MANIFEST")
    parser.add_argument("--resultdir", type=Path, required=True, help="the launch's results")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        layout = fslayout.record(args.manifest, args.resultdir)
    except (OSError, ValueError, KeyError) as exc:
        print(f"ioscore layout: {args.manifest}: cannot read the manifest: {exc}", file=sys.stderr)
        return 2
    if layout["unprobed"]:
        print(f"ioscore layout: nothing probed: {layout['unprobed']}")
        return 0
    servers = sorted({s for found in layout["ranks"].values() for s in found})
    print(
        f"{len(layout['ranks'])} ranks' files on {len(servers)} servers ({layout['file_system']}): "
        + ", ".join(servers)
    )
    return 0
