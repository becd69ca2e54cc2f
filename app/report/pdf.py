"""The report's PDF: weasyprint renders the report's own HTML (inline SVG stays vector, text
stays text). Its creation and modification dates come from the HTML's `dcterms.created` /
`dcterms.modified` (the version's validation time), never the clock, so the same version
gives the same bytes apart from the "generated at" line. Only `data:` URLs may be read: the
page holds everything it shows, and nothing is fetched from a file or another host."""

from __future__ import annotations

import logging


def pdf_bytes(html: str) -> bytes:
    import weasyprint  # imported late: only a PDF needs it
    from weasyprint.urls import URLFetcher

    # weasyprint warns about every CSS property it ignores (Plotly's SVG styles): not ours.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    fetcher = URLFetcher(allowed_protocols=("data",))
    document = weasyprint.HTML(string=html, url_fetcher=fetcher)
    return document.write_pdf()
