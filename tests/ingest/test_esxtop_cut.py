r"""esxtop captures cut at the end (esxtop stopped mid-write) and captures holding a counter twice.

Every case starts from a real capture in ../shared/samples/esxtop, cut or edited at run time.
Expected values are the sample's own cells (`Physical Cpu(_Total)\% Util Time` of the 2018
capture is 8.95, 9.38, 8.48 in its three rows), read from the file, not from the parser.
"""

from __future__ import annotations

import csv
import io

import pytest

from ingest.parsers import esxtop
from ingest.records import Parsed
from ingest.sources import source_for
from tests.conftest import SAMPLES
from tests.ingest.conftest import parse_bytes, rejection

ESXTOP = SAMPLES / "esxtop"
BIG = (ESXTOP / "rach-sharp_esxtopd__esxtop-data.csv").read_bytes()
SMALL = (ESXTOP / "rach-sharp_esxtopd__small-esxtop-data.csv").read_bytes()
CR_ONLY = (ESXTOP / "gsliu_VisualEsxtopOnline__origincsv-cr-only-lineends.csv").read_bytes()
TOTAL_UTIL = r"\Physical Cpu(_Total)\% Util Time"
CUT_NOTE = "the capture was cut mid-row (esxtop stopped mid-write)"


def _last_row_start(data: bytes, term: bytes) -> int:
    return data.rstrip(term).rfind(term) + len(term)


def _capture(parsed: Parsed) -> esxtop.EsxtopCapture:
    (capture,) = parsed.tables["esxtop_captures"]
    return capture


def _series(parsed: Parsed, suffix: str = TOTAL_UTIL) -> list[float | None]:
    counters = parsed.tables["esxtop_counters"].to_pylist()
    (counter_id,) = [c["counter_id"] for c in counters if c["header"].endswith(suffix)]
    rows = [r for r in parsed.tables["esxtop_samples"].to_pylist() if r["counter_id"] == counter_id]
    return [r["value"] for r in sorted(rows, key=lambda r: r["sample_index"])]


def _column_of(data: bytes, term: str, suffix: str) -> list[float]:
    """A column of the file as the csv module reads it (independent of the parser)."""
    lines = data.decode().split(term)
    rows = list(csv.reader(io.StringIO("\n".join(line for line in lines if line))))
    (index,) = [i for i, cell in enumerate(rows[0]) if cell.endswith(suffix)]
    return [float(row[index]) for row in rows[1:]]


LAST = _last_row_start(BIG, b"\n")

