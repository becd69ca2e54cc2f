"""The TCP vs RDMA page's rows: the testbeds with both transports, one bar per result named
by what differs between the bars (and run), and the best IOPS-per-CPU gain of RDMA with the
workload and configuration it was measured on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib.charts.common import (
    CONTEXT_KEYS,
    chart_context,
    context_value,
    is_missing,
    workload_label,
)

# URL parameter -> widget key.
PARAMS = {"testbed": "transport_testbed", "config": "transport_configuration"}
# What a bar's label may name; the transport is the bar's colour.
LABEL_KEYS = tuple(k for k in CONTEXT_KEYS if k != "transport")


def paired(side: pl.DataFrame) -> pl.DataFrame:
    """The results of testbeds with more than one transport (a transport filter can leave a
    testbed with one: nothing to compare)."""
    return side.filter(pl.col("transport").n_unique().over("testbed") > 1) if len(side) else side


def testbeds(paired: pl.DataFrame) -> list[str]:
    return sorted(paired["testbed"].unique()) if len(paired) else []


def _varying_labels(df: pl.DataFrame) -> list[str]:
    """Per row, the values of the context keys that differ between the rows (`70% read ·
    128K · sequential`); the workload label when nothing differs."""
    varying = chart_context(df, LABEL_KEYS).varying
    return [
        " · ".join(context_value(k, r[k]) for k in varying) if varying else workload_label(r)
        for r in df.iter_rows(named=True)
    ]


def with_workload(part: pl.DataFrame) -> pl.DataFrame:
    """A `workload` per bar: what differs between the bars, and its run when the workload ran
    again (what they share is the chart's subtitle)."""
    names = [
        name + (f" · run {r['run_ordinal']}" if r["run_ordinal"] > 1 else "")
        for name, r in zip(_varying_labels(part), part.iter_rows(named=True), strict=True)
    ]
    return part.with_columns(workload=pl.Series(names, dtype=pl.String))


def with_testbed_workload(eff: pl.DataFrame) -> pl.DataFrame:
    """A `workload` per efficiency pair: what differs between the pairs (the testbed when
    several are shown)."""
    return eff.with_columns(workload=pl.Series(_varying_labels(eff), dtype=pl.String))


def subtitle(df: pl.DataFrame) -> str:
    """What every bar of a TCP vs RDMA chart shares (the transport is its legend)."""
    return chart_context(df).subtitle(skip=["transport"])


def best_gain(eff: pl.DataFrame) -> Mapping[str, Any]:
    """The pair with the best RDMA efficiency gain; without CPU figures the gain is NULL
    everywhere: the first pair (its gain shown as missing)."""
    gains = eff["rdma_efficiency_gain_pct"]
    return eff.row(gains.arg_max() if gains.null_count() < eff.height else 0, named=True)  # type: ignore[arg-type]


def configuration_text(row: Mapping[str, Any]) -> str:
    """A pair's workload and configuration in full, as the tiles name it: `testbed x · 4K ·
    0% read · random · OIO 960 · 15 VMs · 3 nodes · local-nvme storage`."""
    parts = [context_value(k, row[k]) for k in LABEL_KEYS if not is_missing(row.get(k))]
    if not is_missing(row.get("storage")):
        parts.append(f"{row['storage']} storage")
    return " · ".join(parts)
