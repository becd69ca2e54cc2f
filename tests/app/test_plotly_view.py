"""The chart component (app/lib/plotly_view.py) and the plotly.js bundle the app serves.

GIVEN the cartesian bundle in app/static/ and figures of the kinds the pages draw
WHEN the component draws them (AppTest) or a figure has a trace the bundle lacks
THEN the bundle is the plotly.js version the Python `plotly` package writes figures for,
unchanged since it was vendored, and registers every trace type the component sends it;
the page carries the figure and its PNG config; a WebGL figure goes to st.plotly_chart; a
selection's points give their run ids. (tests/app/test_browser.py sees the charts drawn.)
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import plotly.graph_objects as go
import plotly.offline
from streamlit.testing.v1 import AppTest

from app.lib import plotly_view
from app.lib.charts.layout import SVG_MAX_POINTS
from app.lib.provenance import selected_results
from tests.app import figures

STATIC = Path(plotly_view.BUNDLE).parent


def test_the_bundle_is_the_plotly_js_version_python_plotly_writes_for() -> None:
    head = plotly_view.BUNDLE.read_text(encoding="utf-8")[:200]
    version = re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", head)
    assert version, head
    assert version.group(1) == plotly.offline.get_plotlyjs_version()


def test_the_bundle_is_the_one_its_readme_names() -> None:
    readme = (STATIC / "README.md").read_text(encoding="utf-8")
    digest = hashlib.sha256(plotly_view.BUNDLE.read_bytes()).hexdigest()
    assert f"sha256 `{digest}`" in readme
    assert (STATIC / "plotly.js-LICENSE.txt").read_text().startswith("MIT License")


def test_the_bundle_registers_every_trace_type_the_component_sends_it() -> None:
    text = plotly_view.BUNDLE.read_text(encoding="utf-8")
    registered = set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', text))
    assert registered == set(plotly_view.BUNDLE_TRACES)


def test_webgl_traces_are_not_for_the_bundle() -> None:
    assert plotly_view.drawable_by_bundle(go.Figure([go.Bar(y=[1]), go.Heatmap(z=[[1]])]))
    assert not plotly_view.drawable_by_bundle(go.Figure(go.Scattergl(y=[1])))


def _script() -> None:
    """An AppTest page: one small figure (component) and one huge WebGL one (st.plotly_chart)."""
    import plotly.graph_objects as go

    from app.lib import ui
    from app.lib.charts.layout import SVG_MAX_POINTS

    small = go.Figure(go.Bar(x=["RAID-1", "RAID-5"], y=[380_000, 310_000], customdata=["a", "b"]))
    ui.plot(small, "profiles", key="small", selectable=True)
    many = list(range(SVG_MAX_POINTS + 1))
    ui.plot(go.Figure(go.Scattergl(x=many, y=many)), "cpu", key="big")


def test_a_page_carries_each_figure_and_its_png_config() -> None:
    at = AppTest.from_function(_script, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    ours, full = at.get("bidi_component"), at.get("plotly_chart")
    assert [e.proto.component_name for e in ours] == [plotly_view.COMPONENT_NAME]
    assert len(full) == 1  # the WebGL figure, too large for SVG
    small, big = figures.chart_specs(at)
    assert small["data"][0]["y"] == [380_000, 310_000]
    assert small["data"][0]["customdata"] == ["a", "b"]
    assert big["data"][0]["type"] == "scattergl"
    assert len(big["data"][0]["x"]) == SVG_MAX_POINTS + 1
    data = figures.component_data(ours[0])
    assert data["selectable"] is True
    assert data["config"]["toImageButtonOptions"]["filename"] == "profiles"


def chart_configs(at: AppTest) -> list[dict]:
    """The plotly.js config of every chart of the page, whichever way it was drawn."""
    return [
        figures.component_data(chart)["config"]
        if hasattr(chart.proto, "component_name")
        else json.loads(chart.proto.config)
        for chart in figures.charts(at)
    ]


def test_no_chart_offers_to_send_its_data_to_another_host() -> None:
    # GIVEN a chart drawn by the component and one by st.plotly_chart (WebGL)
    at = AppTest.from_function(_script, default_timeout=30).run()
    configs = chart_configs(at)
    assert len(configs) == 2
    for config in configs:
        # THEN neither offers Chart Studio's "Share chart..." / "Edit in Chart Studio" and none
        # names a server to send to
        assert config["showSendToCloud"] is False
        assert config["showEditInChartStudio"] is False
        assert "plotlyServerURL" not in config
        assert {"sendDataToCloud", "editInChartStudio"} <= set(config["modeBarButtonsToRemove"])
        # and the modebar camera saves a PNG at the publication size
        camera = config["toImageButtonOptions"]
        assert (camera["format"], camera["width"], camera["height"], camera["scale"]) == (
            "png",
            1200,
            600,
            3,
        )


def test_the_component_turns_send_to_cloud_off_whatever_config_it_is_given() -> None:
    # The component's script overrides the flags and drops plotlyServerURL itself.
    js = plotly_view.Path(plotly_view.__file__).with_suffix(".js").read_text(encoding="utf-8")
    assert "showSendToCloud: false, showEditInChartStudio: false" in js
    assert "delete config.plotlyServerURL" in js


def test_selected_points_give_their_run_ids() -> None:
    points = [
        {"curve_number": 0, "point_index": 1, "customdata": ["r-2", "x"]},
        {"curve_number": 1, "point_index": 0, "customdata": "r-9"},
        {"curve_number": 2, "point_index": 0, "customdata": None},  # a published figure
    ]
    assert selected_results(points) == ["r-2", "r-9"]
    assert selected_results([]) == []
