"""No page crashes under any sidebar filter (issue 28: Scaling raised a ValueError with a
traceback under Read % = 70).

GIVEN the reference warehouse (conftest `warehouse`: samples, fixtures, the reference dataset)
and a warehouse of only a user's own fio runs (conftest `own_warehouse`: nine real fio runs)
WHEN each page of `navigation.PAGES` is opened in AppTest, its data expanders opened too, and
the sidebar set to every single value each filter offers (the values the app itself offers:
queries.filter_options, checked against the widget's options), then to a fixed sample of pairs
of values of two filters
THEN no run shows an exception element or an error box ("no data" notices are fine); a failure
names the warehouse, the page, the filter values and the exception's last lines.

One AppTest per warehouse and page is reused for all its filter settings (a set_value and a
rerun each), which keeps the sweep to minutes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from app.lib import queries
from app.lib.filters import FILTER_LABELS, filter_value_label
from app.lib.navigation import PAGES
from tests.app import figures
from tests.app.conftest import OWN_PROFILES, OWN_READ_MIXES, OWN_TESTBED, query

pytestmark = pytest.mark.slow

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
WAREHOUSES = ("reference", "own")
# Pairs of filters a reader combines (the crash was Read % x Profile), and how many
# value pairs of each the sweep tries: the product's pairs are taken at an even stride, so
# the sample is the same on every run and spreads over both filters' values.
FILTER_PAIRS: tuple[tuple[str, str], ...] = (
    ("read_pct", "profile"),
    ("testbed", "block_size_bytes"),
    ("testbed", "profile"),
    ("access", "outstanding_io"),
    ("working_set", "read_pct"),
    ("transport", "vsan_version"),
)
PAIRS_PER_FILTER_PAIR = 5
# Value pairs always tried where both values exist: the crash.
ALWAYS: tuple[dict[str, Any], ...] = ({"read_pct": 70, "profile": "baseline"},)
TRACEBACK_LINES = 6


def sample_pairs(options: dict[str, list]) -> list[dict[str, Any]]:
    """The fixed sample of two-filter settings for a warehouse's filter options."""
    chosen: list[dict[str, Any]] = [
        setting
        for setting in ALWAYS
        if all(value in options.get(name, []) for name, value in setting.items())
    ]
    for first, second in FILTER_PAIRS:
        product = list(itertools.product(options.get(first, []), options.get(second, [])))
        stride = max(1, len(product) // PAIRS_PER_FILTER_PAIR)
        for a, b in product[::stride][:PAIRS_PER_FILTER_PAIR]:
            setting = {first: a, second: b}
            if setting not in chosen:
                chosen.append(setting)
    return chosen


def describe(setting: dict[str, Any]) -> str:
    if not setting:
        return "no filter"
    return ", ".join(f"{FILTER_LABELS[n]} = {filter_value_label(n)(v)}" for n, v in setting.items())


def problems(at: AppTest) -> list[str]:
    """What the run showed that a reader must never see: exceptions (their last lines) and
    error boxes."""
    found = []
    for exc in at.exception:
        lines = [*exc.stack_trace[-TRACEBACK_LINES:], exc.message]
        found.append("exception:\n    " + "\n    ".join(line.rstrip() for line in lines))
    found += [f"error box: {e.value}" for e in at.error]
    return found


class PageSweep:
    """One page in one AppTest, set to one filter setting after another."""

    def __init__(self, page: str) -> None:
        self.at = AppTest.from_file(str(APP), default_timeout=60)
        self.at.run()
        self.at.switch_page(page)
        self.at.run()
        # The data expanders' tables are built only when open: open them for good (their
        # state is kept in session state across reruns).
        figures.open_expanders(self.at)
        self.options: dict[str, list] = queries.filter_options(self.at.session_state["where"])
        for name in FILTER_LABELS:  # what the sweep sets is what the sidebar offers
            widget = self.at.multiselect(key=f"filter_{name}")
            shown = [filter_value_label(name)(v) for v in self.options[name]]
            assert widget.options == shown, (name, widget.options, shown)

    def show(self, setting: dict[str, Any]) -> list[str]:
        """Set the sidebar to `setting` (every other filter empty), rerun, and return what
        went wrong."""
        for name in FILTER_LABELS:
            self.at.multiselect(key=f"filter_{name}").set_value(
                [setting[name]] if name in setting else []
            )
        self.at.run()
        for name in FILTER_LABELS:  # the run read the setting (a widget can refuse a value)
            shown = self.at.multiselect(key=f"filter_{name}").value
            assert shown == ([setting[name]] if name in setting else []), (name, shown)
        return problems(self.at)


@pytest.fixture(scope="module")
def sweeps() -> Iterator[dict[tuple[str, str], PageSweep]]:
    """warehouse name, page -> its PageSweep, made on first use and kept for the module."""
    made: dict[tuple[str, str], PageSweep] = {}
    yield made
    made.clear()


def warehouse_path(request: pytest.FixtureRequest, name: str) -> Path:
    return request.getfixturevalue("warehouse" if name == "reference" else "own_warehouse")


def sweep_for(
    request: pytest.FixtureRequest,
    sweeps: dict[tuple[str, str], PageSweep],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    page: str,
) -> PageSweep:
    # Every run reads the warehouse PERF_DUCKDB_PATH names at that moment.
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(warehouse_path(request, name)))
    if (name, page) not in sweeps:
        sweeps[(name, page)] = PageSweep(page)
    return sweeps[(name, page)]


