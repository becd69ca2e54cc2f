"""The sidebar filters every page shares, and the one function that applies them to a mart.

Every query of the dashboard goes through `where`: a filter holds on every mart on the page,
published figures included. An empty selection means "no filter". A row has a value for a
filter when its mart has the filter's column and the value is not NULL, or (for a mart
without the column) when the row points at a result or published figure that has one
(`result_id`, `from_result_id` and `to_result_id`, `figure_id`: both sides of a pair must
pass). A row without a value for a chosen filter (the run did not say, or the mart cannot
tell) is hidden unless `keep_unlabelled` is set; either way `counting_sql` counts such rows,
every filtered read adds the counts to the page run's tally (`tally_unlabelled`), and the page
says how many there are (app/lib/notices.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

from app.lib.charts.common import bytes_label  # the one block-size formatter

# Marts a row can be traced to, to filter a mart on a label it does not carry itself:
# key column of the row -> (mart, its key column).
LOOKUPS: dict[str, tuple[str, str]] = {
    "result_id": ("fct_workload_results", "result_id"),
    "from_result_id": ("fct_workload_results", "result_id"),
    "to_result_id": ("fct_workload_results", "result_id"),
    "figure_id": ("published_results", "figure_id"),
}
RANDOM, SEQUENTIAL, MIXED = "random", "sequential", "mixed"


@dataclass(frozen=True, slots=True)
class FilterSpec:
    """One sidebar filter: the mart column it reads and the SQL value it compares."""

    name: str  # the Filters field
    label: str  # sidebar label, and the name in "rows without <label>"
    column: str  # the mart column that must exist
    value_sql: str  # the value compared with the chosen ones (the column or an expression)


SPECS: tuple[FilterSpec, ...] = (
    FilterSpec("testbed", "Testbed", "testbed", "testbed"),
    FilterSpec("profile", "Profile", "profile", "profile"),
    FilterSpec("transport", "Transport", "transport", "transport"),
    FilterSpec("working_set", "Working set", "working_set", "working_set"),
    FilterSpec("vsan_version", "vSAN version", "vsan_version", "vsan_version"),
    FilterSpec("read_pct", "Read %", "read_pct", "read_pct"),
    FilterSpec("block_size_bytes", "Block size", "block_size_bytes", "block_size_bytes"),
    # random_pct 100 is random, 0 sequential, anything between a mix
    FilterSpec(
        "access",
        "Random / sequential",
        "random_pct",
        f"case when random_pct >= 100 then '{RANDOM}' when random_pct <= 0 then '{SEQUENTIAL}'"
        f" when random_pct is not null then '{MIXED}' end",
    ),
    FilterSpec("outstanding_io", "Outstanding I/O", "outstanding_io", "outstanding_io"),
)
SPEC_BY_NAME = {spec.name: spec for spec in SPECS}
FILTER_LABELS = {spec.name: spec.label for spec in SPECS}


@dataclass(frozen=True, slots=True)
class Filters:
    testbed: tuple[str, ...] = ()
    profile: tuple[str, ...] = ()
    transport: tuple[str, ...] = ()
    working_set: tuple[str, ...] = ()
    vsan_version: tuple[str, ...] = ()
    read_pct: tuple[float, ...] = ()
    block_size_bytes: tuple[int, ...] = ()
    access: tuple[str, ...] = ()
    outstanding_io: tuple[int, ...] = ()
    # Show rows without a value for a chosen filter (hidden by default, always counted).
    keep_unlabelled: bool = False

    def chosen(self) -> dict[str, list[Any]]:
        """The filters with a selection: filter name -> chosen values."""
        return {
            f.name: list(getattr(self, f.name))
            for f in fields(self)
            if f.name in SPEC_BY_NAME and getattr(self, f.name)
        }


@dataclass(frozen=True, slots=True)
class Where:
    """A SQL condition on a mart's rows and its named parameters (`$f_testbed`, ...);
    `lacking`: filter name -> SQL condition true for rows without a value for it."""

    sql: str
    params: dict[str, list[Any]]
    lacking: dict[str, str]


def _param(name: str) -> str:
    return "$f_" + name


def _direct(spec: FilterSpec, keep: bool, alias: str = "") -> tuple[str, str]:
    """(passes, lacks) on a mart that has the filter's column."""
    value = spec.value_sql
    if alias:  # qualify the column inside a lookup's subquery
        value = value.replace(spec.column, alias + "." + spec.column)
    lacks = f"({value}) is null"
    passes = f"coalesce(list_contains({_param(spec.name)}, {value}), false)"
    return (f"({lacks} or {passes})" if keep else passes), lacks


Tables = Mapping[str, Sequence[str]]  # marts -> their columns (information_schema)


def _via(spec: FilterSpec, key: str, keep: bool, tables: Tables) -> tuple[str, str] | None:
    """(passes, lacks) through the mart `key` points at, or None when it lacks the column."""
    mart, mart_key = LOOKUPS[key]
    if spec.column not in tables.get(mart, ()):
        return None
    passes, lacks = _direct(spec, keep, alias="l")
    select = f"select l.{mart_key} from marts.{mart} as l where "
    return f"{key} in ({select}{passes})", f"{key} in ({select}{lacks})"


