"""The layout rules every chart gets, whoever built it: `finish(fig)` (ui.plot calls it).

Builders draw the data; these rules fix what a person would otherwise see wrong on any page:
- an axis (or a whole figure) without data is hidden and its panel says "No data", instead of
  Plotly's empty -1..4 axes;
- a second y axis keeps its own round ticks: Plotly.js 3 "syncs" an overlaying axis to the
  first one's grid, which gives ticks like 0.879, 1.759 ... 4.397;
- every trace has a legend entry: a legend group none of whose traces shows one gets one;
- a block-size axis (values in bytes) is labelled 4K, 64K, 1M at the sizes present;
- rows of a subplot grid over the same categories share the bottom row's labels, so the
  upper rows' long (rotated) tick labels and axis titles never run into the subplot titles
  below them;
- WebGL only where SVG cannot cope: a figure's `scattergl` traces with at most
  SVG_MAX_POINTS points in all are drawn as SVG `scatter`. Starting WebGL costs a browser
  without a GPU (a VM, a remote desktop, headless chromium) 2-5 s per page, and the query
  layer already buckets time series to 2,000 points per trace.
The legend's place (under the figure, below the tick labels and axis titles) is the
template's (`common.TEMPLATE`); `finish` makes the figure taller by the legend's estimated
height, so a long legend never squeezes the plot it explains.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import plotly.graph_objects as go

from app.lib.charts.common import COLUMNS, bytes_label, is_missing

NO_DATA = "No data"
# Trace types whose entries the legend lists (a heatmap has a colour bar instead).
_LEGEND_TYPES = frozenset({"scatter", "scattergl", "bar", "box", "violin", "histogram"})
_BLOCK_SIZE_TITLE = COLUMNS["block_size_bytes"][0]
SVG_MAX_POINTS = 20_000
# Legend size estimate: a wide page's chart width, one entry's line, a character's width at
# the template's 13 px font, and an entry's symbol and padding.
LEGEND_LINE_WIDTH_PX = 1000
LEGEND_ENTRY_HEIGHT_PX = 20
LEGEND_CHAR_PX = 7
LEGEND_SYMBOL_PX = 45
LEGEND_GROUP_GAP_PX = 10
PLOTLY_DEFAULT_HEIGHT = 450


def finish(fig: go.Figure) -> go.Figure:
    """Apply the shared layout rules to `fig` (in place where Plotly allows) and return the
    figure to draw."""
    fig = _svg_when_small(fig)
    _hide_empty_axes(fig)
    _own_ticks_on_second_axes(fig)
    _legend_entry_per_trace(fig)
    _block_size_axes(fig)
    _share_category_rows(fig)
    _room_for_legend(fig)
    return fig


def _svg_when_small(fig: go.Figure) -> go.Figure:
    gl = [t for t in fig.data if t.type == "scattergl"]
    if not gl or sum(len(t.x if t.x is not None else t.y or ()) for t in gl) > SVG_MAX_POINTS:
        return fig
    data = [
        go.Scatter({k: v for k, v in t.to_plotly_json().items() if k != "type"})
        if t.type == "scattergl"
        else t
        for t in fig.data
    ]
    return go.Figure(data=data, layout=fig.layout)


def _axis_names(fig: go.Figure, letter: str) -> list[str]:
    """Layout keys of the figure's `letter` ("x"/"y") axes: xaxis, xaxis2, ..."""
    return sorted(k for k in fig.layout.to_plotly_json() if k.startswith(f"{letter}axis"))


def _layout_key(ref: str | None, letter: str) -> str:
    """A trace's axis reference (`x`, `y3`) as its layout key (`xaxis`, `yaxis3`)."""
    return f"{letter}axis{(ref or letter)[1:]}"


def _has_values(values: object) -> bool:
    if values is None or isinstance(values, str):
        return False
    for v in values:  # type: ignore[attr-defined]
        if isinstance(v, list | tuple):
            if _has_values(v):
                return True
        elif not is_missing(v):
            return True
    return False


def _trace_has_data(trace: go.BaseTraceType) -> bool:
    """Whether the trace draws anything: its measured values (z, else y, else x) exist."""
    if getattr(trace, "z", None) is not None:
        return _has_values(trace.z)
    horizontal = getattr(trace, "orientation", None) == "h"
    first, second = ("x", "y") if horizontal else ("y", "x")
    values = getattr(trace, first, None)
    if values is None and trace.type in ("box", "histogram"):
        values = getattr(trace, second, None)
    return _has_values(values)


def _axes_with_data(fig: go.Figure) -> set[str]:
    out: set[str] = set()
    for trace in fig.data:
        if not hasattr(trace, "xaxis") or not _trace_has_data(trace):
            continue
        out.add(_layout_key(trace.xaxis, "x"))
        out.add(_layout_key(trace.yaxis, "y"))
    return out


def _hide_empty_axes(fig: go.Figure) -> None:
    """Hide axes without data; say "No data" in each panel (or figure) that has none."""
    with_data = _axes_with_data(fig)
    xs, ys = _axis_names(fig, "x") or ["xaxis"], _axis_names(fig, "y") or ["yaxis"]
    said = {a.text for a in fig.layout.annotations or ()}
    for name in xs + ys:
        if name not in with_data:
            fig.layout[name].visible = False
    if not with_data:
        if NO_DATA not in said:
            fig.add_annotation(
                text=NO_DATA, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper"
            )
        return
    for x in xs:
        y = _layout_key(fig.layout[x].anchor, "y") if fig.layout[x].anchor else "yaxis"
        if x in with_data or y not in ys or fig.layout[y].overlaying:
            continue
        xd, yd = fig.layout[x].domain or (0, 1), fig.layout[y].domain or (0, 1)
        fig.add_annotation(
            text=NO_DATA,
            showarrow=False,
            xref="paper",
            yref="paper",
            x=(xd[0] + xd[1]) / 2,
            y=(yd[0] + yd[1]) / 2,
        )


