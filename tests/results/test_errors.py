"""Bad input gives a ResultFormatError naming the file and line, never another exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscore.results import ResultFormatError, find_runs, load_run

from .conftest import BASH_RUN, SC25_RUN, edit


def _error(run_dir: Path) -> ResultFormatError:
    with pytest.raises(ResultFormatError) as info:
        load_run(run_dir)
    return info.value


def test_truncated_summary_names_file_and_last_line(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    summary = run_dir / "result_summary.txt"
    lines = summary.read_text(encoding="utf-8").splitlines(keepends=True)
    summary.write_text("".join(lines[:7]), encoding="utf-8")  # the run died mid-way
    error = _error(run_dir)
    assert error.path == str(summary)
    assert "truncated" in error.reason
    assert str(summary) in str(error)


def test_line_cut_in_the_middle(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    summary = run_dir / "result_summary.txt"
    text = summary.read_text(encoding="utf-8")
    summary.write_text(text[: text.index("mdtest-hard-write") + 30], encoding="utf-8")
    error = _error(run_dir)
    assert error.line == 6  # version, 4 phases and timestamp come before it
    assert "unrecognised line" in error.reason


def test_wrong_encoding_names_line_and_column(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    result_txt = run_dir / "result.txt"
    data = result_txt.read_bytes().replace(
        b"./results/2025", "./r\xe9sults/2025".encode("latin-1"), 1
    )
    result_txt.write_bytes(data)
    error = _error(run_dir)
    assert error.path == str(result_txt)
    assert error.line == 5  # the result-dir line
    assert "not UTF-8" in error.reason and "0xe9" in error.reason


def test_binary_file(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(BASH_RUN)
    (run_dir / "result_summary.txt").write_bytes(b"\x00\x05\x16\x07Mac OS X        \x00\x02")
    error = _error(run_dir)
    assert "binary" in error.reason and error.line == 1


def test_unknown_format(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(BASH_RUN)
    (run_dir / "result_summary.txt").write_text("hello world\n", encoding="utf-8")
    error = _error(run_dir)
    assert "unknown format" in error.reason and error.line == 1


def test_empty_file(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(BASH_RUN)
    (run_dir / "result_summary.txt").write_text("\n\n", encoding="utf-8")
    assert "empty" in _error(run_dir).reason


def test_bad_number_names_the_phase(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    edit(run_dir / "result_summary.txt", "34.950286 GiB/s", "34.95O286 GiB/s")
    error = _error(run_dir)
    assert error.line == 2 and "ior-easy-write" in error.reason


def test_truncated_result_txt(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    result_txt = run_dir / "result.txt"
    text = result_txt.read_text(encoding="utf-8")
    result_txt.write_text(text[: text.index("[SCORE]")], encoding="utf-8")
    error = _error(run_dir)
    assert error.path == str(result_txt) and "no [SCORE] section" in error.reason


def test_broken_config_ini(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    edit(run_dir / "config.ini", "stonewall-time = 300", "stonewall-time 300")
    error = _error(run_dir)
    assert error.path.endswith("config.ini") and error.line == 15


def test_unreadable_file(copy_run) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(SC25_RUN)
    (run_dir / "result.txt").unlink()
    (run_dir / "result.txt").mkdir()  # a directory where a file should be
    error = _error(run_dir)
    assert error.path.endswith("result.txt") and "not a regular file" in error.reason


def test_directory_without_results(tmp_path: Path) -> None:
    assert find_runs(tmp_path) == []
    error = _error(tmp_path)
    assert "no result_summary.txt" in error.reason


def test_find_runs_skips_macos_metadata(copy_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run_dir = copy_run(BASH_RUN)
    (run_dir / "._result_summary.txt").write_bytes(b"\x00\x05\x16\x07")
    macosx = tmp_path / "__MACOSX" / "x"
    macosx.mkdir(parents=True)
    (macosx / "result_summary.txt").write_bytes(b"\x00\x05\x16\x07")
    assert find_runs(tmp_path) == [run_dir]
    assert load_run(run_dir).format == "bash"


@pytest.mark.parametrize("name", ["result_summary.txt", "result.txt", "config.ini"])
def test_damaged_files_never_raise_anything_else(copy_run, name: str) -> None:  # type: ignore[no-untyped-def]
    """Cut and corrupt real files at many places: parse or ResultFormatError, nothing else."""
    import random

    run_dir = copy_run(SC25_RUN)
    target = run_dir / name
    original = target.read_bytes()
    rng = random.Random(f"ioscore-{name}")  # deterministic
    errors = 0
    for _ in range(150):
        data = bytearray(original)
        cut = rng.randrange(len(data))
        if rng.random() < 0.5:
            data = data[:cut]
        else:
            data[cut] = rng.choice(b"\x00\xff=[]:;# \nx9.-")
        target.write_bytes(bytes(data))
        try:
            load_run(run_dir)
        except ResultFormatError as exc:
            assert exc.path.startswith(str(run_dir)), exc
            errors += 1
    assert errors > 0  # the damage was noticed at least sometimes
