"""Published vs measured: each published figure's measured value over its published value."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from app.lib.charts.common import (
    PALETTE,
    TEMPLATE,
    chart_context,
    empty_figure,
    plural,
    with_subtitle,
)

# One colour per status (Okabe-Ito): a match blue, a mismatch vermillion, ambiguous orange.
STATUS_COLORS = {"match": PALETTE[0], "mismatch": PALETTE[3], "ambiguous": PALETTE[1]}
ROW_HEIGHT = 18  # px per figure on the categorical axis: every figure id stays legible
# Qualifiers whose tolerance is a band around the printed value (half a unit of its last
# digit); "more than", "less than" figures hold on one side and get no whisker.
BANDED = ("exact", "approx")


def ratio_points(rows: pl.DataFrame) -> pl.DataFrame:
    """The figures the chart can draw (a measured value and a non-zero published one), with
    `ratio` = measured / published and the tolerance band around 1 (`band_low`,
    `band_high` = (published -/+ tolerance) / published; NULL for a one-sided qualifier),
    in the rows' order."""
    drawable = rows.filter(
        pl.col("measured_value").is_not_null()
        & pl.col("published_value").is_not_null()
        & (pl.col("published_value") != 0)
    )
    published = pl.col("published_value")
    tolerance = pl.col("tolerance").fill_null(0.0).abs()
    banded = pl.col("qualifier").is_in(BANDED) if "qualifier" in rows.columns else pl.lit(True)
    low = (published - tolerance) / published
    high = (published + tolerance) / published
    return drawable.with_columns(
        ratio=pl.col("measured_value") / published,
        band_low=pl.when(banded).then(pl.min_horizontal(low, high)),
        band_high=pl.when(banded).then(pl.max_horizontal(low, high)),
    )


def published_ratio_chart(
    points: pl.DataFrame,
    *,
    left_out: int = 0,
    title: str = "Measured / published per figure",
) -> go.Figure:
    """One marker per figure of `points` (ratio_points), at measured / published on x, the
    figure id on y in the rows' order, coloured by status; a whisker spans the figure's
    tolerance band (the printed digits' tolerance, exact and approximate figures). A
    logarithmic x axis when every ratio is positive. `left_out`: figures without a measured
    value, said in the subtitle."""
    note = f"{plural(left_out, 'figure')} without a measured value not drawn" if left_out else ""
    if points.is_empty():
        return with_subtitle(empty_figure(title), note)
    fig = go.Figure()
    for status, part in points.group_by("status", maintain_order=True):
        name = str(status[0])
        fig.add_trace(
            go.Scatter(
                x=part["ratio"].to_list(),
                y=part["figure_id"].to_list(),
                mode="markers",
                name=name,
                marker={"color": STATUS_COLORS.get(name, PALETTE[4]), "size": 9},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["band_high"] - part["ratio"]).clip(0).fill_null(0).to_list(),
                    "arrayminus": (part["ratio"] - part["band_low"]).clip(0).fill_null(0).to_list(),
                    "color": "#777777",
                    "thickness": 1,
                },
                customdata=part.select(
                    "metric", "value_as_printed", "unit", "measured_value"
                ).rows(),
                hovertemplate=(
                    "%{y}<br>%{customdata[0]}: published %{customdata[1]} %{customdata[2]}, "
                    "measured %{customdata[3]:.4g}<br>measured / published %{x:.4f}"
                    f"<br>{name}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=1, line_dash="dot", line_color="#444444")
    log = bool((points["ratio"] > 0).all())
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        hovermode="closest",
        xaxis_title="Measured / published (1 = equal; whisker: the printed digits' tolerance)",
        xaxis_type="log" if log else "linear",
        yaxis={
            "title": "Figure",
            # first figure on top; a fixed range, as autorange pads a category axis
            "range": [points.height - 0.5, -0.5],
            "type": "category",
            "categoryorder": "array",
            "categoryarray": points["figure_id"].to_list(),
        },
        height=160 + ROW_HEIGHT * points.height,
    )
    context = chart_context(points, keys=("testbed",))
    extra = [plural(points.height, "figure"), *([note] if note else [])]
    return with_subtitle(fig, context.subtitle(extra=extra))