def run_settings(sweep: PageSweep, settings: Sequence[dict[str, Any]]) -> str:
    """Every setting in turn; what went wrong, each problem once with the settings that
    showed it ("" when nothing did)."""
    seen: dict[str, list[str]] = {}
    for setting in settings:
        for problem in sweep.show(setting):
            seen.setdefault(problem, []).append(describe(setting))
    return "\n".join(
        f"{len(shown)} of {len(settings)} settings ({'; '.join(shown)}) show {problem}"
        for problem, shown in seen.items()
    )


CASES = [
    pytest.param(name, spec.path, id=f"{name}-{Path(spec.path).stem}")
    for name in WAREHOUSES
    for spec in PAGES
]


@pytest.mark.parametrize(("warehouse_name", "page"), CASES)
def test_every_single_filter_value(
    request: pytest.FixtureRequest,
    sweeps: dict[tuple[str, str], PageSweep],
    monkeypatch: pytest.MonkeyPatch,
    warehouse_name: str,
    page: str,
) -> None:
    sweep = sweep_for(request, sweeps, monkeypatch, warehouse_name, page)
    settings = [{}] + [{name: value} for name, values in sweep.options.items() for value in values]
    # the sweep has something to sweep: every warehouse offers a testbed and a read mix
    assert sweep.options["testbed"] and sweep.options["read_pct"], sweep.options
    failures = run_settings(sweep, settings)
    assert not failures, f"{warehouse_name} warehouse, page {page}:\n{failures}"


@pytest.mark.parametrize(("warehouse_name", "page"), CASES)
def test_sampled_pairs_of_filter_values(
    request: pytest.FixtureRequest,
    sweeps: dict[tuple[str, str], PageSweep],
    monkeypatch: pytest.MonkeyPatch,
    warehouse_name: str,
    page: str,
) -> None:
    sweep = sweep_for(request, sweeps, monkeypatch, warehouse_name, page)
    settings = sample_pairs(sweep.options)
    assert settings, sweep.options
    failures = run_settings(sweep, settings)
    assert not failures, f"{warehouse_name} warehouse, page {page}:\n{failures}"


def test_the_pair_sample_is_fixed_and_spread() -> None:
    """The sample does not depend on the run, includes the issue's crash, and takes pairs
    from across both filters' values."""
    options = {
        "read_pct": [0, 70, 100],
        "profile": ["balanced", "baseline", "density"],
        "testbed": ["a", "b"],
        "block_size_bytes": [4096, 65536],
    }
    got = sample_pairs(options)
    assert got == sample_pairs(options)
    assert got[0] == {"read_pct": 70, "profile": "baseline"}
    read_profile = [s for s in got if set(s) == {"read_pct", "profile"}]
    # 9 combinations, stride 9 // 5 = 1: the first five, the ALWAYS one not repeated
    assert len(read_profile) == 5
    assert {s["read_pct"] for s in read_profile} == {0, 70}
    testbed_block = [s for s in got if set(s) == {"testbed", "block_size_bytes"}]
    assert len(testbed_block) == 4  # all of a 2 x 2 product
    # a filter with no values in this warehouse gives no pair
    assert not [s for s in got if "transport" in s]


def test_the_own_data_warehouse_holds_the_fio_runs_made(own_warehouse: Path) -> None:
    """The own-data warehouse is what the fixture ran: one fio result per profile x read mix,
    4 KiB random at one outstanding I/O (psync), labelled with the user's testbed."""
    rows = query(
        own_warehouse,
        "select testbed, profile, read_pct, block_size_bytes, random_pct, outstanding_io,"
        " source_tool from marts.fct_workload_results order by all",
    )
    assert rows == sorted(
        (OWN_TESTBED, profile, pct, 4096, 100, 1, "fio")
        for profile in OWN_PROFILES
        for pct in OWN_READ_MIXES
    )
