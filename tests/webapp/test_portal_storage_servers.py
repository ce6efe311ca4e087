"""The run page's throughput per storage server and its straggler findings, on IO500 runs
recorded on the test bed (tests/results/recorded/, see its README): one while a chunk
server's link was slowed, with the file-layout probe's layout.json beside it, one while a
client node's link was slowed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.test import Client

from submissions.models import Status

from .portal_runs import store_run

RECORDED = Path(__file__).parents[1] / "results" / "recorded"


def _page(cast: Any, open_release: Any, run_dir: Path) -> str:
    submission = store_run(run_dir, cast.submitter, cast.site, open_release, Status.ACCEPTED)
    client = Client()
    client.force_login(cast.reviewer)
    response = client.get(f"/results/{submission.pk}/")
    assert response.status_code == 200
    mine = Client()
    mine.force_login(cast.submitter)
    own = mine.get(f"/submissions/{submission.pk}/").content.decode()
    page = response.content.decode()
    # the submitter's run page shows the same section
    assert _section(own) == _section(page)
    return page


def _section(page: str) -> str:
    if 'id="storage-servers"' not in page:
        return ""
    return page.split('id="storage-servers"', 1)[1].split("</section>", 1)[0]


def test_the_slowed_server_is_named_from_the_runs_layout(cast: Any, open_release: Any) -> None:
    run_dir = RECORDED / "io500-slow-server"
    layout = json.loads((run_dir / "layout.json").read_text())["ranks"]
    slowed = "10.213.47.12:9422"  # cs2, slowed to 24 Mbit/s during the read
    section = _section(_page(cast, open_release, run_dir))
    assert "Throughput per storage server" in section
    read_table = section.split("<caption>ior-easy-read", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr( class="slow")?><th scope="row">([^<]+)</th>', read_table)
    shown = {server: bool(slow) for slow, server in rows}
    assert set(shown) == {s for held in layout.values() for s in held}
    assert {server for server, slow in shown.items() if slow} == {slowed}
    assert "ior-easy-read: slow server " + slowed in section
    # only the probed files' phases: ior-easy, each rank's server the one of the file it read
    assert re.findall(r"<caption>([\w-]+):", section) == ["ior-easy-write", "ior-easy-read"]
    read = next(
        p
        for p in json.loads((run_dir / "result.json").read_text())["phases"]
        if p["name"] == "ior-easy-read"
    )
    readers = sum(slowed in layout[str(of)] for of in read["data_ranks"])
    assert f'{slowed}</th><td class="num">{readers}<' in read_table


def test_a_slowed_node_is_named_by_the_straggler_findings(cast: Any, open_release: Any) -> None:
    page = _page(cast, open_release, RECORDED / "io500-slow-node")
    assert _section(page) == ""  # no layout recorded: no per-server section
    table = page.split('id="straggler-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row">([\w-]+)</th><td>([^<]+)</td>', table)
    # the node's link carries its reads (each from another node's data, after a cache drop):
    # those phases name its ranks and the host; metadata phases on a busy machine may vary
    for phase in ("ior-easy-read", "ior-hard-read", "ior-rnd4K-easy-read"):
        named = sorted(who for name, who in rows if name == phase)
        assert named == ["2 (node2)", "3 (node2)", "host node2"], (phase, rows)
