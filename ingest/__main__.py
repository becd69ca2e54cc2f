"""Command line: `python -m ingest load PATH... [--label K=V ...] [--warehouse W]`.

Also `build` (dbt build of what changed, under the writer lock), `publish` (validate, then
refresh the dashboard's serving snapshot only if every constraint holds), `locked -- CMD` (any other
writer under the writer lock), `query "SQL"` (read-only ad-hoc SQL), `migrate --to LAKE`
(copy a warehouse file into a DuckLake), `report --testbed T` (a testbed's RA report, HTML
and PDF), `accept --spec FILE` (acceptance rules for CI) and `reference DIR` (same as
`python -m synth reference DIR`); see `warehouse/` for why writers queue and the dashboard
reads a snapshot.
The console script `vsan-perf` is the same command line.

This module parses and dispatches; each command lives with the package whose job it runs:
`load` in `ingest.load_command`, `build`/`locked` in `warehouse.build`, `query` in
`warehouse.query`, `migrate` in `warehouse.migrate`, `publish` in `expectations.gate`,
`report` in `app.report.cli`, `accept` in `ingest.accept`, `reference` in `synth.cli`.

`--warehouse` (or PERF_WAREHOUSE) picks the warehouse: a DuckDB file (the default,
data/warehouse.duckdb) or `ducklake:postgres:<libpq conninfo>` (team mode) with `--data-path`
(or PERF_LAKE_DATA_PATH) for the lake's data files. It is chosen once, here
(`warehouse.from_settings`), and handed to the command; child processes (dbt) get it in their
environment (`Warehouse.child_env`).

Exit status: 0 when nothing was rejected, 1 when some file was rejected (the
others still load), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.markup import escape

import warehouse

DB_HELP = "warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"
WAREHOUSE_HELP = (
    "the warehouse: a DuckDB file, or ducklake:postgres:<conninfo> for team mode "
    "(default: $PERF_WAREHOUSE, else the file of --db)"
)
DATA_PATH_HELP = (
    "team mode: folder or object-store URL of the lake's data files ($PERF_LAKE_DATA_PATH)"
)

WRITER_COMMANDS = {
    "build": "dbt build of what changed since the last build, under the writer lock "
    "(--full: everything; then `publish` to serve it)",
    "publish": "validate; publish the serving snapshot only if every constraint holds",
    "locked": "run CMD under the writer lock (it does not publish)",
}

# Commands that work on the warehouse get it chosen once (`warehouse.from_settings`); the
# others choose what they read themselves (`migrate`: a file into the lake of `--to`). Each is
# "module:function", imported when its command runs: the modules of all commands took 2.9 s to
# import (the report's charts, pandas, polars), most of a small `load`.
_OnWarehouse = Callable[[warehouse.Warehouse, argparse.Namespace, Console], int]
_Standalone = Callable[[argparse.Namespace, Console], int]
ON_WAREHOUSE: dict[str, str] = {
    "load": "ingest.load_command:run",
    "build": "warehouse.build:build",
    "publish": "expectations.gate:publish",
    "locked": "warehouse.build:locked",
    "query": "warehouse.query:run",
    "check": "ingest.check_command:run",
    "report": "app.report.cli:run",
    "accept": "ingest.accept:run",
}
STANDALONE: dict[str, str] = {
    "reference": "synth.cli:reference",
    "migrate": "warehouse.migrate:run",
}


def _command(target: str) -> Callable[..., int]:
    """The function a "module:function" entry of the tables above names."""
    module, function = target.split(":")
    return getattr(importlib.import_module(module), function)


def _module_if(command: str | None, name: str, module: str) -> ModuleType | None:
    """The module that declares command `name`'s own arguments, when `name` is the command
    being parsed; None otherwise (its subparser then only lists it in the top-level help)."""
    return importlib.import_module(module) if command == name else None


def _warehouse_options(cmd: argparse.ArgumentParser, *, db: bool = True) -> None:
    if db:
        cmd.add_argument("--db", help=DB_HELP)
    cmd.add_argument("--warehouse", help=WAREHOUSE_HELP)
    cmd.add_argument("--data-path", dest="data_path", help=DATA_PATH_HELP)


def _add_load_commands(commands: argparse._SubParsersAction) -> None:
    """`load` (tool outputs and own figures) and `reference` (the reference dataset)."""
    load_cmd = commands.add_parser(
        "load",
        help="load tool outputs (files, folders, archives) and own reference figures (a CSV "
        "with the columns of dbt_project/seeds/published_results.csv)",
    )
    load_cmd.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    load_cmd.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="run label that overrides run.yaml files (repeatable)",
    )
    _warehouse_options(load_cmd)
    load_cmd.add_argument(
        "--prune",
        action="store_true",
        help="forget stored files under each PATH (folder or archive) that are no longer there "
        "(a regenerated dataset, a deleted run); without it, rows of vanished files stay",
    )
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


def _add_writer_commands(commands: argparse._SubParsersAction, command: str | None) -> None:
    """The other writers (build, publish, locked): same warehouse options, one line of help
    each; `build` declares its own arguments only when it is the command run."""
    build = _module_if(command, "build", "warehouse.build")
    for name, text in WRITER_COMMANDS.items():
        description = build.BUILD_DESCRIPTION if name == "build" and build else None
        cmd = commands.add_parser(name, help=text, description=description)
        _warehouse_options(cmd)
        if name == "build" and build:
            cmd.add_argument("--full", action="store_true", help=build.FULL_HELP)
            cmd.add_argument(
                "dbt_args", nargs=argparse.REMAINDER, help="extra `dbt build` arguments"
            )
        elif name == "locked":
            cmd.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD")


def _parser(command: str | None) -> argparse.ArgumentParser:
    """The command line; only `command`'s own module is imported to declare its arguments."""
    parser = argparse.ArgumentParser(prog="python -m ingest", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    _add_load_commands(commands)
    _add_writer_commands(commands, command)
    _add_team_commands(commands, command)
    check = commands.add_parser(
        "check",
        help="check the warehouse's data files against its catalog (team mode: a lake's "
        "Parquet files); --repair re-loads what a lost raw file held",
    )
    _warehouse_options(check)
    report_cli = _module_if(command, "report", "app.report.cli")
    rep = commands.add_parser(
        "report",
        help="write a testbed's report (HTML and PDF, CSV of every chart and table) from the "
        "published version",
        description=report_cli.__doc__.split("\n\n", 1)[1] if report_cli else None,
    )
    if report_cli:
        report_cli.add_arguments(rep)
    _warehouse_options(rep)
    accept = _module_if(command, "accept", "ingest.accept")
    acc = commands.add_parser(
        "accept",
        help="check an acceptance spec (YAML rules) against the published version: "
        "exit 0 every rule passes, 1 any fails, 2 spec error",
        description=accept.__doc__.split("\n\n", 1)[1] if accept else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if accept:
        accept.add_arguments(acc)
    _warehouse_options(acc)
    check.add_argument(
        "--repair",
        action="store_true",
        help="without a backup: drop the raw tables that lost files, forget the outputs whose "
        "rows they held and load them again from disk (with the labels they had)",
    )
    return parser


def _add_team_commands(commands: argparse._SubParsersAction, command: str | None) -> None:
    """`query` and `migrate`: the analysts' read and the move into a lake."""
    query_cmd = commands.add_parser(
        "query", help="read-only ad-hoc SQL on the warehouse (the dashboard console's rules)"
    )
    _warehouse_options(query_cmd)
    if command == "query":
        _query_arguments(query_cmd)

    mig = commands.add_parser(
        "migrate",
        help="copy a warehouse file (--db or $PERF_DUCKDB_PATH) into a DuckLake",
        description="Copy every table (raw with its source-file ids, data_quality's history, "
        "dbt's tables) and dbt's views of a warehouse file into an empty DuckLake, in one "
        "transaction; then run `ingest build` and `ingest publish` against the lake.",
    )
    mig.add_argument("--db", help=DB_HELP)
    mig.add_argument(
        "--to",
        required=True,
        metavar="ducklake:postgres:CONNINFO",
        help="the lake (libpq conninfo of its PostgreSQL catalog database)",
    )
    mig.add_argument("--data-path", dest="data_path", help=DATA_PATH_HELP)
    mig.add_argument(
        "--replace",
        action="store_true",
        help="drop what the lake holds first (without it, a lake that is not empty is refused)",
    )


def _query_arguments(query_cmd: argparse.ArgumentParser) -> None:
    """`query`'s own arguments (their limits are the SQL console's)."""
    from warehouse import console as sql_console
    from warehouse import query

    query_cmd.add_argument("sql", metavar="SQL")
    query_cmd.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table (default), csv with a header line, or json: one array of row objects",
    )
    query_cmd.add_argument(
        "--snapshot", type=int, help="team mode: read the lake as of this snapshot id"
    )
    query_cmd.add_argument(
        "--max-rows",
        type=query.positive_int,
        default=query.DEFAULT_MAX_ROWS,
        help="print at most this many rows (default %(default)s; a note says when more exist)",
    )
    query_cmd.add_argument(
        "--timeout",
        type=query.positive_seconds,
        default=sql_console.DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="stop the query after this long (default %(default)g s); the console's other "
        f"limits always hold: {sql_console.LIMITS_TEXT}",
    )


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except (warehouse.WriterBusy, warehouse.WarehouseUnavailable, warehouse.LakeError) as exc:
        # Another writer kept the warehouse past the timeout, or it cannot be opened. The
        # message may quote a catalog setting: never its password.
        message = warehouse.redact_passwords(str(exc))
        Console(stderr=True, highlight=False).print(f"[red]error:[/] {escape(message)}")
        return 1


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # the top-level parser has no option but --help: the first other word names the command
    parser = _parser(next((a for a in argv if not a.startswith("-")), None))
    # `ingest build --select x` hands options it does not know to dbt.
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "build":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "build":
        args.dbt_args = [*unknown, *args.dbt_args]
    console = Console(stderr=False, highlight=False)
    if args.command in STANDALONE:
        standalone: _Standalone = _command(STANDALONE[args.command])
        return standalone(args, console)
    wh = warehouse.from_settings(args.warehouse, db=args.db, data_path=args.data_path)
    on_warehouse: _OnWarehouse = _command(ON_WAREHOUSE[args.command])
    return on_warehouse(wh, args, console)


if __name__ == "__main__":
    sys.exit(main())
