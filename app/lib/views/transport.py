"""The TCP vs RDMA page's rows: the testbeds with both transports, one bar per result named
by its workload (and run), and the best IOPS-per-CPU gain of RDMA."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib.charts.common import workload_label


def paired(side: pl.DataFrame) -> pl.DataFrame:
    """The results of testbeds with more than one transport (a transport filter can leave a
    testbed with one: nothing to compare)."""
    return side.filter(pl.col("transport").n_unique().over("testbed") > 1) if len(side) else side


def testbeds(paired: pl.DataFrame) -> list[str]:
    return sorted(paired["testbed"].unique()) if len(paired) else []


def with_workload(part: pl.DataFrame) -> pl.DataFrame:
    """A `workload` per bar: its workload label, and its run when the workload ran again."""
    names = [
        workload_label(r) + (f" · run {r['run_ordinal']}" if r["run_ordinal"] > 1 else "")
        for r in part.iter_rows(named=True)
    ]
    return part.with_columns(workload=pl.Series(names, dtype=pl.String))


def with_testbed_workload(eff: pl.DataFrame) -> pl.DataFrame:
    """A `workload` per efficiency pair: its testbed and workload."""
    names = [f"{r['testbed']} · {workload_label(r)}" for r in eff.iter_rows(named=True)]
    return eff.with_columns(workload=pl.Series(names, dtype=pl.String))


def best_gain(eff: pl.DataFrame) -> Mapping[str, Any]:
    """The pair with the best RDMA efficiency gain; without CPU figures the gain is NULL
    everywhere: the first pair (its gain shown as missing)."""
    gains = eff["rdma_efficiency_gain_pct"]
    return eff.row(gains.arg_max() if gains.null_count() < eff.height else 0, named=True)  # type: ignore[arg-type]
