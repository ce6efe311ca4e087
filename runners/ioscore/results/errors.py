"""Errors raised by the results library.

Every problem with an input file is reported as a ``ResultFormatError`` that names the file
(and the line, when there is one), so the CLI and the service can show it without a traceback.
"""

from __future__ import annotations

from pathlib import Path

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
