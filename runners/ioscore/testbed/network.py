"""The bed's network: a bridge, one namespace set and one veth per member, link shaping.

The bridge has an address of the bed's range in the root namespace: mpirun runs there and its
daemons on the nodes connect back to it. A slowed member has a token-bucket filter on both ends
of its veth, so traffic into and out of it is slowed alike (a link at a lower speed, the Cray
paper's "one IB link at SDR speed").
"""

from __future__ import annotations

import re

from ioscore.testbed.layout import BRIDGE, NETNS_PREFIX, RUN_DIR, SUBNET, Member
from ioscore.testbed.system import TestbedError, run, run_in


def make_bridge(address: str) -> None:
    run(["ip", "link", "add", BRIDGE, "type", "bridge"])
    run(["ip", "addr", "add", f"{address}/{SUBNET.prefixlen}", "dev", BRIDGE])
    run(["ip", "link", "set", BRIDGE, "up"])


def make_member(member: Member) -> None:
    """Pinned network, mount and UTS namespaces with the member's host name, wired to the bridge."""
    member.net_ns.parent.mkdir(parents=True, exist_ok=True)
    member.mount_ns.parent.mkdir(parents=True, exist_ok=True)
    for pin in (member.net_ns, member.mount_ns, member.uts_ns):
        pin.touch()
    run(
        [
            "unshare",
            f"--net={member.net_ns}",
            f"--mount={member.mount_ns}",
            f"--uts={member.uts_ns}",
            "--propagation",
            "private",
            "hostname",
            member.name,
        ]
    )
    peer = ["peer", "name", "eth0", "netns", member.netns]
    run(["ip", "link", "add", member.host_link, "type", "veth", *peer])
    run(["ip", "link", "set", member.host_link, "master", BRIDGE, "up"])
    run_in(member, ["ip", "addr", "add", f"{member.address}/{SUBNET.prefixlen}", "dev", "eth0"])
    run_in(member, ["ip", "link", "set", "eth0", "up"])
    run_in(member, ["ip", "link", "set", "lo", "up"])


_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z/]*)\s*$")
_RATE_UNITS = {  # bits per second per unit
    "bit": 1,
    "kbit": 1e3,
    "mbit": 1e6,
    "gbit": 1e9,
    "b/s": 8,
    "kb/s": 8e3,
    "mb/s": 8e6,
    "gb/s": 8e9,
    "kib/s": 8 * 2**10,
    "mib/s": 8 * 2**20,
    "gib/s": 8 * 2**30,
}


def parse_rate(text: str) -> int:
    """'100mbit', '1gbit', '50MB/s', '200MiB/s' -> bits per second."""
    match = _RATE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _RATE_UNITS:
        units = ", ".join(sorted(_RATE_UNITS))
        raise TestbedError(f"rate {text!r}: give a number and one of {units} (e.g. 100mbit)")
    bits = float(match.group(1)) * _RATE_UNITS[unit]
    if bits < 8_000:
        raise TestbedError(f"rate {text!r} is below 1 kB/s: the link would stall")
    return int(bits)


def shape(member: Member, bits_per_s: int) -> None:
    """Both directions of the member's link at most `bits_per_s`."""
    # A burst of 10 ms at the rate (at least 16 KiB) keeps TCP flowing without hiding the limit.
    burst = max(16 * 1024, bits_per_s // 8 // 100)
    tbf = ["tbf", "rate", f"{bits_per_s}bit", "burst", str(burst), "latency", "100ms"]
    run(["tc", "qdisc", "replace", "dev", member.host_link, "root", *tbf])
    run_in(member, ["tc", "qdisc", "replace", "dev", "eth0", "root", *tbf])


def unshape(member: Member) -> None:
    run(["tc", "qdisc", "del", "dev", member.host_link, "root"], check=False)
    run_in(member, ["tc", "qdisc", "del", "dev", "eth0", "root"], check=False)


def link_rate(member: Member) -> int | None:
    """The member's shaped rate in bits per second, or None when its link is not slowed."""
    shown = run(["tc", "-j", "qdisc", "show", "dev", member.host_link], check=False)
    match = re.search(r'"kind":"tbf".*?"rate":(\d+)', shown)
    return int(match.group(1)) * 8 if match else None  # tc -j prints bytes per second


def teardown() -> list[str]:
    """Remove every namespace, link and pin of a bed found by its names; what was removed."""
    removed: list[str] = []
    for name in run(["ip", "netns", "list"], check=False).split():
        if name.startswith(NETNS_PREFIX):
            run(["ip", "netns", "del", name], check=False)
            removed.append(f"netns {name}")
    links = run(["ip", "-o", "link", "show"], check=False)
    for name in re.findall(r"^\d+: (ibv-[^:@]+)", links, re.M):
        run(["ip", "link", "del", name], check=False)
        removed.append(f"link {name}")
    if re.search(rf"^\d+: {BRIDGE}[:@]", links, re.M):
        run(["ip", "link", "del", BRIDGE], check=False)
        removed.append(f"bridge {BRIDGE}")
    ns_dir = RUN_DIR / "ns"
    if ns_dir.is_dir():
        for pin in ns_dir.iterdir():
            run(["umount", str(pin)], check=False)
            pin.unlink(missing_ok=True)
    return removed
