"""Errors raised by the results library.

Every problem with an input file is reported as a ``ResultFormatError`` that names the file
(and the line, when there is one), so the CLI and the service can show it without a traceback.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ioscore.results.limits import MAX_LINE_CHARS, MAX_TEXT_BYTES, display_path, long_line


class ResultFormatError(Exception):
    """Unreadable, unknown, truncated or wrongly encoded result input."""

    def __init__(self, path: str | Path, message: str, line: int | None = None) -> None:
        self.path = display_path(path)  # file names from an archive need not be UTF-8
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


def read_text(
    path: Path, max_bytes: int = MAX_TEXT_BYTES, max_line: int | None = MAX_LINE_CHARS
) -> str:
    """Read a result file as strict UTF-8 text, naming the file and line of any problem.

    Files above `max_bytes` and lines above `max_line` characters are refused before any
    parsing (see ioscore.results.limits).
    """
    return decode_text(path, read_bytes(path, max_bytes), max_line)


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; larger files than `max_bytes` and unreadable ones are refused."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ResultFormatError(path, f"file too large ({size} bytes, limit {max_bytes})")
        return path.read_bytes()
    except ResultFormatError:
        raise
    except OSError as exc:
        raise ResultFormatError(path, f"cannot read file: {exc.strerror or exc}") from None


@contextmanager
def mapped(path: Path, max_bytes: int) -> Iterator[Any]:
    """The file's bytes as a read-only map, refused as ``read_bytes`` refuses them.

    Mapped, not read: a read copies the file into the process's own memory (~300 MB for a
    100,000-rank result.json, on top of what is decoded from it); mapped pages belong to the
    page cache, count against no data limit, and ``release`` drops them from the process's
    resident set. A file that cannot be mapped (empty, not a regular file) is read. A file
    truncated while mapped would end the process (SIGBUS): the suite replaces result.json
    by a rename (the map keeps the old file), the service reads its own extracted copy.
    """
    data = None
    try:
        with path.open("rb") as handle:
            facts = os.fstat(handle.fileno())
            if facts.st_size > max_bytes:
                raise ResultFormatError(
                    path, f"file too large ({facts.st_size} bytes, limit {max_bytes})"
                )
            if facts.st_size and stat.S_ISREG(facts.st_mode):
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        data = None  # read_bytes names the problem
    if data is None:
        yield read_bytes(path, max_bytes)
        return
    try:
        yield data
    finally:
        # Views still held (an error's frames): the map goes with the last of them.
        with contextlib.suppress(BufferError):
            data.close()


def release(data: Any) -> None:
    """Drop the pages of a ``mapped`` file read so far from the resident set: they stay in
    the page cache and are read from there again only when touched again."""
    if isinstance(data, mmap.mmap) and not data.closed and hasattr(mmap, "MADV_DONTNEED"):
        data.madvise(mmap.MADV_DONTNEED)


def decode_text(path: Path, data: bytes, max_line: int | None = MAX_LINE_CHARS) -> str:
    """`data` (read from `path`) as strict UTF-8 text, as ``read_text`` checks it."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ResultFormatError(path, "binary data (NUL byte), not a text result file", line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        raise ResultFormatError(
            path, f"not UTF-8 text (byte 0x{bad} at column {column})", line
        ) from None
    if max_line is not None:
        number = long_line(text, max_line)
        if number is not None:
            raise ResultFormatError(path, f"line longer than {max_line} characters", number)
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is harmless; editors on Windows add it
    return text
