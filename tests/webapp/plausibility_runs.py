"""A real IO500 archive run stored with a system description whose client network is too slow
for its reads: the input of the plausibility page tests (view and browser)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .helpers import example_system
from .portal_runs import store_run

SC25_RUN = "762/results/2025.10.21-12.48.03"  # ior-easy-read 36.8 GiB/s, ior-easy-write 35.0


def slow_client_network() -> dict[str, Any]:
    """The schema's example with 2 client nodes of one 100 Gbit/s link each, declared as
    200 Gbit/s for the run: 2 x 100 Gbit/s = 25 GB/s = 23.3 GiB/s for the clients; the
    servers keep the example's declared 3200 Gbit/s = 400 GB/s."""
    data = example_system(client_nodes=2, client_network_bandwidth={"value": 200, "unit": "Gbit/s"})
    data["client_node_groups"][0]["interconnects"][0]["speed"] = {"value": 100, "unit": "Gbit/s"}
    return data


def store_beyond_network(corpus_dir: Path, owner: Any, site: Any, release: Any, status: str) -> Any:
    """The SC25 archive run as a submission described by ``slow_client_network``."""
    submission = store_run(
        corpus_dir / "io500-submissions" / "dev" / SC25_RUN, owner, site, release, status
    )
    description = submission.system_description
    description.data = slow_client_network()
    description.save(update_fields=["data"])
    return submission
