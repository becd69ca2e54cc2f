"""Great-expectations results in words: a readable name per expectation, the observed text.

These strings are what the report prints and what data_quality.validation_results stores, so
they stay stable: `lat_min_ns <= lat_mean_ns`, `read_pct in [0, 100]`, `2 of 10 rows
unexpected, e.g. file 1: 3.5; file 2: 5.0`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import great_expectations as gx
import pandas as pd

from expectations.outcome import Outcome

EXAMPLES = 3  # unexpected rows quoted in `observed`
_EXAMPLE_CHARS = 160


def _plain(value: Any) -> Any:
    """numpy/pandas scalars as Python values, so the report reads `3.5`, not `np.float64(3.5)`."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (ValueError, TypeError):
            return value
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return value


def _num(value: Any) -> Any:
    """`0` rather than `0.0` in expectation names."""
    value = _plain(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _describe_between(kwargs: dict[str, Any]) -> str:
    low, high = kwargs.get("min_value"), kwargs.get("max_value")
    column = kwargs["column"]
    if high is None:
        return f"{column} >= {_num(low)}"
    if low is None:
        return f"{column} <= {_num(high)}"
    return f"{column} in [{_num(low)}, {_num(high)}]"


def describe(config: Any) -> str:
    """A readable name for an expectation configuration, e.g. `lat_min_ns <= lat_mean_ns`."""
    kwargs = config.kwargs
    kind = config.type
    if kind == "expect_column_values_to_be_between":
        return _describe_between(kwargs)
    if kind == "expect_column_pair_values_a_to_be_greater_than_b":
        op = "<=" if kwargs.get("or_equal") else "<"
        return f"{kwargs['column_B']} {op} {kwargs['column_A']}"
    if kind == "expect_compound_columns_to_be_unique":
        return f"unique ({', '.join(kwargs['column_list'])})"
    if kind == "expect_column_values_to_be_in_set":
        return f"{kwargs['column']} in {list(kwargs['value_set'])}"
    if kind == "expect_table_row_count_to_equal":
        return f"row count = {kwargs['value']}"
    args = ", ".join(f"{k}={v}" for k, v in kwargs.items() if k != "batch_id")
    return f"{kind}({args})"


def _examples(result: dict[str, Any]) -> str:
    """The first unexpected values, each with the `row_ref` of its row when GX returned it."""
    refs = result.get("partial_unexpected_index_list") or []
    values = result.get("partial_unexpected_list") or []
    examples = []
    for i, value in enumerate(values[:EXAMPLES]):
        ref = refs[i].get("row_ref") if i < len(refs) and isinstance(refs[i], dict) else None
        shown = str(_plain(value))[:_EXAMPLE_CHARS]
        examples.append(f"{ref}: {shown}" if ref else shown)
    return "; ".join(examples)


def observed(result: dict[str, Any]) -> tuple[str, int | None]:
    """The observed value and unexpected count of one expectation result."""
    if "observed_value" in result:
        return str(_plain(result["observed_value"])), None
    count = result.get("unexpected_count")
    if count is None:
        return "", None
    text = f"{count} of {result.get('element_count')} rows"
    if count:
        text += " unexpected, e.g. " + _examples(result)
    return text, int(count)


def _error_text(exception_info: dict[str, Any]) -> str:
    message = str(exception_info.get("exception_message", "")).splitlines()
    return f"error: {message[0] if message else 'exception'}"


def outcomes(
    validation: Any, suite: gx.ExpectationSuite, table: str, severity: str
) -> Iterator[Outcome]:
    """One Outcome per expectation of a GX validation result."""
    for item in validation.results:
        config = item.expectation_config
        exception_info = item.exception_info or {}
        if exception_info.get("raised_exception"):
            text, count = _error_text(exception_info), None
        else:
            text, count = observed(item.result or {})
        yield Outcome(
            suite=suite.name,
            table_name=table,
            expectation=describe(config),
            severity=severity,
            success=bool(item.success),
            observed=text,
            unexpected_count=count,
            notes=(config.meta or {}).get("notes", ""),
        )
