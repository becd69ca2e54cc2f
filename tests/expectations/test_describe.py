"""GX results in words: what the report prints and the results table stores."""

from __future__ import annotations

import math

from expectations.describe import observed


def test_observed_value_names_rows_and_numbers() -> None:
    text, count = observed(
        {
            "element_count": 10,
            "unexpected_count": 2,
            "partial_unexpected_list": [math.pi, 5.0],
            "partial_unexpected_index_list": [{"row_ref": "file 1"}, {"row_ref": "file 2"}],
        }
    )
    assert (text, count) == (
        "2 of 10 rows unexpected, e.g. file 1: 3.141592653589793; file 2: 5.0",
        2,
    )
