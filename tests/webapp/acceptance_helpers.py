"""Real acceptance results for the service's acceptance tests: a plan's results directory as
`ioscore run PLAN` lays it out (one folder per test, one sub-folder per launch of a two-part
test), produced by real `ioscore-suite ior|mdtest` launches under mpirun -np 2 in /dev/shm."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ioscore.acceptance.plan import load_plan
from tests.fixtures.acceptance_suite import launch, scratch

IOR_FPP = "-F -C -e -g -b 256k -t 64k -s 2 -w -r -i 3"
IOR_PAIR = "-F -C -e -g -b 256k -t 64k -s 2"
MDTEST = "-n 20 -i 2 -u"
# A user-supplied report that would steal cookies if the site served it in its own origin.
HOSTILE_REPORT = (
    b"<!doctype html><html><body><h1>acceptance report</h1>"
    b"<script>fetch('/api/v1/acceptance/runs/?stolen=' + document.cookie)</script>"
    b"</body></html>"
)


# The plan `ioscore run` copied into the results directory: two targets met, one missed, and
# one of a test whose launch left no result (so it cannot have been met).
PLAN = f"""\
name = "TU scratch acceptance"
datadir = "/dev/shm/acceptance"
[layout]
nodes = 1
ppn = 2
[[test]]
name = "ior-fpp"
command = "ior {IOR_FPP} -o $DIR/ior-fpp/f"
targets = ["write >= 1 MiB/s", "read >= 1,000 TB/s"]
[[test]]
name = "ior-pair"
command = "ior {IOR_PAIR} -w -r -k -o $DIR/ior-pair/f"
launch = "separate"
[[test]]
name = "mdtest-create"
command = "mdtest {MDTEST} -d $DIR/md"
targets = ["creates >= 10/s"]
[[test]]
name = "mdtest-hard"
command = "mdtest -n 20 -u -d $DIR/md-hard"
targets = ["creates >= 6,800/s"]
"""


@contextmanager
def acceptance_results(prefix: str) -> Iterator[Path]:
    """Yield ``ROOT/results`` holding tests ior-fpp (write+read, -i 3), ior-pair (a -k write
    launch and a later read launch of the same files) and mdtest-create (-i 2), plus a
    report.html and the plan (plan.toml, plan.json) with its targets."""
    with scratch(prefix) as root:
        results, data = root / "results", root / "data"
        for folder in ("ior-fpp", "ior-pair/write", "ior-pair/read", "mdtest-create"):
            (results / folder).mkdir(parents=True)
        for folder in ("ior-fpp", "ior-pair", "md"):
            (data / folder).mkdir(parents=True)
        launch(results / "ior-fpp", "ior", [*IOR_FPP.split(), "-o", str(data / "ior-fpp/f")])
        pair = [*IOR_PAIR.split(), "-o", str(data / "ior-pair/f")]
        launch(results / "ior-pair/write", "ior", [*pair, "-w", "-k"])
        launch(results / "ior-pair/read", "ior", [*pair, "-r"])
        launch(results / "mdtest-create", "mdtest", [*MDTEST.split(), "-d", str(data / "md")])
        (results / "report.html").write_bytes(HOSTILE_REPORT)
        # As `ioscore run PLAN.toml` leaves them: the plan and its effective form.
        (results / "plan.toml").write_text(PLAN)
        plan = load_plan(results / "plan.toml").to_dict()
        (results / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
        yield results


def pack(results: Path, extra: dict[str, bytes] | None = None) -> bytes:
    """A .tar.gz of the results directory (as `results/...`); ``extra`` adds or replaces
    members (name relative to the results directory -> content)."""
    extra = extra or {}
    replaced = {f"results/{name}" for name in extra}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(
            results,
            arcname="results",
            filter=lambda info: None if info.name in replaced else info,
        )
        for name, content in extra.items():
            info = tarfile.TarInfo(f"results/{name}")
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def result_files(results: Path) -> dict[str, Path]:
    """test folder -> its (first) result.json."""
    return {
        folder.name: sorted(folder.rglob("result.json"))[0]
        for folder in sorted(results.iterdir())
        if folder.is_dir()
    }
