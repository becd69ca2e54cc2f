"""`dbt build` over labels at the edges of their definitions (issue 16): a warehouse loaded with
extreme-but-valid labels builds, and rows stored before a rule existed (out of type or range,
size text) read NULL in staging instead of failing the build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main as ingest_main
from tests.conftest import SAMPLES
from tests.dbt.conftest import _dbt_build

pytestmark = pytest.mark.slow

GOOD = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"
EXTREME = (
    "testbed: edge-lab\nnodes: 64\nftt: 3\nftm: RAID-6\nstripe_width: 12\nosr_pct: 100\n"
    "disk_groups: 5\narchitecture: OSA\ntransport: rdma\nworking_set: capacity\n"
    "workload:\n  block_size: 1g\n  outstanding_io: 1048576\n  read_pct: 0\n  random_pct: 100\n"
)
# What the loader accepted before the definitions: each value broke or fooled the build.
OLD_LABELS = {
    "testbed": "old-lab",
    "nodes": 10**23,
    "ftt": -3,
    "stripe_width": 0,
    "transport": "carrier-pigeon",
    "workload": {"block_size": "4kmb", "outstanding_io": -8},
}


def _old_row(db: Path) -> None:
    """A second copy of the loaded file's row, as an older loader stored it."""
    with duckdb.connect(str(db)) as con:
        con.execute(
            "insert into raw.source_files select * replace ("
            "  source_file_id + 1000 as source_file_id, path || '.old' as path, ? as labels_json"
            ") from raw.source_files",
            [json.dumps(OLD_LABELS)],
        )


@pytest.fixture(scope="module")
def edge_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("labels_build")
    folder = work / "edge"
    folder.mkdir()
    shutil.copy(GOOD, folder / "out.json")
    (folder / "run.yaml").write_text(EXTREME, encoding="utf-8")
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(folder), "--db", str(db), "--quiet"]) == 0
    _old_row(db)
    success, failures = _dbt_build(db, work)
    assert success, failures
    return db


def _query(db: Path, sql: str) -> list[tuple]:
    # dbt-duckdb keeps a read-write handle open in this process: open the same way
    with duckdb.connect(str(db)) as con:
        return con.execute(sql).fetchall()


def test_extreme_but_valid_labels_reach_the_marts(edge_warehouse):
    rows = _query(
        edge_warehouse,
        "select testbed, nodes, block_size_bytes, outstanding_io, read_pct, random_pct "
        "from marts.fct_workload_results where testbed = 'edge-lab'",
    )
    assert rows == [("edge-lab", 64, 1073741824, 1048576, 0, 100)]


def test_values_outside_a_definition_read_null_in_staging(edge_warehouse):
    rows = _query(
        edge_warehouse,
        "select testbed, nodes, ftt, stripe_width, transport, label_block_size_bytes, "
        "label_outstanding_io from staging.stg_ingest__source_files where testbed = 'old-lab'",
    )
    assert rows == [("old-lab", None, None, None, None, None, None)]


def test_label_definitions_seed_is_in_the_marts(edge_warehouse):
    rows = _query(
        edge_warehouse,
        "select type, min_value, max_value, unit from marts.label_definitions where key = 'nodes'",
    )
    assert rows == [("int", 1, 64, "hosts")]
