"""A run directory packed for upload, and the digest the service checks it by.

The CLI's ``upload`` and the service's acceptance intake pack the same way, so one directory
gives the same bytes (sorted members, no owners, fixed times) and the same SHA-256 on both."""

from __future__ import annotations

import gzip
import hashlib
import tarfile
from pathlib import Path

from ioscore.results.archive import is_macos_metadata


def pack_directory(source: Path, target: Path) -> None:
    """tar.gz of `source` (sorted, no owners, fixed mtime: same input -> same bytes)."""

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if is_macos_metadata(Path(info.name).name) or not (info.isfile() or info.isdir()):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with (
        open(target, "wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in sorted(source.rglob("*")):
            if path.is_symlink():
                continue
            arcname = str(Path(source.name) / path.relative_to(source))
            tar.add(path, arcname=arcname, recursive=False, filter=clean)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
