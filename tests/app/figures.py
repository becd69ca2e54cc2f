"""The figures a page drew, as AppTest sees them (app/lib/plotly_view.py draws them), and the
tables it keeps in collapsed expanders (app/lib/ui.py `expander`).

A chart is a `perf_plotly_chart` component whose data carries the figure's JSON, or, for a
figure with a trace the cartesian bundle lacks, an `st.plotly_chart`. Both are read here, so
the tests assert what a person is shown whichever way it was drawn.
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from app.lib.plotly_view import COMPONENT_NAME
from app.lib.ui import EXPANDER_KEY_PREFIX


def charts(at: AppTest) -> list:
    """The page's chart elements: the component's first, then any st.plotly_chart."""
    ours = [e for e in at.get("bidi_component") if e.proto.component_name == COMPONENT_NAME]
    return ours + list(at.get("plotly_chart"))


def component_data(chart: object) -> dict:
    """What the page sent the chart component: {"figure": JSON text, "config", "selectable"}."""
    return json.loads(chart.proto.json)  # type: ignore[attr-defined]


def spec(chart: object) -> dict:
    """One chart's figure: {"data": [...], "layout": {...}}."""
    proto = chart.proto  # type: ignore[attr-defined]
    if hasattr(proto, "component_name"):
        return json.loads(component_data(chart)["figure"])
    return json.loads(proto.spec)


def chart_specs(at: AppTest) -> list[dict]:
    return [spec(chart) for chart in charts(at)]


def open_expanders(at: AppTest) -> AppTest:
    """Open every collapsed data expander of the page, as a reader clicking each one would,
    and rerun: what they hold is built only when open, and the tests check it too."""
    keys = [k for k in at.session_state if str(k).startswith(EXPANDER_KEY_PREFIX)]
    for key in keys:
        at.session_state[key] = True
    return at.run() if keys else at
