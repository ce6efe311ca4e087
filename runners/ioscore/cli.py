"""`ioscore` command line: validate, run, sysinfo, upload, report, size, testbed, layout
(one module each).

Errors in the input become one clear line on stderr and an exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from ioscore import __version__
from ioscore.commands import layout as layout_command
from ioscore.commands import report as report_command
from ioscore.commands import run as run_command
from ioscore.commands import size as size_command
from ioscore.commands import sysinfo as sysinfo_command
from ioscore.commands import testbed as testbed_command
from ioscore.commands import upload as upload_command
from ioscore.commands import validate as validate_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ioscore", description="ioscore storage benchmark: validate, run, describe, submit"
    )
    parser.add_argument("--version", action="version", version=f"ioscore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (
        validate_command,
        run_command,
        sysinfo_command,
        upload_command,
        report_command,
        size_command,
        testbed_command,
        layout_command,
    ):
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # A command that hands words on to another program (`testbed mpirun ... -- PROGRAM`)
    # takes the words argparse does not know; any other command refuses them.
    args, passed_on = parser.parse_known_args(argv)
    if passed_on:
        if not getattr(args, "passthrough", False):
            parser.error(f"unrecognized arguments: {' '.join(passed_on)}")
        args.words = passed_on
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("ioscore: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
