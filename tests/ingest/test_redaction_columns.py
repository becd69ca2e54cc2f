"""Short and long text columns are redacted alike (`redact_strings` takes a per-value pass
below `VECTOR_MIN_VALUES` and Arrow's vectorised regex from there on)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from ingest.redaction import VECTOR_MIN_VALUES, redact_strings


@pytest.mark.parametrize(
    "size", [3, VECTOR_MIN_VALUES - 1, VECTOR_MIN_VALUES, 5 * VECTOR_MIN_VALUES]
)
def test_every_column_length_hides_the_secret_and_keeps_the_rest(size: int) -> None:
    values = [f"vm-{i}" for i in range(size)]
    values[size // 2] = "--password=hunter2 -s"
    values[-1] = None
    redacted = redact_strings(pa.array(values)).to_pylist()
    assert redacted[size // 2] == "--password=*** -s"
    assert redacted[: size // 2] == values[: size // 2]
    assert redacted[size // 2 + 1 :] == values[size // 2 + 1 :]
