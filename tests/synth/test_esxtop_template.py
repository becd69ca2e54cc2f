"""synth reads its esxtop template (a real capture) without the product's parser; both must read
the same counters, means and kinds, or the generated captures drift from what ingest sees.

GIVEN the real 17,427-counter capture the wide generator scales
WHEN synth's template reader and ingest's esxtop parser read it
THEN every column has the same host, group, instance, counter and padding, the same mean
(to 1e-12) and the same "varies" flag, and integer counters are the cells written without
decimals.
"""

from __future__ import annotations

import csv
import re

import numpy as np
import pytest

from ingest.parsers import esxtop
from ingest.sources import source_for
from synth.esxtop_wide import TEMPLATE, template_columns


@pytest.fixture(scope="module")
def parsed() -> dict:
    if not TEMPLATE.is_file():
        pytest.fail(f"template capture not found at {TEMPLATE}: check out ../shared")
    data = TEMPLATE.read_bytes()
    return esxtop.parse(data, source_for(TEMPLATE.as_posix(), data)).tables


def test_synth_reads_the_template_as_the_parser_does(parsed: dict) -> None:
    counters = parsed["esxtop_counters"].to_pylist()
    samples = parsed["esxtop_samples"]
    rows = parsed["esxtop_captures"][0].sample_count
    values = np.full((rows, len(counters)), np.nan)
    values[
        samples.column("sample_index").to_numpy(),
        samples.column("counter_id").to_numpy(),
    ] = samples.column("value").to_numpy(zero_copy_only=False)
    means = np.nanmean(values, axis=0)
    varies = np.nanmax(values, axis=0) != np.nanmin(values, axis=0)

    columns = template_columns()

    assert len(columns) == len(counters) == 17_427
    names = [(c.host, c.group, c.instance, c.counter, c.padded) for c in columns]
    assert names == [
        (c["host"], c["object_group"], c["instance"], c["counter"], c["is_name_inferred"])
        for c in counters
    ]
    assert sum(c.padded for c in columns) > 0  # the PCPU Power State `   -` cells
    assert np.allclose([c.base for c in columns], means, rtol=1e-12, atol=0, equal_nan=True)
    assert [c.varies for c in columns] == varies.tolist()
    first = TEMPLATE.read_bytes().split(b"\n")[1]
    first = re.sub(rb'(", +[^",]*)(?=")', rb"\1,", first)
    cells = next(csv.reader([first.decode()]))[1:]
    assert [c.is_int for c in columns] == ["." not in cell for cell in cells]
