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
       status, exception_kind, matched_count, reason, exception_reason
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
)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    work = tmp_path_factory.mktemp("reference_e2e")
    dataset = work / "reference"
    db_path = work / "warehouse.duckdb"
    write_reference_dataset(dataset)
    assert ingest_main(["load", str(dataset), "--db", str(db_path), "--quiet"]) == 0
    success, failures = _dbt_build(db_path, work)
    assert success, failures
    # dbt-duckdb keeps its own read-write handle open in this process, and DuckDB shares a file
    # only between handles of one configuration: not read_only here
    con = duckdb.connect(str(db_path))
    try:
        rows = con.execute(COMPARED).fetchall()
    finally:
        con.close()
    figures = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    _print_table(figures)
    return figures


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