def _terms(spec: FilterSpec, table: str, keep: bool, tables: Tables) -> tuple[str, str]:
    """(passes, lacks) for one filter on `table`: its own column, else through every key
    column it has (all must pass), else nothing can say: every row lacks a value."""
    columns = tables.get(table, ())
    if spec.column in columns:
        return _direct(spec, keep)
    found = [_via(spec, key, keep, tables) for key in LOOKUPS if key in columns]
    via = [v for v in found if v is not None]
    if via:
        return " and ".join(p for p, _ in via), " or ".join(lk for _, lk in via)
    return ("true" if keep else "false"), "true"


def where(filters: Filters, table: str, tables: Tables) -> Where:
    """The condition applying `filters` to the rows of `marts.<table>` (`true` when no filter
    is chosen). `tables`: the marts and their columns (information_schema). Names come from
    the fixed SPECS and LOOKUPS and from information_schema; values are bound as parameters.
    """
    terms: list[str] = []
    lacking: dict[str, str] = {}
    params: dict[str, list[Any]] = {}
    for name, values in filters.chosen().items():
        passes, lacks = _terms(SPEC_BY_NAME[name], table, filters.keep_unlabelled, tables)
        terms.append(passes)
        lacking[name] = lacks
        params["f_" + name] = values
    return Where(" and ".join(terms) or "true", params, lacking)


def counting_sql(table: str, condition: Where) -> str | None:
    """A query counting, among the rows shown when unlabelled rows are kept, those without a
    value for each chosen filter (one column per filter); None when no filter is chosen."""
    if not condition.lacking:
        return None
    counts = ", ".join(
        f"count(*) filter (where {lacks}) as {name}" for name, lacks in condition.lacking.items()
    )
    return f"select {counts} from marts.{table} where {condition.sql}"


# --- The filters in the URL: `?f_profile=baseline&f_profile=density&f_read_pct=70&f_keep=1` ---

URL_PREFIX = "f_"
KEEP_PARAM = URL_PREFIX + "keep"  # "Keep rows without a value" on (absent: off)
KEEP_ON = "1"
# Filters whose values are numbers: the URL's text is parsed back to the sidebar's type.
NUMERIC = {"read_pct": float, "block_size_bytes": int, "outstanding_io": int}
ACCESS_VALUES = (RANDOM, SEQUENTIAL, MIXED)


def url_param(name: str) -> str:
    """The query parameter of a filter: `f_<filter name>`."""
    return URL_PREFIX + name


def url_text(name: str, value: Any) -> str:
    """A filter value as the URL writes it: read % with `%g` (70, 37.5), block sizes and
    outstanding I/Os as whole numbers (4096), the rest as they are."""
    if name == "read_pct":
        return f"{float(value):g}"
    if name in NUMERIC:
        return str(int(value))
    return str(value)


def url_value(name: str, text: str) -> Any:
    """A URL's text as the filter's value (`url_text` read back); ValueError saying why when it
    is not one (`abc` for a read %, `4.5` for a block size, `diagonal` for an access)."""
    if name == "read_pct":
        try:
            pct = float(text)
        except ValueError:
            pct = math.nan
        if not 0 <= pct <= 100:  # NaN too
            raise ValueError(f"`{text}` is not a percentage from 0 to 100")
        return pct
    if name in NUMERIC:
        # Whole numbers only: `4.5` or `4K` is not a number of bytes or of I/Os.
        if not text.isdigit() or int(text) <= 0:
            raise ValueError(f"`{text}` is not a positive whole number")
        return int(text)
    if name == "access" and text not in ACCESS_VALUES:
        raise ValueError(f"`{text}` is not one of {', '.join(ACCESS_VALUES)}")
    return text


def filter_value_label(name: str) -> Callable[[Any], str]:
    """How the sidebar shows a filter's values: block sizes as 4K ... 1M, read % as `70%`."""
    if name == "block_size_bytes":
        return lambda size: bytes_label(int(size))
    if name == "read_pct":
        return lambda pct: f"{pct:g}% read"
    return str


# --- The page run's tally of rows without a value for a chosen filter -------------------------

Tally = Callable[[str, Mapping[str, int]], None]  # (mart, filter name -> rows without a value)
# Who receives the counts of the page run under way (notices.watch_unlabelled); None outside a
# page run (tests, the benchmark). Each session runs its script in its own thread, and each
# thread has its own context, so two sessions never share a tally.
_tally: ContextVar[Tally | None] = ContextVar("unlabelled_tally", default=None)


def start_tally(receive: Tally | None) -> None:
    """From now on in this thread, every filtered read's counts go to `receive`."""
    _tally.set(receive)


def tally_unlabelled(table: str, counts: Mapping[str, int]) -> None:
    """One filtered read's counts (queries._rows), for the page run's notice, if any."""
    receive = _tally.get()
    if receive is not None:
        receive(table, counts)