# (id, bytes kept of the 2018 capture, extra bytes, samples kept, note expected)
BIG_CUTS = [
    ("row-boundary", LAST, b"", 2, None),
    ("inside-stamp", LAST + 5, b"", 2, "1 fields where the header has 17428"),
    ("after-stamp", LAST + 24, b"", 2, "2 fields where the header has 17428"),
    ("mid-row", LAST + (len(BIG) - LAST) // 2, b"", 2, "8729 fields where the header has 17428"),
    # the reported failure: the cut row got a line end (a copy, an editor, a shell)
    ("mid-row-then-lf", LAST + (len(BIG) - LAST) // 2, b"\n", 2, "8729 fields where"),
    # inside the last quoted cell, before the padded PCPU Power State cells that end the row
    ("inside-last-quoted-cell", BIG.rfind(b'"', 0, len(BIG) - 20) - 2, b"", 2, "17425 fields"),
    # `    73.9` cut to `    73`: every field is there but the last may be short
    ("inside-last-cell", len(BIG) - 3, b"", 2, "after a cell that may be cut"),
    ("no-final-line-end", len(BIG) - 1, b"", 2, "after a cell that may be cut"),
    ("whole", len(BIG), b"", 3, None),
]


@pytest.mark.parametrize(
    ("keep", "extra", "samples", "note"), [pytest.param(*c[1:], id=c[0]) for c in BIG_CUTS]
)
def test_capture_cut_in_its_last_row_keeps_the_whole_rows(keep, extra, samples, note):
    parsed = parse_bytes(esxtop, BIG[:keep] + extra, "/drop/cut.csv")
    capture = _capture(parsed)
    expected = _column_of(BIG, "\n", TOTAL_UTIL)[:samples]
    assert expected[:3] == [8.95, 9.38, 8.48][:samples]
    assert _series(parsed) == expected
    assert (capture.sample_count, capture.column_count) == (samples, 17_427)
    assert capture.cell_count == samples * 17_427
    assert capture.last_sampled_at.isoformat() == (
        "2018-04-24T10:49:22+00:00" if samples == 3 else "2018-04-24T10:49:17+00:00"
    )
    drops = [n for n in parsed.notes if n.startswith("dropped truncated last row")]
    if note is None:
        assert (capture.dropped_rows, drops) == (0, [])
    else:
        assert capture.dropped_rows == 1
        (drop,) = drops
        assert drop.startswith("dropped truncated last row (line 4): ")
        assert note in drop and CUT_NOTE in drop


@pytest.mark.parametrize(
    ("data", "keep_back", "samples"),
    [
        # trailing-comma capture: a last line ending in its delimiter is whole
        pytest.param(SMALL, 1, 3, id="small-ends-with-delimiter"),
        pytest.param(SMALL, 2, 2, id="small-cut-before-last-delimiter"),
        # unquoted CR-only copy: without its CR the last cell may be cut
        pytest.param(CR_ONLY, 1, 99, id="cr-only-no-final-cr"),
        pytest.param(CR_ONLY, 4, 99, id="cr-only-inside-last-cell"),
    ],
)
def test_unterminated_last_row_is_kept_only_when_its_end_shows_it_whole(data, keep_back, samples):
    parsed = parse_bytes(esxtop, data[:-keep_back], "/drop/cut.csv")
    capture = _capture(parsed)
    assert capture.sample_count == samples
    assert capture.dropped_rows == (0 if samples in (3, 100) else 1)


def test_cr_only_capture_cut_keeps_its_real_host_cpu():
    parsed = parse_bytes(esxtop, CR_ONLY[:-4], "/drop/cut.csv")
    expected = _column_of(CR_ONLY, "\r", TOTAL_UTIL)
    assert expected[:3] == [32.64, 28.33, 14.0]
    assert _series(parsed) == expected[:99]


def test_broken_row_in_the_middle_rejects_the_capture():
    lines = BIG.split(b"\n")
    data = b"\n".join([lines[0], lines[1], lines[2][: len(lines[2]) // 2], lines[3], b""])
    error = rejection(esxtop, data, source_for("/drop/broken.csv", data))
    assert error.location == "line 3"
    assert error.reason.startswith("8")
    assert "fields where the header has 17428; only a cut last row can be dropped" in error.reason


# ---------------------------------------------------------------- a counter column twice


def _with_duplicate_column(data: bytes, term: bytes, source: str, copied_from: str) -> bytes:
    """Append, to every line, a copy of the `source` header and `copied_from`'s values."""
    lines = data.split(term)
    header = lines[0].split(b",")
    (src,) = [i for i, c in enumerate(header) if c.decode().endswith(source)]
    (other,) = [i for i, c in enumerate(header) if c.decode().endswith(copied_from)]
    out = [lines[0] + b"," + header[src]]
    out += [line + b"," + line.split(b",")[other] if line else line for line in lines[1:]]
    return term.join(out)


def test_duplicated_total_util_column_keeps_the_first_with_a_note():
    # the copy carries `% Processor Time` values, so using it would change host CPU
    data = _with_duplicate_column(CR_ONLY, b"\r", TOTAL_UTIL, r"_Total)\% Processor Time")
    parsed = parse_bytes(esxtop, data, "/drop/dup.csv")
    capture = _capture(parsed)
    assert (capture.column_count, capture.sample_count, capture.cell_count) == (6, 100, 600)
    assert _series(parsed) == _column_of(CR_ONLY, "\r", TOTAL_UTIL)
    counters = parsed.tables["esxtop_counters"].to_pylist()
    assert [c["counter_id"] for c in counters] == [0, 1, 2, 3, 4, 5]
    assert {r["counter_id"] for r in parsed.tables["esxtop_samples"].to_pylist()} == set(range(6))
    (note,) = [n for n in parsed.notes if "repeat an earlier column" in n]
    assert note == (
        "1 counter columns repeat an earlier column: dropped, the first kept (e.g. column 8, "
        r"\\proma-2n-dhcp60.eng.vmware.com\Physical Cpu(_Total)\% Util Time, repeats column 7)"
    )


def test_duplicated_column_cells_leave_the_empty_and_malformed_counts():
    # the copied column holds one empty and one non-numeric cell: neither is counted
    data = _with_duplicate_column(CR_ONLY, b"\r", TOTAL_UTIL, TOTAL_UTIL)
    lines = data.split(b"\r")
    lines[1] = lines[1].rsplit(b",", 1)[0] + b","
    lines[2] = lines[2].rsplit(b",", 1)[0] + b",n/a"
    parsed = parse_bytes(esxtop, b"\r".join(lines), "/drop/dup.csv")
    capture = _capture(parsed)
    assert (capture.empty_cells, capture.malformed_cells) == (0, 0)
    assert parsed.tables["esxtop_malformed_cells"] == []


def test_last_line_ending_inside_a_quoted_cell_is_dropped():
    # the 2018 capture's first two columns, its last row cut inside its second cell's quotes
    lines = BIG.split(b"\n")
    two = [b",".join(line.split(b",")[:2]) for line in lines[:4]]
    data = b"\n".join([*two[:3], two[3][:-2]])
    assert data.endswith(b'"04/24/2018 10:49:22","0.7')
    parsed = parse_bytes(esxtop, data, "/drop/cut.csv")
    assert _capture(parsed).sample_count == 2
    assert _series(parsed, r"\Memory Overcommit (1 Minute Avg)") == [0.78, 0.78]
    assert parsed.notes == [
        "dropped truncated last row (line 4): the file ends inside a quoted cell; " + CUT_NOTE
    ]


def test_crlf_capture_cut_between_cr_and_lf_keeps_its_last_row():
    # the 2018 capture's first two columns written with CRLF, the final LF lost
    lines = BIG.split(b"\n")
    two = [b",".join(line.split(b",")[:2]) for line in lines[:4]]
    data = b"\r\n".join(two) + b"\r"
    parsed = parse_bytes(esxtop, data, "/drop/crlf.csv")
    capture = _capture(parsed)
    assert (capture.line_ending, capture.sample_count, capture.dropped_rows) == ("crlf", 3, 0)
    assert _series(parsed, r"\Memory Overcommit (1 Minute Avg)") == [0.78, 0.78, 0.78]
