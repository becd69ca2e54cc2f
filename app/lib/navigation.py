"""The dashboard's pages in menu order: one list for the app, its tests and the benchmark."""

from __future__ import annotations

from dataclasses import dataclass

# The browser tab's icon, inline: Streamlit turns SVG markup into a data: URL. A
# `:material/...:` page_icon makes every page fetch the glyph from fonts.gstatic.com (a failed
# request in a lab without internet) and an emoji needs an emoji font; the menu's
# `:material/...:` icons below are drawn from the font Streamlit serves itself.
APP_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
    '<path d="M3 17a9 9 0 0 1 18 0" fill="none" stroke="#1f77b4" stroke-width="2.5"/>'
    '<path d="M12 17l5-7" stroke="#d62728" stroke-width="2.5" stroke-linecap="round"/>'
    '<circle cx="12" cy="17" r="2" fill="#d62728"/></svg>'
)


@dataclass(frozen=True, slots=True)
class PageSpec:
    path: str  # relative to app/, as st.Page takes it
    title: str
    icon: str


# The page that adds results: it runs without a served version (a new user's first upload).
ADD_RESULTS = "Add results"


PAGES = (
    PageSpec("app_pages/ra_comparison.py", "RA comparison", ":material/bar_chart:"),
    PageSpec("app_pages/profile_deltas.py", "Profiles & configs", ":material/tune:"),
    PageSpec("app_pages/transport.py", "TCP vs RDMA", ":material/swap_horiz:"),
    PageSpec("app_pages/capacity.py", "Capacity", ":material/storage:"),
    PageSpec("app_pages/scaling.py", "Scaling", ":material/trending_up:"),
    PageSpec("app_pages/studies.py", "Studies", ":material/library_books:"),
    PageSpec("app_pages/history.py", "History", ":material/timeline:"),
    PageSpec("app_pages/run_explorer.py", "Run explorer", ":material/search:"),
    PageSpec("app_pages/compare.py", "Compare", ":material/compare_arrows:"),
    PageSpec("app_pages/published.py", "Published vs measured", ":material/menu_book:"),
    PageSpec("app_pages/sql_console.py", "SQL console", ":material/terminal:"),
    PageSpec("app_pages/data_quality.py", "Data quality", ":material/fact_check:"),
    PageSpec("app_pages/add_results.py", ADD_RESULTS, ":material/upload_file:"),
)
PAGE_FILES = tuple(page.path for page in PAGES)
