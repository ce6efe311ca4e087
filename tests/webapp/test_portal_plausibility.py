"""The run pages compare a real archive run with its declared hardware: a warning with the
arithmetic for the committee, the same arithmetic as a note for the public."""

from __future__ import annotations

import html
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from django.test import Client

from submissions.models import Status

from .plausibility_runs import store_beyond_network


def _released(release: Any) -> Any:
    """The release past its embargo, so its accepted runs are public."""
    release.release_date = date.today() - timedelta(days=1)
    release.save(update_fields=["release_date"])
    return release


def _page(user: Any, url: str) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _section(page: str) -> str:
    assert 'id="plausibility"' in page
    section = page.split('id="plausibility"', 1)[1].split("</section>", 1)[0]
    return html.unescape(section).replace("\N{NO-BREAK SPACE}", " ")


def _findings(section: str, kind: str) -> dict[str, str]:
    found = re.findall(
        rf'<li class="sev-\w+" data-plausibility="{kind}" data-phase="([\w-]+)">(.*?)</li>',
        section,
        re.S,
    )
    return {phase: " ".join(text.split()) for phase, text in found}


def test_the_committee_is_warned_and_the_public_reads_a_note(
    cast: Any, open_release: Any, corpus_dir: Path
) -> None:
    submission = store_beyond_network(
        corpus_dir, cast.submitter, cast.site, _released(open_release), Status.ACCEPTED
    )
    public = _section(_page(None, f"/results/{submission.pk}/"))
    # the ceilings, each with how it follows from the description
    assert "2 client nodes x (1 x 100 Gbit/s), as declared for the run's client nodes" in public
    assert "25.0 GB/s = 23.3 GiB/s" in public
    assert "declared for the storage servers: 3,200 Gbit/s" in public
    assert _findings(public, "warning") == {}
    notes = _findings(public, "note")
    # both easy phases (36.8 and 35.0 GiB/s) beyond 23.3 GiB/s; the hard ones (0.6, 4.9) not
    assert set(notes) == {"ior-easy-read", "ior-easy-write"}
    assert (
        "ior-easy-read moved 39.5 GB/s = 36.8 GiB/s, 1.58 times what the client network can "
        "carry: 2 client nodes x (1 x 100 Gbit/s), as declared for the run's client nodes "
        "(200 Gbit/s) = 25.0 GB/s = 23.3 GiB/s"
    ) in notes["ior-easy-read"]
    assert "server network" not in " ".join(notes.values())  # 400 GB/s is enough

    for user, url in (
        (cast.reviewer, f"/submissions/{submission.pk}/"),
        (cast.reviewer, f"/review/{submission.pk}/"),
    ):
        section = _section(_page(user, url))
        warnings = _findings(section, "warning")
        assert set(warnings) == {"ior-easy-read", "ior-easy-write"}, url
        assert "Needs a reviewer's look" in warnings["ior-easy-read"]
        assert "1.58 times what the client network can carry" in warnings["ior-easy-read"]
        assert _findings(section, "note") == {}  # an archive run has no per-rank bytes
    # the submitter (not a reviewer) reads notes on their own page, as the public does
    own = _section(_page(cast.submitter, f"/submissions/{submission.pk}/"))
    assert set(_findings(own, "note")) == {"ior-easy-read", "ior-easy-write"}
    assert _findings(own, "warning") == {}


def test_enough_hardware_says_so_and_a_broken_description_says_nothing(
    cast: Any, open_release: Any, corpus_dir: Path
) -> None:
    submission = store_beyond_network(
        corpus_dir, cast.submitter, cast.site, _released(open_release), Status.ACCEPTED
    )
    description = submission.system_description
    description.data["client_node_groups"][0]["interconnects"][0]["speed"]["value"] = 400
    description.data["run"]["client_network_bandwidth"]["value"] = 800
    description.save(update_fields=["data"])
    section = _section(_page(cast.reviewer, f"/submissions/{submission.pk}/"))
    assert "2 client nodes x (1 x 400 Gbit/s), as declared" in section
    assert 'id="plausibility-ok"' in section
    assert _findings(section, "warning") == _findings(section, "note") == {}
    # without bandwidth phases (a list-only entry) there is nothing to compare
    bandwidth = submission.phases.filter(unit="GiB/s")
    kept = list(bandwidth.values_list("name", "value"))
    bandwidth.update(value=0)
    assert 'id="plausibility"' not in _page(cast.reviewer, f"/submissions/{submission.pk}/")
    for name, value in kept:
        submission.phases.filter(name=name).update(value=value)
    assert 'id="plausibility"' in _page(cast.reviewer, f"/submissions/{submission.pk}/")
    # a description the schema refuses gives no arithmetic at all (validation refused it too)
    description.data["run"]["client_nodes"] = "two"
    description.save(update_fields=["data"])
    assert 'id="plausibility"' not in _page(None, f"/results/{submission.pk}/")
