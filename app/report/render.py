"""The report as one self-contained HTML page: Jinja2 template, the stylesheet inline, every
chart an inline SVG, every CSV a `data:` URL. Nothing refers to another host. The page the PDF
is made of (`linked_charts`) is the same but for each chart: an image whose SVG weasyprint asks
the report for (app.report.pdf)."""

from __future__ import annotations

import base64
from importlib import resources

import jinja2

from app.report.pdf import chart_url
from app.report.section import Cover, Section

GENERATED_PREFIX = '<p class="generated">Generated at '


def _csv_url(text: str) -> str:
    return "data:text/csv;charset=utf-8;base64," + base64.b64encode(text.encode()).decode()


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("app.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["csv_url"] = _csv_url
    env.filters["chart_url"] = chart_url
    return env


def html(
    cover: Cover,
    sections: list[Section],
    *,
    draft: bool,
    generated_at: str,
    meta_date: str,
    linked_charts: bool = False,
) -> str:
    """The page; with `linked_charts`, each chart an `<img>` of `pdf.chart_url` (no figure
    needs its SVG yet), else its SVG inline."""
    css = resources.files("app.report").joinpath("templates/report.css").read_text("utf-8")
    description = "; ".join(f"{name}: {value}" for name, value in cover.facts)
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            cover=cover,
            sections=sections,
            draft=draft,
            generated_at=generated_at,
            meta_date=meta_date,
            css=css,
            description=description,
            linked_charts=linked_charts,
        )
    )


def without_generated_line(text: str) -> str:
    """`text` without its one "generated at" line (what two reports of a version differ in)."""
    return "\n".join(line for line in text.splitlines() if GENERATED_PREFIX not in line)
