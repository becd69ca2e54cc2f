"""Serve the dashboard: `streamlit run app/server.py` (scripts/main.sh does).

The pages are app/streamlit_app.py's (AppTest runs that file directly). This file adds what
happens once, when the server starts, so that the first person to open a page does not wait
for it: the libraries the pages use are imported and the published warehouse is attached
(its catalog read). On a 2-core machine that took the first page view about 0.5 s longer
than the next one (tests/app/test_browser.py measures the first view of the default page).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import streamlit as st

LOG = logging.getLogger(__name__)
PAGES_SCRIPT = Path(__file__).with_name("streamlit_app.py")


def warm_up() -> None:
    """Import the pages' libraries and read the warehouse the pages read, as a first page view
    would. A warehouse that cannot be read is left for the page to report in its own words."""
    from app.lib import charts, db, plotly_view, provenance, queries, ui  # noqa: F401

    try:  # uncached (not queries.marts_columns): the point is the attach, whatever is cached
        db.marts_columns(db.reading_path())
    except Exception as exc:
        LOG.info("warm-up could not read the warehouse: %s", exc)


@contextlib.asynccontextmanager
async def lifespan(_app: st.App) -> AsyncIterator[None]:
    warm_up()
    yield


app = st.App(str(PAGES_SCRIPT), lifespan=lifespan)
