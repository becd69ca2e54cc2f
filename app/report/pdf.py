"""The report's PDF: weasyprint renders the report's own HTML (vector charts, text stays text).
Its creation and modification dates come from the HTML's `dcterms.created` /
`dcterms.modified` (the version's validation time), never the clock, so the same version
gives the same bytes apart from the "generated at" line. Only `data:` URLs and the charts may
be read: the page holds everything it shows, and nothing is fetched from a file or another host.

The page given to weasyprint shows each chart as `<img src="report-figure:N">` (`chart_url`),
served by `charts(N)` (the SVG markup) when weasyprint builds that image's box. Two reasons,
both about time: an inline SVG's every element and `style` attribute goes through the page's
CSS cascade as well as weasyprint's SVG renderer (a tenth of the Micron report's PDF time,
ten Plotly charts), an image's only through the renderer; and the page is parsed and styled
before any chart is asked for, so the charts can still be exporting meanwhile. The PDF is the
same, byte for byte, as with the SVGs inline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

CHART_SCHEME = "report-figure"


def chart_url(number: int) -> str:
    """Where the PDF's page finds figure `number`'s SVG."""
    return f"{CHART_SCHEME}:{number}"


def pdf_bytes(html: str, charts: Callable[[int], str] | None = None) -> bytes:
    """The PDF of `html`; `charts(number)` is figure `number`'s SVG markup, for the page's
    `chart_url` images. An error of `charts` stops the PDF and is raised as it is."""
    import weasyprint  # imported late: only a PDF needs it
    from weasyprint.urls import FatalURLFetchingError, URLFetcher, URLFetcherResponse

    class Fetcher(URLFetcher):
        def fetch(self, url: str, headers: dict[str, str] | None = None) -> URLFetcherResponse:
            scheme, _, number = url.partition(":")
            if charts is None or scheme != CHART_SCHEME:
                return super().fetch(url, headers)
            try:
                svg = charts(int(number))
            except Exception as exc:  # weasyprint would draw no chart and go on: stop it
                raise FatalURLFetchingError(url) from exc
            return URLFetcherResponse(url, svg, headers={"Content-Type": "image/svg+xml"})

    # weasyprint warns about every CSS property it ignores (Plotly's SVG styles): not ours.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    document = weasyprint.HTML(string=html, url_fetcher=Fetcher(allowed_protocols=("data",)))
    try:
        return document.write_pdf()
    except FatalURLFetchingError as exc:
        if exc.__cause__ is None:
            raise
        raise exc.__cause__ from None
