"""Every page on the real warehouse: real samples, valid fixtures and the reference dataset.

The reference dataset rebuilds the studies' published figures (synth/studies), so
the pages must show those figures. Expected values are the papers' numbers, worked out by
hand below, not read back from the app.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import test_pages
from tests.app.test_pages import PAGES, metrics

pytestmark = pytest.mark.slow

SAMSUNG = "samsung-pm1743-vsan8-esa"


def open_page(page: str) -> AppTest:
    at = test_pages.open_page(page, timeout=60)
    assert not at.error, [e.value for e in at.error]
    return at


def reconstructed_notes(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("Reconstructed data")]


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_page_shows_real_data(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    assert not any(i.value.startswith("No ") for i in at.info), [i.value for i in at.info]


def test_ra_page_peak_iops_is_the_papers(warehouse_env: Path) -> None:
    # GIVEN the Samsung PM1743 study: 1,490,000 4K random-read IOPS at 30 VMs, its highest
    at = open_page("app_pages/ra_comparison.py")
    at.selectbox[0].select(SAMSUNG).run()
    assert metrics(at)["Peak IOPS (your testbed)"] == "1,490,000"
    assert len(at.get("plotly_chart")) == 1
    assert any(SAMSUNG in note for note in reconstructed_notes(at))


def test_transport_page_rdma_gain_is_table_3s(warehouse_env: Path) -> None:
    # Table 3, 128K sequential 70/30 at 15 VMs: TCP 134,984 IOPS at 75 % CPU = 1,800 IOPS/%,
    # RDMA 170,668 at 57 % = 2,994 IOPS/%: 2,994.2 / 1,799.8 = +66.4 %, the best of the three.
    at = open_page("app_pages/transport.py")
    shown = metrics(at)
    assert shown["Best RDMA efficiency gain"] == "+66.4%"
    assert shown["TCP IOPS per CPU %"] == "1,800"
    assert shown["RDMA IOPS per CPU %"] == "2,994"
    assert reconstructed_notes(at)


def test_capacity_page_shows_micron_dedupe_ratio(warehouse_env: Path) -> None:
    # Micron vSAN 6.7 RA: 28.58 TB before, 3.48 TB after dedupe and compression = 8.21x
    at = open_page("app_pages/capacity.py")
    assert "8.21x" in [m.value for m in at.metric if m.label == "Dedupe & compression"]


@pytest.mark.parametrize(
    "page",
    ["app_pages/profile_deltas.py", "app_pages/scaling.py", "app_pages/run_explorer.py"],
)
def test_reconstructed_note_on_pages_with_reference_rows(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    assert reconstructed_notes(at)


def test_data_quality_page_has_a_run(warehouse_env: Path) -> None:
    at = open_page("app_pages/data_quality.py")
    assert int(metrics(at)["Expectations checked"].replace(",", "")) > 0
