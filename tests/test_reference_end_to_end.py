"""Issue 7 end to end: the reference dataset reproduces the published figures.

`python -m ingest reference` writes the five studies, `ingest load` loads them, `dbt build`
computes the marts, and `marts.published_vs_measured` compares every published figure with the
value the marts computed from the raw files. Every figure must match within the rounding of its
printed value, or carry a documented exception (`dbt_project/seeds/reference_exceptions.csv`:
the document contradicts itself, no mart expresses the metric, or nothing generated carries it);
an exception on a figure that does match is stale and fails too. The table of figures compared
and the per-document counts are printed (`pytest -s`, or on failure).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main as ingest_main
from synth.dataset import write_reference_dataset
from synth.studies import STUDIES
from tests.dbt.conftest import _dbt_build

pytestmark = pytest.mark.slow

COMPARED = """
select source_document, figure_id, metric, value_as_printed, published_value, measured_value,
       status, exception_kind, matched_count, reason, exception_reason, target_mart
from marts.published_vs_measured
order by source_document, figure_id
"""
COLUMNS = (
    "source_document",
    "figure_id",
    "metric",
    "value_as_printed",
    "published_value",
    "measured_value",
    "status",
    "exception_kind",
    "matched_count",
    "reason",
    "exception_reason",
    "target_mart",
)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("reference_e2e")
    dataset = work / "reference"
    db_path = work / "warehouse.duckdb"
    write_reference_dataset(dataset)
    assert ingest_main(["load", str(dataset), "--db", str(db_path), "--quiet"]) == 0
    success, failures = _dbt_build(db_path, work)
    assert success, failures
    return db_path


def _query(db_path: Path, sql: str) -> list[tuple]:
    # dbt-duckdb keeps its own read-write handle open in this process, and DuckDB shares a file
    # only between handles of one configuration: not read_only here
    con = duckdb.connect(str(db_path))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def compared(warehouse: Path) -> list[dict]:
    figures = [dict(zip(COLUMNS, row, strict=True)) for row in _query(warehouse, COMPARED)]
    _print_table(figures)
    return figures


@pytest.fixture(scope="module")
def by_id(compared: list[dict]) -> dict[str, dict]:
    return {f["figure_id"]: f for f in compared}


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def _print_table(figures: list[dict]) -> None:
    widths = (26, 50, 26, 16, 16, 16, 20)
    head = ("document", "figure", "metric", "published", "printed", "measured", "status")
    print()
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    for f in figures:
        status = f["status"] + (f" ({f['exception_kind']})" if f["exception_kind"] else "")
        cells = (
            f["source_document"],
            f["figure_id"],
            f["metric"],
            _number(f["published_value"]),
            str(f["value_as_printed"])[:16],
            _number(f["measured_value"]),
            status,
        )
        print("  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)))
    print()
    counts = Counter(
        (f["source_document"], "match" if f["status"] == "match" else f["exception_kind"])
        for f in figures
    )
    kinds = ("match", "inconsistent_source", "not_expressible", "not_reproduced", None)
    print("per document: " + " / ".join(str(k) for k in kinds))
    for document in sorted({f["source_document"] for f in figures}):
        print(f"  {document:28} " + " / ".join(str(counts[(document, k)]) for k in kinds))


def _lines(figures: list[dict]) -> str:
    return "\n".join(
        f"{f['figure_id']}: {f['status']} ({f['reason']}) exception: {f['exception_kind']}"
        for f in figures
    )


def test_every_figure_matches_or_has_an_exception(compared: list[dict]) -> None:
    failing = [f for f in compared if f["status"] != "match" and f["exception_kind"] is None]
    assert not failing, _lines(failing)


def test_no_stale_exceptions(compared: list[dict]) -> None:
    stale = [f for f in compared if f["status"] == "match" and f["exception_kind"] is not None]
    assert not stale, _lines(stale)


def test_every_document_has_matched_figures(compared: list[dict]) -> None:
    matched = Counter(f["source_document"] for f in compared if f["status"] == "match")
    assert set(matched) == {study.STUDY_ID for study in STUDIES}, matched
    assert all(n >= 3 for n in matched.values()), matched


def test_exceptions_of_unexpressible_metrics_are_not_expressible(compared: list[dict]) -> None:
    # a figure no mart computes cannot be "inconsistent" or "not reproduced": say so
    wrong = [
        f
        for f in compared
        if f["status"] == "not_expressible" and f["exception_kind"] != "not_expressible"
    ]
    assert not wrong, _lines(wrong)


def test_reference_dataset_is_labelled_reconstructed(tmp_path: Path) -> None:
    written = write_reference_dataset(tmp_path)
    assert (tmp_path / "run.yaml").read_text().count("data_origin: reconstructed") == 1
    assert all(p.is_file() for p in written)


def test_status_counts_meet_issue_17(compared: list[dict]) -> None:
    # issue 17: at most 6 figures not expressible, none unmatched; every figure that does not
    # match is a documented exception (tested above), and the counts are reported here
    statuses = Counter(f["status"] for f in compared)
    assert len(compared) == 235, statuses
    assert statuses["not_expressible"] <= 6, _lines(
        [f for f in compared if f["status"] == "not_expressible"]
    )
    assert statuses["unmatched"] == 0, _lines([f for f in compared if f["status"] == "unmatched"])
    assert statuses["match"] >= 219, statuses


@pytest.mark.parametrize(
    "figure_id, mart, measured, within",
    [
        # Table 3's 345,707 IOPS printed "345K": a match by truncation (707 > the 500 of rounding)
        ("samsung-text-rdma-write-rdma-iops", "fct_workload_results", 345_707, 0.5),
        ("samsung-text-rdma-write-tcp-iops", "fct_workload_results", 328_966, 0.5),
        # block sizes near the best sequential-read throughput: 64 KiB and 128 KiB
        ("samsung-exec-optimal-block-size-64k", "sweeps", 65_536, 0),
        ("samsung-exec-optimal-block-size-128k", "sweeps", 131_072, 0),
        # 121,524.75 IOPS per node vs AF-6's 50,000
        (
            "micron67-fig4-baseline-cache-r100-vs-af6-target",
            "per_node_iops_vs_targets",
            143.05,
            0.01,
        ),
        # 297,600 front-end writes x 2 (mirroring) = 595,200 ~ "595K"
        ("sfd7-hybrid-64h-r70-backend-write-iops", "result_backend_io", 595_200, 1),
        # 70 % read at 64 hosts over 100 % read; two disk groups 7 points worse than one
        ("sfd7-hybrid-64h-r70-vs-r100-ratio", "sweep_points", 0.258, 0.001),
        ("sfd7-af-2dg-vs-1dg-drop-difference", "sweep_points", -7.14, 0.01),
        ("micron67-table7-raid-6-ftt2-capacity-multiplier", "storage_policy_costs", 1.5, 0),
        ("micron67-text-density-capacity-overhead", "storage_policy_costs", 33.0, 0.01),
        ("samsung-fig10-raid5-redundancy-capacity", "capacity_primary_vs_redundancy", 2.64, 1e-9),
        ("micron67-fig18-capacity-vdisk-share", "capacity_primary_vs_redundancy", 75.0, 1e-6),
        ("samsung-table3-write-rdma-cpu-load", "fct_workload_results", 0.47, 1e-9),
        ("samsung-fig16-jbof-mixed-delta", "config_deltas", -58.0, 0.01),
    ],
)
def test_newly_expressed_figures_match_their_marts(
    by_id: dict[str, dict], figure_id: str, mart: str, measured: float, within: float
) -> None:
    figure = by_id[figure_id]
    assert (figure["status"], figure["exception_kind"]) == ("match", None), figure
    assert figure["target_mart"] == mart, figure
    assert figure["measured_value"] == pytest.approx(measured, abs=within), figure


def test_samsung_vm_sweeps_knee_and_best_load(warehouse: Path) -> None:
    # Figure 5: per workload (read %), the knee VM count and the best point's outstanding I/O
    # per host. Every workload bends after 15 VMs; read and mixed peak at 30 VMs (640 per host),
    # random write at 45 VMs (960 per host), which is why the all-workload "640" figure is a
    # documented exception
    rows = _query(
        warehouse,
        """
        select read_pct, knee_vm_count, best_iops_outstanding_io_per_host
        from marts.sweeps
        where testbed = 'samsung-pm1743-vsan8-esa' and axis = 'vms_per_host'
        order by read_pct
        """,
    )
    assert rows == [(0, 15, 960.0), (70, 15, 640.0), (100, 15, 640.0)]
