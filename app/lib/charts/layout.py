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
- the title and its subtitle (workload and configuration, common.with_subtitle) sit in a top
  margin made for them, the subtitle wrapped at " · " into lines of SUBTITLE_LINE_CHARS: they
  never run into the plot, the modebar or the legend, on screen or in an export;
- legend entries whose names all start with a number (`0% read`, `4K`, `16 VMs`) are listed
  in numeric order (0, 70, 100), not as text (0, 100, 70);
- long category tick labels are wrapped into a few horizontal lines where they fit, instead of
  Plotly's diagonal labels.
The legend's place (under the figure, below the tick labels and axis titles) is the
template's (`common.TEMPLATE`); `finish` makes the figure taller by the legend's estimated
height, so a long legend never squeezes the plot it explains.
"""

from __future__ import annotations

import re
import textwrap
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
# Title block, in px: space above the title, the title's line (16-17 px font), each subtitle
# line (about 12 px font) and the gap to the plot. A subtitle line holds about
# SUBTITLE_LINE_CHARS characters on a 1,000 px chart.
TITLE_TOP_PX = 14
TITLE_LINE_PX = 26
SUBTITLE_LINE_PX = 17
TITLE_GAP_PX = 16
SUBTITLE_LINE_CHARS = 120
SUBTITLE_SEPARATOR = " · "
# Tick labels: a category label is wrapped when longer than its slot (the axis' share of
# LEGEND_LINE_WIDTH_PX over its categories) holds, into at most TICK_MAX_LINES lines of at
# least TICK_MIN_CHARS characters; past that Plotly's rotation is the lesser evil.
TICK_MAX_LINES = 4
TICK_MIN_CHARS = 8
# A legend name that starts with a number, with an optional binary size suffix (4K, 1M).
_LEADING_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*([KMG](?![a-z]))?")
_SIZE_SUFFIX = {"K": 1024, "M": 1024**2, "G": 1024**3}


def finish(fig: go.Figure) -> go.Figure:
    """Apply the shared layout rules to `fig` (in place where Plotly allows) and return the
    figure to draw."""
    fig = _svg_when_small(fig)
    _hide_empty_axes(fig)
    _own_ticks_on_second_axes(fig)
    _legend_entry_per_trace(fig)
    _block_size_axes(fig)
    _share_category_rows(fig)
    _wrap_long_category_ticks(fig)
    _numeric_legend_order(fig)
    _room_for_title(fig)
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


def _subtitle_lines(text: str, width: int = SUBTITLE_LINE_CHARS) -> list[str]:
    """The subtitle's lines: its own `<br>` breaks, each line cut at " · " into lines of at
    most `width` characters; a part longer than that is cut after a ", " (a statement like
    "published: OIO 512, 16 VMs · measured: OIO 16, 1 VM" breaks between its sides, never
    inside one); a word longer than `width` stays whole. Plotly never wraps a subtitle, and
    an exported figure must not cut it off."""
    lines: list[str] = []
    for given in re.split(r"<br\s*/?>", text):
        parts: list[str] = []
        for part in given.split(SUBTITLE_SEPARATOR):
            parts += [part] if len(part) <= width else _joined(part.split(", "), ", ", width)
        lines += _joined(parts, SUBTITLE_SEPARATOR, width)
    return lines


def _joined(parts: list[str], sep: str, width: int) -> list[str]:
    """`parts` joined by `sep` into as few lines of at most `width` characters as they go."""
    out: list[str] = []
    for part in parts:
        if out and len(out[-1]) + len(sep) + len(part) <= width:
            out[-1] += sep + part
        else:
            out.append(part)
    return out


def _room_for_title(fig: go.Figure) -> None:
    """A figure with a subtitle: wrap it, pin the title block to the top of the figure and make
    the top margin its height (the figure grows by what the margin gains)."""
    title = fig.layout.title
    subtitle = title.subtitle.text if title and title.subtitle else None
    if not subtitle:
        return
    lines = _subtitle_lines(subtitle)
    title.subtitle.text = "<br>".join(lines)
    needed = TITLE_TOP_PX + TITLE_LINE_PX + SUBTITLE_LINE_PX * len(lines) + TITLE_GAP_PX
    title.update(yref="container", y=1, yanchor="top", pad={"t": TITLE_TOP_PX})
    current = fig.layout.margin.t
    if current is None:
        template = fig.layout.template
        current = template.layout.margin.t if template and template.layout.margin.t else 80
    if needed > current:
        fig.layout.margin.t = needed
        fig.layout.height = (fig.layout.height or PLOTLY_DEFAULT_HEIGHT) + needed - current


def _number_key(name: str) -> tuple[float, str] | None:
    """(the number a legend name starts with, the rest): `4K` -> (4096, ""), `70% read` ->
    (70, "% read"); None when it starts with no number."""
    match = _LEADING_NUMBER.match(name)
    if not match:
        return None
    number = float(match.group(1)) * _SIZE_SUFFIX.get(match.group(2) or "", 1)
    return number, name[match.end() :]


def _numeric_legend_order(fig: go.Figure) -> None:
    """When every legend entry's name starts with a number, rank the entries by it (a trace
    shares its rank with the traces of the same name); a builder's own ranks are kept."""
    entries = [
        t for t in fig.data if t.type in _LEGEND_TYPES and t.name and t.showlegend is not False
    ]
    if len({t.name for t in entries}) < 2 or any(
        t.legendrank not in (None, 1000) for t in fig.data if hasattr(t, "legendrank")
    ):
        return
    keys = {t.name: _number_key(t.name) for t in entries}
    if any(key is None for key in keys.values()):
        return
    rank = {name: i + 1 for i, name in enumerate(sorted(keys, key=lambda n: keys[n]))}
    for trace in fig.data:
        if trace.name in rank and hasattr(trace, "legendrank"):
            trace.legendrank = rank[trace.name]


def _wrapped(label: str, width: int) -> list[str]:
    return textwrap.wrap(label, width, break_long_words=False) or [label]


def _wrap_long_category_ticks(fig: go.Figure) -> None:
    """Category labels longer than their slot become a few horizontal lines (ticktext) when
    they fit in TICK_MAX_LINES lines; an axis with its own ticks or hidden labels is left."""
    for name, labels in _categories(fig).items():
        if not labels or name not in fig.layout:
            continue
        axis = fig.layout[name]
        if axis.showticklabels is False or axis.tickmode or axis.tickangle:
            continue
        share = (axis.domain[1] - axis.domain[0]) if axis.domain else 1.0
        chars = int(LEGEND_LINE_WIDTH_PX * share / len(labels) / LEGEND_CHAR_PX) - 1
        if max(len(label) for label in labels) <= chars or chars < TICK_MIN_CHARS:
            continue
        wrapped = [_wrapped(label, chars) for label in labels]
        if max(len(lines) for lines in wrapped) > TICK_MAX_LINES:
            continue
        axis.update(
            tickmode="array",
            tickvals=labels,
            ticktext=["<br>".join(lines) for lines in wrapped],
            tickangle=0,
        )
