"""Command line: `python -m ingest load PATH... [--label K=V ...] [--db FILE]`.

Also `build` (dbt build under the writer lock), `publish` (validate, then refresh the
dashboard's serving snapshot only if every constraint holds), `locked -- CMD` (any other
writer under the writer lock)
and `reference DIR` (same as `python -m synth reference DIR`); see `warehouse.py` for why
writers queue and the dashboard reads a snapshot. Each command lives in `ingest/commands/`.

Exit status: 0 when nothing was rejected, 1 when some file was rejected (the
others still load), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

import warehouse
from ingest.commands import build, load, reference

DB_HELP = "warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"

_Command = Callable[[argparse.Namespace, Console], int]
COMMANDS: dict[str, _Command] = {
    "load": load.run,
    "reference": reference.run,
    "build": build.build,
    "publish": build.publish,
    "locked": build.locked,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    load_cmd = commands.add_parser("load", help="load tool outputs (files, folders, archives)")
    load_cmd.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    load_cmd.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="run label that overrides run.yaml files (repeatable)",
    )
    load_cmd.add_argument("--db", help=DB_HELP)
    load_cmd.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar, skipped files or plain notes; rejected files, files with no "
        "result and notes that say data was dropped are always shown",
    )

    ref = commands.add_parser(
        "reference",
        help="write the reference dataset (the five source studies) into DIR "
        "(the same as `python -m synth reference DIR`)",
    )
    ref.add_argument("dir", type=Path, metavar="DIR")

    build_cmd = commands.add_parser(
        "build", help="dbt build under the writer lock (then `publish` to serve it)"
    )
    build_cmd.add_argument("--db", help=DB_HELP)
    build_cmd.add_argument("dbt_args", nargs=argparse.REMAINDER, help="extra `dbt build` arguments")
    pub = commands.add_parser(
        "publish", help="validate; publish the serving snapshot only if every constraint holds"
    )
    pub.add_argument("--db", help=DB_HELP)
    locked = commands.add_parser(
        "locked", help="run CMD under the writer lock (it does not publish)"
    )
    locked.add_argument("--db", help=DB_HELP)
    locked.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except (warehouse.WriterBusy, warehouse.WarehouseUnavailable) as exc:
        # Another writer kept the warehouse past the timeout, or the file cannot be opened.
        Console(stderr=True, highlight=False).print(f"[red]error:[/] {escape(str(exc))}")
        return 1


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    # `ingest build --select x` hands options it does not know to dbt.
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "build":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "build":
        args.dbt_args = [*unknown, *args.dbt_args]
    console = Console(stderr=False, highlight=False)
    return COMMANDS[args.command](args, console)


if __name__ == "__main__":
    sys.exit(main())
