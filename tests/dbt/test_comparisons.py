"""Comparisons that cannot lie (issue 17): config_deltas pairs results of one testbed that
differ in exactly one comparison dimension, counting every label, on real fio 3.33 output.

Every result is a copy of one real fio JSON file (`generated-locally`, one randrw job at
iodepth 1) in a labelled folder; the copies of one VM-count folder differ only by trailing
newlines (so they are distinct files to the loader, the same fio report to the parser)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest
import yaml

from ingest.__main__ import main as ingest_main
from tests.conftest import SAMPLES
from tests.dbt.conftest import _dbt_build

pytestmark = pytest.mark.slow

FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"
TESTBED = {"testbed": "cmp-lab", "nodes": 3}
# folder -> run labels (on top of TESTBED)
SINGLE_RESULTS = {
    # a and b differ in a free-form label AND a typed one; c differs from a in `network`
    # alone and from b in `stripe_width` alone
    "a_net10_sw1": {"network": "10g", "stripe_width": 1},
    "b_net25_sw2": {"network": "25g", "stripe_width": 2},
    "c_net25_sw1": {"network": "25g", "stripe_width": 1},
    # working_set and working_set_gb name one thing: one dimension
    "d_ws_cache": {"working_set": "cache", "working_set_gb": 100},
    "e_ws_capacity": {"working_set": "capacity", "working_set_gb": 400},
    # a profile and the policy labels it sets: one dimension
    "f_performance": {
        "profile": "performance",
        "profile_order": ["performance", "density"],
        "ftm": "RAID-1",
        "dedupe": False,
    },
    "g_density": {
        "profile": "density",
        "profile_order": ["performance", "density"],
        "ftm": "RAID-5",
        "dedupe": True,
    },
}
# folder -> VM count: one output per VM, aggregated per folder (3 hosts: 10 and 15 per host)
VM_RESULTS = {"h_30vms": 30, "i_45vms": 45}


def _write_folder(root: Path, name: str, labels: dict, copies: int, first: int = 0) -> None:
    """`copies` outputs, told apart by `first + i` trailing newlines: the same bytes under the
    same labels elsewhere would be loaded once (CONTRACT.md section 2)."""
    folder = root / name
    folder.mkdir()
    (folder / "run.yaml").write_text(yaml.safe_dump({**TESTBED, **labels}), encoding="utf-8")
    report = FIO_OUTPUT.read_bytes()
    for index in range(copies):
        (folder / f"vm{index:02d}.json").write_bytes(report + b"\n" * (first + index))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("comparisons")
    root = work / "runs"
    root.mkdir()
    for name, labels in SINGLE_RESULTS.items():
        _write_folder(root, name, labels, copies=1)
    first = 0
    for name, vms in VM_RESULTS.items():
        _write_folder(root, name, {"result_per": "folder"}, copies=vms, first=first)
        first += vms
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(root), "--db", str(db), "--quiet"]) == 0
    # only the comparison marts and what they read, with the tests of those models alone
    saved = os.environ.get("DBT_INDIRECT_SELECTION")
    os.environ["DBT_INDIRECT_SELECTION"] = "cautious"
    try:
        success, failures = _dbt_build(
            db, work, ["+config_deltas", "+profile_latency_deltas", "+transport_cpu_efficiency"]
        )
    finally:
        if saved is None:
            os.environ.pop("DBT_INDIRECT_SELECTION")
        else:
            os.environ["DBT_INDIRECT_SELECTION"] = saved
    assert success, failures
    return db


def _query(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    # dbt-duckdb keeps a read-write handle open in this process: open the same way
    with duckdb.connect(str(db)) as con:
        return con.execute(sql, params or []).fetchall()


def _folder_of(db: Path) -> dict[str, str]:
    """result_id -> the run folder its outputs were loaded from."""
    rows = _query(
        db,
        "select distinct r.result_id, s.source_folder from marts.fct_workload_results r"
        " join staging.stg_ingest__source_files s on s.source_file_id = r.label_source_file_id",
    )
    return {result_id: Path(folder).name for result_id, folder in rows}


def _deltas(db: Path) -> dict[tuple[str, str], dict]:
    folders = _folder_of(db)
    columns = [
        "from_result_id", "to_result_id", "dimension", "from_value", "to_value",
        "differences", "held_equal_labels", "iops_delta_pct", "from_iops", "to_iops",
        "is_significant", "significance_note", "iops_delta_ci95_low", "from_vm_count",
        "to_vm_count", "outstanding_io", "to_outstanding_io", "verdict", "iops_delta_q_value",
    ]  # fmt: skip
    rows = _query(db, f"select {', '.join(columns)} from marts.config_deltas")
    deltas = {}
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        deltas[(folders[record["from_result_id"]], folders[record["to_result_id"]])] = record
    return deltas


def test_results_differing_in_a_free_form_and_a_typed_label_get_no_delta(warehouse):
    deltas = _deltas(warehouse)
    assert ("a_net10_sw1", "b_net25_sw2") not in deltas
    assert ("b_net25_sw2", "a_net10_sw1") not in deltas
    # each label alone is a delta, named after it
    assert deltas[("c_net25_sw1", "b_net25_sw2")]["dimension"] == "stripe_width"
    assert deltas[("a_net10_sw1", "c_net25_sw1")]["dimension"] == "network"


def test_a_free_form_label_alone_is_a_delta_named_after_it(warehouse):
    delta = _deltas(warehouse)[("a_net10_sw1", "c_net25_sw1")]
    assert (delta["from_value"], delta["to_value"]) == ("10g", "25g")
    assert [(d["label"], d["from_value"], d["to_value"]) for d in delta["differences"]] == [
        ("network", "10g", "25g")
    ]
    held = json.loads(delta["held_equal_labels"])
    assert held["stripe_width"] == "1" and held["nodes"] == "3" and held["read_pct"] == "70"
    # the same fio report on both sides: IOPS equal, a 0 % delta
    assert delta["from_iops"] == pytest.approx(delta["to_iops"])
    assert delta["iops_delta_pct"] == pytest.approx(0.0)


def test_every_delta_differs_in_exactly_one_counted_dimension(warehouse):
    for delta in _deltas(warehouse).values():
        counted = {d["dimension"] for d in delta["differences"] if d["is_counted"]}
        assert counted == {delta["dimension"]}


def test_working_set_and_working_set_gb_count_once(warehouse):
    delta = _deltas(warehouse)[("d_ws_cache", "e_ws_capacity")]
    assert delta["dimension"] == "working_set"
    assert (delta["from_value"], delta["to_value"]) == ("cache", "capacity")
    assert {(d["label"], d["from_value"], d["to_value"]) for d in delta["differences"]} == {
        ("working_set", "cache", "capacity"),
        ("working_set_gb", "100", "400"),
    }


def test_a_profile_with_its_policy_labels_is_one_profile_delta(warehouse):
    deltas = _deltas(warehouse)
    delta = deltas[("f_performance", "g_density")]
    assert (delta["dimension"], delta["from_value"], delta["to_value"]) == (
        "profile",
        "performance",
        "density",
    )
    assert {d["label"] for d in delta["differences"]} == {"profile", "ftm", "dedupe"}
    assert {d["dimension"] for d in delta["differences"]} == {"profile"}
    assert [key for key in deltas if "f_performance" in key] == [("f_performance", "g_density")]


def test_45_vs_30_vms_at_constant_outstanding_io_per_vm_is_one_delta(warehouse):
    delta = _deltas(warehouse)[("h_30vms", "i_45vms")]
    assert (delta["dimension"], delta["from_value"], delta["to_value"]) == (
        "vms_per_host",
        "10",
        "15",
    )
    # outstanding I/O is the whole test's: iodepth 1 summed over 30 and 45 outputs
    assert (delta["from_vm_count"], delta["to_vm_count"]) == (30, 45)
    assert (delta["outstanding_io"], delta["to_outstanding_io"]) == (30, 45)
    differences = {
        d["label"]: (d["from_value"], d["to_value"], d["is_counted"]) for d in delta["differences"]
    }
    assert differences == {
        "vms_per_host": ("10", "15", True),
        "vm_count": ("30", "45", False),
        "outstanding_io": ("30", "45", False),
    }
    assert json.loads(delta["held_equal_labels"])["outstanding_io_per_vm"] == "1"
    # 45 copies of one report sum to 1.5 x the IOPS of 30
    assert delta["iops_delta_pct"] == pytest.approx(50.0)


def test_a_delta_without_spread_on_either_side_is_not_called_significant(warehouse):
    delta = _deltas(warehouse)[("a_net10_sw1", "c_net25_sw1")]
    assert delta["is_significant"] is None
    assert delta["iops_delta_ci95_low"] is None
    assert delta["significance_note"].startswith("no spread information")
    assert delta["verdict"] == "no spread information"
    assert delta["iops_delta_q_value"] is None
