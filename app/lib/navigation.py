"""The dashboard's pages in menu order: one list for the app, its tests and the benchmark."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageSpec:
    path: str  # relative to app/, as st.Page takes it
    title: str
    icon: str


PAGES = (
    PageSpec("app_pages/ra_comparison.py", "RA comparison", ":material/bar_chart:"),
    PageSpec("app_pages/profile_deltas.py", "Profiles & configs", ":material/tune:"),
    PageSpec("app_pages/transport.py", "TCP vs RDMA", ":material/swap_horiz:"),
    PageSpec("app_pages/capacity.py", "Capacity", ":material/storage:"),
    PageSpec("app_pages/scaling.py", "Scaling", ":material/trending_up:"),
    PageSpec("app_pages/run_explorer.py", "Run explorer", ":material/search:"),
    PageSpec("app_pages/sql_console.py", "SQL console", ":material/terminal:"),
    PageSpec("app_pages/data_quality.py", "Data quality", ":material/fact_check:"),
)
PAGE_FILES = tuple(page.path for page in PAGES)
