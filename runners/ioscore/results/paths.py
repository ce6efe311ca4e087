"""`load_path`: every run below a directory or inside an archive, for the CLI."""

from __future__ import annotations

from pathlib import Path

from ioscore.results.archive import ArchiveLimits, unpacked
from ioscore.results.errors import ResultFormatError
from ioscore.results.loader import find_runs, load_run
from ioscore.results.model import RunResult


def _display(path: str, root: Path, shown_as: Path) -> str:
    try:
        return str(shown_as / Path(path).relative_to(root))
    except ValueError:
        return path


def load_path(path: Path, limits: ArchiveLimits | None = None) -> list[RunResult]:
    """Load every run in a directory or archive (.tar.gz/.tgz/.tar/.zip).

    Archives are extracted safely into a temporary directory that is removed afterwards;
    file names in the results and in errors are shown relative to the archive.
    """
    path = Path(path)
    with unpacked(path, limits) as root:
        try:
            run_dirs = find_runs(root)
        except ResultFormatError as exc:
            raise ResultFormatError(path, exc.reason) from None
        if not run_dirs:
            raise ResultFormatError(path, "no run found (no result_summary.txt or result.json)")
        runs = []
        for run_dir in run_dirs:
            try:
                run = load_run(run_dir)
            except ResultFormatError as exc:
                raise ResultFormatError(
                    _display(exc.path, root, path), exc.reason, exc.line
                ) from None
            if root != path:
                run.source = _display(run.source, root, path)
                run.files = [_display(f, root, path) for f in run.files]
                run.config_files = [_display(f, root, path) for f in run.config_files]
                run.run_dir = _display(run.run_dir or str(run_dir), root, path)
            runs.append(run)
        return runs
