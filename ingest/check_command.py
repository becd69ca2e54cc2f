"""`python -m ingest check [--repair]`: the warehouse's data files against its catalog.

A lake keeps its rows in Parquet files beside the catalog; a file deleted from the data folder
makes every read of its table fail, and a re-load of the outputs it held answers "already
loaded" (the catalog still lists them). `check` lists the data files the catalog names that
are gone (`Warehouse.missing_files`) and says how to repair: restore them from the backup of
the data folder, nothing else is lost; tables dbt builds are rebuilt by `ingest build`.

`--repair` (raw tables, no backup): the broken raw tables are dropped and re-created empty,
the outputs whose rows they held (every loaded file of a format whose parser writes them) are
forgotten everywhere, in one commit, and loaded again from disk with the labels they were
loaded with (their whole folders are walked, so HCIBench cases are recognised as before). An
output that is no longer on disk is named: its rows are lost. A DuckDB file holds its own
data: nothing to check.

Exit status: 0 nothing missing (or repaired and re-loaded), 1 files are missing (or some
output could not be loaded again), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ingest.load import load_items
from ingest.raw_schema import SOURCE_FILE_ID, ensure_schema, raw_tables
from ingest.registry import PARSERS
from ingest.walk import ARCHIVE_SEP, Member, Refused, Walk
from ingest.without_pandas import pandas_refused
from ingest.writer import RawWriter
from warehouse import Warehouse


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    missing = wh.missing_files()
    checked = wh.data_files_checked()
    if not missing:
        if checked:
            console.print(f"{checked:,} data files checked: none is missing.")
        else:
            console.print(f"{escape(wh.describe())}: no data files apart from the warehouse.")
        return 0
    for m in missing:
        where = f"{m.schema}.{m.table}: {escape(m.path)}"
        console.print(f"[red]missing[/] {m.kind} file of {where}", soft_wrap=True)
    raw = sorted({m.table for m in missing if m.schema == "raw"})
    built = sorted({f"{m.schema}.{m.table}" for m in missing if m.schema != "raw"})
    console.print(
        f"{len(missing)} of {checked:,} data files are missing. Restore them from the backup "
        "of the data folder (same paths): nothing else is lost.",
        soft_wrap=True,
    )
    if not args.repair:
        _say_how(console, raw, built)
        return 1
    status = _repair(wh, raw, console) if raw else 0
    if built:
        console.print(
            f"Tables dbt builds ({', '.join(built)}): `python -m ingest build` rewrites them; "
            "then `python -m ingest publish`.",
            soft_wrap=True,
        )
    return status


def _say_how(console: Console, raw: list[str], built: list[str]) -> None:
    if raw:
        console.print(
            f"Without a backup: `python -m ingest check --repair` drops raw.{', raw.'.join(raw)}, "
            "forgets the outputs whose rows they held and loads them again from disk.",
            soft_wrap=True,
        )
    if built:
        console.print(f"`python -m ingest build` rebuilds {', '.join(built)}.", soft_wrap=True)


def _repair(wh: Warehouse, broken: list[str], console: Console) -> int:
    if "source_files" in broken:
        console.print(
            "[red]error:[/] raw.source_files itself lost a file: which outputs were loaded is "
            "gone. Restore the data folder from its backup, or load your result folders into a "
            "new lake.",
            soft_wrap=True,
        )
        return 1
    forgotten = _forget(wh, broken)
    console.print(
        f"dropped raw.{', raw.'.join(broken)} and forgot the {len(forgotten)} outputs whose rows "
        "they held; loading them again",
        soft_wrap=True,
    )
    return _reload(wh, forgotten, console)


def _formats_writing(tables: list[str]) -> list[str]:
    return sorted(fmt for fmt, module in PARSERS.items() if set(module.TABLES) & set(tables))


@dataclass(frozen=True)
class Forgotten:
    """A forgotten output: what loads it again as it was loaded (its labels, and the PATH
    argument it was found under, so its provenance path stays relative to the same root)."""

    path: str
    labels_json: str
    load_root: str | None  # NULL for files loaded before roots were recorded


def _forget(wh: Warehouse, broken: list[str]) -> list[Forgotten]:
    """Drop the broken raw tables and forget, in one commit, every output of a format that
    writes them (its rows everywhere, its `raw.source_files` row); return them. The tables
    are re-created empty afterwards."""
    writer = RawWriter(wh)
    con = writer.con
    try:
        formats = _formats_writing(broken)
        marks = ", ".join("?" for _ in formats)
        rows = con.execute(
            f"select source_file_id, path, labels_json, load_root from raw.source_files "
            f"where format in ({marks}) order by source_file_id",
            formats,
        ).fetchall()
        ids = [file_id for file_id, *_ in rows]

        def forget() -> None:
            for table in broken:
                con.execute(f"drop table raw.{table}")
            if ids:
                id_marks = ", ".join("?" for _ in ids)
                for table in (t for t in raw_tables() if t not in broken):
                    con.execute(
                        f"delete from raw.{table} where {SOURCE_FILE_ID} in ({id_marks})", ids
                    )
                con.execute(
                    f"delete from raw.source_files where source_file_id in ({id_marks})", ids
                )
            message = f"repair: dropped {len(broken)} tables, forgot {len(ids)} files"
            wh.label_commit(con, "ingest check", message, {"dropped": broken, "forgot": ids})

        wh.commit(con, forget)
        ensure_schema(con, wh)  # the dropped tables, empty again
    finally:
        writer.close()
    return [Forgotten(path, labels, root) for _, path, labels, root in rows]


def _reload(wh: Warehouse, forgotten: list[Forgotten], console: Console) -> int:
    """Load the forgotten outputs again, one load per label set, walking their folders whole
    (siblings tell an HCIBench case) but loading only them, under the PATH arguments they
    were first loaded from (each file's path stays relative to its own root)."""
    by_labels: dict[str, set[str]] = defaultdict(set)
    roots: dict[str, set[str]] = defaultdict(set)
    for output in forgotten:
        by_labels[output.labels_json].add(output.path)
        if output.load_root:
            roots[output.labels_json].add(output.load_root)
    status = 0
    for labels, paths in by_labels.items():
        on_disk = {p for p in paths if Path(p.split(ARCHIVE_SEP, 1)[0]).is_file()}
        for gone in sorted(paths - on_disk):
            console.print(f"[red]lost[/] {escape(gone)}: no longer on disk", soft_wrap=True)
            status = 1
        if not on_disk:
            continue
        folders = sorted({Path(p.split(ARCHIVE_SEP, 1)[0]).parent for p in on_disk})
        walk = Walk(folders)
        with pandas_refused():  # as `ingest load` loads (ingest.without_pandas)
            summary = load_items(
                wh,
                _only(walk, on_disk),
                cli_labels=json.loads(labels),
                known_paths=walk.known_paths,
                roots=sorted(roots[labels]),
            )
        stored = len(summary.stored)
        console.print(f"loaded again: {stored} of {len(on_disk)} outputs", soft_wrap=True)
        if stored < len(on_disk) or summary.lost:
            status = 1
    return status


def _only(walk: Walk, wanted: set[str]) -> Iterator[Member | Refused]:
    return (item for item in walk if item.path in wanted)
