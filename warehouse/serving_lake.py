"""Team mode's publish gate and serving status: which lake snapshot the dashboard serves, why.

The file mode copies a validated file onto a serving snapshot (`warehouse.publish`) and keeps
the latest validation run in a side file. A lake needs neither: every commit is a snapshot, so
publishing is one row in `serving.publications` (`warehouse.lake.record_publication`) naming
the snapshot to serve, and the validation history is the lake's own
`data_quality.validation_results` table.

Labelled commits
    The expectations' results and the publication rows are commits of their own, labelled with
    `set_commit_message` (author `expectations` / `publish`, JSON in `commit_extra_info`). They
    change no data, so `status()` leaves them out when it asks "did the data change since the
    served snapshot?"; every other commit (a load, a `dbt build`, an analyst's write) counts.

Which snapshot is served
    `python -m ingest publish` validates snapshot S (read as of S: a load committing meanwhile
    does not change what is validated), appends the results (snapshot S1) and serves S1, so the
    dashboard's data-quality page shows the run that let the version through. A commit that
    landed between S and S1 would make S1 hold data nobody validated; then S itself is served
    (its results are in the history, just not in the served version).

`status()` returns the file mode's `ServingStatus` with snapshot times in place of file
times, so the dashboard's notices ("newer data awaits publishing", "a newer version failed
validation") read the same in both modes.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import socket
from collections.abc import Callable
from typing import Any

import duckdb

from warehouse import ServingStatus, ValidationReport, lake

VALIDATION_AUTHOR = "expectations"
PUBLISH_AUTHOR = "publish"
_LABELLED = (VALIDATION_AUTHOR, PUBLISH_AUTHOR)  # commits that change no data
_SNAPSHOTS = f"{lake.LAKE_ALIAS}.snapshots()"


# --- labelled commits --------------------------------------------------------------------


def label_commit(
    con: duckdb.DuckDBPyConnection, author: str, message: str, extra: dict[str, Any]
) -> None:
    """Label the snapshot the open transaction will create (call inside the transaction)."""
    con.execute(
        f"call {lake.LAKE_ALIAS}.set_commit_message(?, ?, extra_info => ?)",
        [author, message, json.dumps(extra, default=str)],
    )


def commit_labelled(
    con: duckdb.DuckDBPyConnection,
    label: tuple[str, str, dict[str, Any]],
    write: Callable[[duckdb.DuckDBPyConnection], None],
) -> int:
    """Run `write(con)` in one labelled commit, re-run whole on a commit conflict; return the
    snapshot id the commit created."""

    def work() -> int:
        lake.in_transaction(con, lambda: (label_commit(con, *label), write(con)))
        (snapshot,) = con.execute(
            f"select id from {lake.LAKE_ALIAS}.last_committed_snapshot()"
        ).fetchone()
        return int(snapshot)

    return lake.run_with_retry(work)


def publisher() -> str:
    """`user@host, pid N`: who published (serving.publications.published_by)."""
    return f"{getpass.getuser()}@{socket.gethostname()}, pid {os.getpid()}"


# --- publish -----------------------------------------------------------------------------


def foreign_commits_between(con: duckdb.DuckDBPyConnection, after: int, before: int) -> int:
    """How many snapshots strictly between `after` and `before`: commits of other writers
    that a snapshot `before` holds beside what was validated at `after`."""
    (count,) = con.execute(
        f"select count(*) from {_SNAPSHOTS} where snapshot_id > ? and snapshot_id < ?",
        [after, before],
    ).fetchone()
    return int(count)


def publish(tgt: lake.Target, validated: int, results: int | None, by: str) -> int:
    """Serve the validation results' snapshot `results` (or `validated` itself, see the module
    docstring) and record the publication; return the snapshot now served.

    Only the publish gate calls this, under BUILD_LOCK, once every constraint held."""
    con = lake.connect(tgt)
    try:
        served = validated
        if results is not None and foreign_commits_between(con, validated, results) == 0:
            served = results
        extra = {"snapshot_id": served, "validated_snapshot_id": validated}
        label = (PUBLISH_AUTHOR, f"publish snapshot {served}", extra)
        # The table's DDL in the same labelled commit: the first publish changes no data.
        commit_labelled(con, label, lambda c: lake.record_publication(c, served, validated, by))
        return served
    finally:
        con.close()


# --- what the dashboard serves, and why ----------------------------------------------------


def _ns(when: dt.datetime | None) -> int | None:
    if when is None:
        return None
    return int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000


def _snapshot_time(con: duckdb.DuckDBPyConnection, snapshot: int | None) -> int | None:
    if snapshot is None:
        return None
    row = con.execute(
        f"select snapshot_time from {_SNAPSHOTS} where snapshot_id = ?", [snapshot]
    ).fetchone()
    return None if row is None else _ns(row[0])


def _latest_data_change(con: duckdb.DuckDBPyConnection) -> tuple[int, dt.datetime]:
    """The newest snapshot that is not a labelled (data-free) commit of ours."""
    return con.execute(
        f"select snapshot_id, snapshot_time from {_SNAPSHOTS} "
        "where coalesce(author, '') not in (?, ?) order by snapshot_id desc limit 1",
        list(_LABELLED),
    ).fetchone()


def latest_validation(con: duckdb.DuckDBPyConnection) -> ValidationReport | None:
    """The newest validation run in the lake's history, passed or failed; None before any."""
    row = con.execute(
        f"select commit_extra_info from {_SNAPSHOTS} where author = ? "
        "order by snapshot_id desc limit 1",
        [VALIDATION_AUTHOR],
    ).fetchone()
    if row is None:
        return None
    info = json.loads(row[0])
    run_at = dt.datetime.fromisoformat(info["run_at"])
    cursor = con.execute(
        "select * exclude (run_at) from data_quality.validation_results where run_at = ?",
        [run_at],
    )
    names = [d[0] for d in cursor.description]
    outcomes = tuple(dict(zip(names, r, strict=True)) for r in cursor.fetchall())
    validated_ns = _snapshot_time(con, int(info["validated_snapshot"]))
    return ValidationReport(run_at=run_at, validated_ns=validated_ns, outcomes=outcomes)


def status(tgt: lake.Target, con: duckdb.DuckDBPyConnection | None = None) -> ServingStatus:
    """The served snapshot against the newest data in the lake: a few catalog queries.

    `con`: a connection to the lake's newest snapshot (not one attached as of a snapshot) to
    reuse, e.g. the dashboard's kept one: opening one (ATTACH) is most of the cost. `snapshot`
    is None before the first publish; `main_changed_ns` is the time of the newest data commit;
    `pending` says some data commit is newer than the served snapshot."""
    own = con is None
    con = lake.connect(tgt, read_only=True) if con is None else con
    try:
        served = lake.published_snapshot(con)
        changed_id, changed_at = _latest_data_change(con)
        return ServingStatus(
            main=tgt.describe(),
            snapshot=None if served is None else f"snapshot {served}",
            snapshot_as_of_ns=_snapshot_time(con, served),
            main_changed_ns=_ns(changed_at),
            pending=served is not None and changed_id > served,
            validation=latest_validation(con),
        )
    finally:
        if own:
            con.close()
