#!/usr/bin/env bash
# Install the Debian packages a profile needs, when they are missing.
#   scripts/system-packages.sh demo   -> MPI, C toolchain, zlib (gzip per-rank files), liburing (the
#                                        io_uring backend, -a IOURING), Python venv support
#   scripts/system-packages.sh test   -> demo + Chromium (browser tests), clang-format (lint),
#                                        docker-compose (compose validation), nginx-light and openssl
#                                        (the compose TLS proxy's config), fio (bench anchor),
#                                        mkfs for ext4/xfs/btrfs (find tests on loop mounts),
#                                        MooseFS, iproute2 and strace (the test bed's pretend cluster),
#                                        MPICH beside Open MPI (the suite tests under both)
# As root it runs apt-get; otherwise it prints the one apt line to run and fails.
set -euo pipefail

profile=${1:-demo}
packages=(openmpi-bin libopenmpi-dev zlib1g-dev liburing-dev pkg-config gcc make python3-venv)
case "$profile" in
  demo) ;;
  test) packages+=(chromium fonts-liberation clang-format docker-compose fio e2fsprogs xfsprogs btrfs-progs
    moosefs-master moosefs-chunkserver moosefs-client iproute2 strace util-linux mpich libmpich-dev
    nginx-light openssl) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "Missing Debian packages. Run this once, then repeat the make command:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
