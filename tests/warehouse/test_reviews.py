"""The file-mode review store (warehouse/reviews.py): decisions kept one JSON line each beside
the warehouse, read back whole, the latest per change counting; a damaged line is named."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from warehouse import reviews
from warehouse.file import FileWarehouse

CHANGE = reviews.ChangeIdentity("3db56e92", "iops", "fa82b170")
OTHER = reviews.ChangeIdentity("3db56e92", "throughput_mb_s", "fa82b170")


def _store(tmp_path: Path) -> reviews.ReviewStore:
    return reviews.store_for(FileWarehouse(tmp_path / "warehouse.duckdb"))


def test_the_store_lives_beside_the_warehouse_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(reviews.decision(CHANGE, "confirmed", " ana ", "  seen it twice "))
    assert (tmp_path / "warehouse.reviews.jsonl").is_file()
    (kept,) = store.decisions()
    assert (kept.change, kept.review_state, kept.reviewed_by, kept.review_note) == (
        CHANGE, "confirmed", "ana", "seen it twice"
    )  # fmt: skip
    assert kept.reviewed_at.tzinfo is not None


def test_the_latest_decision_of_each_change_counts_and_the_history_stays(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(reviews.decision(CHANGE, "confirmed"))
    store.record(reviews.decision(OTHER, "dismissed", note=""))
    store.record(reviews.decision(CHANGE, "dismissed", "bo"))
    assert len(store.decisions()) == 3
    latest = reviews.latest(store.decisions())
    assert {c: d.review_state for c, d in latest.items()} == {
        CHANGE: "dismissed",
        OTHER: "dismissed",
    }
    assert latest[CHANGE].reviewed_by == "bo" and latest[OTHER].review_note is None


def test_an_unknown_state_is_refused() -> None:
    with pytest.raises(reviews.ReviewError, match="'accepted' is not one of"):
        reviews.decision(CHANGE, "accepted")


def test_a_damaged_line_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(reviews.decision(CHANGE, "confirmed"))
    path = tmp_path / "warehouse.reviews.jsonl"
    with path.open("a", encoding="utf-8") as out:
        out.write('{"series_key": "x"}\n')
    with pytest.raises(reviews.ReviewError, match=rf"{path}, line 2: not a review decision"):
        store.decisions()


# One writer: a fresh interpreter (not multiprocessing, whose spawn re-runs whatever __main__
# an earlier test left behind), recording `count` decisions as user `who`.
WRITER = """
import sys
from pathlib import Path
from tests.conftest import REPO
from warehouse import reviews
from warehouse.file import FileWarehouse
folder, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = reviews.store_for(FileWarehouse(Path(folder) / "warehouse.duckdb"))
change = reviews.ChangeIdentity("3db56e92", "iops", "fa82b170")
for i in range(count):
    store.record(reviews.decision(change, "confirmed", who, f"note {i}"))
"""


def test_writers_in_several_processes_never_interleave_their_lines(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"user{n}", "50"], cwd=REPO)
        for n in range(3)
    ]
    assert [w.wait(60) for w in writers] == [0, 0, 0]
    kept = _store(tmp_path).decisions()
    assert sorted((d.reviewed_by, d.review_note) for d in kept) == sorted(
        (f"user{n}", f"note {i}") for n in range(3) for i in range(50)
    )
    assert all(isinstance(d.reviewed_at, dt.datetime) for d in kept)


def test_a_build_refuses_a_damaged_store_and_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ingest.__main__ import main as ingest_main

    db = tmp_path / "warehouse.duckdb"
    (tmp_path / "warehouse.reviews.jsonl").write_text("not json\n", encoding="utf-8")
    assert ingest_main(["build", "--db", str(db)]) == 1
    assert not db.exists()  # nothing was written, not even the landing
    said = "".join((capsys.readouterr().out).split())  # rich wraps long paths
    assert "warehouse.reviews.jsonl,line1:notareviewdecision" in said
