"""A pretend cluster on one machine: client nodes, a distributed file system, MPI across them.

Each client node is a network + UTS + mount namespace with its own host name and its own FUSE
mount of one MooseFS file system at the same path, so page caches are per node as on a cluster;
a metadata server and chunk servers sit in namespaces of their own; everything is on one bridge
in an address range of the test bed's own. `ioscore testbed` drives it (commands/testbed.py).

Rooms: `layout` (names, addresses, paths: what the bed *is*), `system` (running commands, in the
root namespace or inside a member), `network` (bridge, links, shaping), `moosefs` (servers,
mounts), `launch` (mpirun across the nodes), `lifecycle` (up, down, status, fault injection).
"""
