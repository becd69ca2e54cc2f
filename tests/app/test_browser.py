"""The running app in a real browser: every page renders without an error on the real warehouse.

GIVEN the warehouse scripts/main.sh builds (real samples + valid fixtures, dbt build, validation)
WHEN `streamlit run` serves it and headless chromium opens each page's URL
THEN no page shows an exception, a traceback or an error box, each shows its own title, chart
pages draw their Plotly charts, and the RA comparison screenshot is kept under
tests/app/artifacts/ (git-ignored) for a human to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.chromium import CHROMIUM, Chromium

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK),
        reason=f"no chromium at {CHROMIUM} (scripts/setup.sh installs Debian's chromium)",
    ),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
ERROR_MARKERS = (
    "stException",
    "stAlertContentError",
    "Traceback (most recent call last)",
    "Page not found",  # Streamlit's dialog for a URL no st.Page answers to
)

# url path (st.Page infers it from the file name; "" is the default page), title, the least
# number of Plotly charts the page draws on the real warehouse, and a text it must show.
PAGES = [
    ("", "RA comparison", 1, "IOPS and latency by read mix"),
    ("profile_deltas", "Profiles & configs", 0, "Cost of each data service"),
    ("transport", "TCP vs RDMA", 0, "CPU efficiency"),
    ("capacity", "Capacity", 1, "Dedupe & compression"),
    ("scaling", "Scaling", 1, "Per-node data"),
    ("run_explorer", "Run explorer", 1, "Average latency (ms)"),
    ("sql_console", "SQL console", 0, "Tables in `marts`".replace("`", "")),
    ("data_quality", "Data quality", 0, "Expectations checked"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium() as chromium:
        yield chromium


@pytest.mark.parametrize(
    ("path", "title", "min_charts", "shows"),
    [pytest.param(*p, id=p[1].split()[0].lower().replace("&", "")) for p in PAGES],
)
def test_page_renders_without_error(
    app_url: str, browser: Chromium, path: str, title: str, min_charts: int, shows: str
) -> None:
    view = browser.open(f"{app_url}/{path}")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{path or 'ra_comparison'}.png"
    shot.write_bytes(view.screenshot_png)

    found = [m for m in ERROR_MARKERS if m in view.html]
    assert not found, f"{title}: {found}\n{view.text[:2000]}"
    # The caption under the shared title names the page that actually ran.
    assert f"{title} · warehouse" in view.text
    assert shows in view.text
    assert view.html.count('data-testid="stPlotlyChart"') >= min_charts
    assert view.screenshot_png.startswith(b"\x89PNG")
    assert shot.stat().st_size > 20_000  # a blank page compresses to a few KB