def _own_ticks_on_second_axes(fig: go.Figure) -> None:
    for name in _axis_names(fig, "y") + _axis_names(fig, "x"):
        axis = fig.layout[name]
        if axis.overlaying and axis.type != "category" and axis.tickmode in (None, "sync"):
            axis.update(tickmode="auto", showgrid=False)


def _legend_entry_per_trace(fig: go.Figure) -> None:
    shown: dict[str, bool] = {}
    first: dict[str, go.BaseTraceType] = {}
    for trace in fig.data:
        key = (trace.legendgroup or trace.name) if trace.type in _LEGEND_TYPES else None
        if not key:
            continue
        first.setdefault(key, trace)
        shown[key] = shown.get(key, False) or trace.showlegend is not False
    for key, trace in first.items():
        if not shown[key]:
            trace.showlegend = True


def _title_text(axis: go.layout.XAxis | go.layout.YAxis) -> str:
    return (axis.title.text or "") if axis.title else ""


def _block_size_axes(fig: go.Figure) -> None:
    """Ticks at the block sizes present, labelled 4K ... 1M, on axes titled "Block size"."""
    for letter in ("x", "y"):
        sizes: dict[str, set[int]] = defaultdict(set)
        for trace in fig.data:
            if hasattr(trace, f"{letter}axis"):
                key = _layout_key(getattr(trace, f"{letter}axis"), letter)
                sizes[key].update(_sizes(getattr(trace, letter, None)))
        for name in _axis_names(fig, letter):
            axis = fig.layout[name]
            if not _title_text(axis).startswith(_BLOCK_SIZE_TITLE) or not sizes.get(name):
                continue
            ticks = sorted(sizes[name])
            axis.update(tickmode="array", tickvals=ticks, ticktext=[bytes_label(t) for t in ticks])
            axis.title.text = _BLOCK_SIZE_TITLE


def _sizes(values: Iterable[object] | None) -> set[int]:
    """Positive whole byte counts among `values` (none when any value is not a number)."""
    if values is None:
        return set()
    out: set[int] = set()
    for v in values:
        if is_missing(v):
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0 or v != int(v):
            return set()
        out.add(int(v))
    return out


def _categories(fig: go.Figure) -> dict[str, list[str]]:
    """The string x values of each x axis, in first-seen order."""
    out: dict[str, list[str]] = defaultdict(list)
    for trace in fig.data:
        if not hasattr(trace, "xaxis") or trace.x is None:
            continue
        values = out[_layout_key(trace.xaxis, "x")]
        for v in trace.x:
            if isinstance(v, str) and v not in values:
                values.append(v)
    return out


def _share_category_rows(fig: go.Figure) -> None:
    """In each column of a grid, rows over the same categories keep only the bottom labels."""
    cats = _categories(fig)
    columns: dict[tuple, list[tuple[float, str]]] = defaultdict(list)
    for name in _axis_names(fig, "x"):
        axis = fig.layout[name]
        anchor = _layout_key(axis.anchor, "y") if axis.anchor else "yaxis"
        if axis.domain is None or anchor not in fig.layout or not cats.get(name):
            continue
        bottom = (fig.layout[anchor].domain or (0, 1))[0]
        columns[tuple(axis.domain)].append((bottom, name))
    for rows in columns.values():
        if len(rows) < 2:
            continue
        rows.sort()
        lowest = rows[0][1]
        if any(set(cats[name]) != set(cats[lowest]) for _, name in rows):
            continue
        for _, name in rows[1:]:
            fig.layout[name].update(showticklabels=False, matches=lowest[0] + lowest[5:])
            fig.layout[name].title.text = None


def _legend_groups(fig: go.Figure) -> list[list[str]]:
    """The names of the legend's entries, by legend group, in drawing order."""
    groups: dict[str, list[str]] = {}
    for trace in fig.data:
        if trace.type not in _LEGEND_TYPES or not trace.name or trace.showlegend is False:
            continue
        groups.setdefault(trace.legendgroup or f"\0{len(groups)}", []).append(trace.name)
    return list(groups.values())


def _room_for_legend(fig: go.Figure) -> None:
    """Add the foot legend's estimated height to the figure's (groups side by side in lines
    of LEGEND_LINE_WIDTH_PX, a group's entries stacked)."""
    legend = fig.layout.legend
    at_foot = legend.orientation in (None, "h") and legend.y in (None, 0)
    groups = _legend_groups(fig)
    shown = sum(len(g) for g in groups) > 1 or any(t.showlegend for t in fig.data)
    if fig.layout.showlegend is False or not at_foot or not shown:
        return
    lines: list[int] = []  # height of each legend line
    used = LEGEND_LINE_WIDTH_PX
    for names in groups:
        width = LEGEND_SYMBOL_PX + LEGEND_CHAR_PX * max(len(n) for n in names)
        height = LEGEND_ENTRY_HEIGHT_PX * len(names) + LEGEND_GROUP_GAP_PX
        if used + width > LEGEND_LINE_WIDTH_PX:
            lines.append(height)
            used = 0
        lines[-1] = max(lines[-1], height)
        used += width
    fig.layout.height = (fig.layout.height or PLOTLY_DEFAULT_HEIGHT) + sum(lines)
