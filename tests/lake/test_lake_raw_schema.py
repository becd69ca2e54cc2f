"""A lake's new raw tables get a row inserted and deleted in the transaction that creates
them: DuckLake 1.5.5 scans a table that never held a row slowly (50-150 ms a query), and the
row leaves the table's statistics in the catalog, the fast path (`Warehouse.primes_new_tables`,
ingest.raw_schema). A DuckDB file's tables need no row (nothing there to observe but time).
Real PostgreSQL (tests/lake/conftest.py)."""

from __future__ import annotations

from ingest.raw_schema import raw_tables
from ingest.writer import RawWriter
from tests.lake.test_lake_load import read
from warehouse import LakeWarehouse, ducklake


def test_a_new_lake_primes_every_raw_table_and_keeps_them_empty(
    lake_target: LakeWarehouse,
) -> None:
    RawWriter(lake_target).close()
    tables = [*raw_tables(), "source_files"]
    with read(lake_target) as con:
        for name in tables:
            assert con.execute(f"select count(*) from raw.{name}").fetchone() == (0,)
    catalog = ducklake.catalog_session(lake_target)
    try:
        # a table that never held a row has no statistics row in the catalog
        primed, rows = catalog.execute(
            "select count(*), coalesce(sum(record_count), 0) from ducklake_table_stats"
        ).fetchone()
    finally:
        catalog.close()
    assert (primed, rows) == (len(tables), 0)
