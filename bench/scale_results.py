"""result.json size and rank-0 peak memory of the summary form against simulated rank counts:
`suite/build/ioscore-simulate-ranks N` sends N synthetic ranks on N/100 hosts
through the suite's sketches, merges and result.json writer for every standard phase and
reports its output size and peak RSS. Also times loading and JSON-Schema validation of each
document, and sets the sizes beside the full form's (about 8.4 KB per rank, measured at 256
ranks). Prints a table; never asserts anything.
Usage: .venv/bin/python bench/scale_results.py [--ranks 1000 10000 100000] [--dir /dev/shm]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import jsonschema

REPO = Path(__file__).resolve().parents[1]
SIMULATE = REPO / "suite" / "build" / "ioscore-simulate-ranks"
SCHEMA = REPO / "suite" / "schema" / "ioscore-result-1.schema.json"
FULL_FORM_BYTES_PER_RANK = 2.1e6 / 256  # result.json at 256 ranks, full form


def simulate(ranks: int, out: Path) -> dict[str, int]:
    proc = subprocess.run(
        [str(SIMULATE), str(ranks), "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, int] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--dir", default="/dev/shm")
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(REPO / "suite")], check=True)
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    print(
        f"{'ranks':>8} {'hosts':>6} {'result.json':>12} {'full form':>10} {'rank-0 RSS':>11}"
        f" {'host table':>11} {'load s':>7} {'validate s':>10}"
    )
    for ranks in args.ranks:
        with tempfile.TemporaryDirectory(prefix="ioscore-scale-", dir=args.dir) as tmp:
            out = Path(tmp) / "run"
            row = simulate(ranks, out)
            start = time.perf_counter()
            document = json.loads((out / "result.json").read_text())
            loaded = time.perf_counter()
            validator.validate(document)
            validated = time.perf_counter()
        full_mb = ranks * FULL_FORM_BYTES_PER_RANK / 1e6
        print(
            f"{ranks:>8} {row['hosts']:>6} {row['result_json_bytes'] / 1e6:>9.2f} MB"
            f" {full_mb:>7.0f} MB {row['peak_rss_kib'] / 1024:>8.1f} MiB"
            f" {row['host_table_kib'] / 1024:>7.1f} MiB {loaded - start:>7.2f}"
            f" {validated - loaded:>10.2f}"
        )
    print(
        "rank-0 RSS: the simulation process (sketches, host aggregates, named ranks, output"
        " buffer and the host table: one 64 B name per host, as rank 0 of a real run holds it;"
        " the older design had every rank hold N x 64 B); full form: ~8.4 KB per rank"
    )


if __name__ == "__main__":
    main()
