r"""esxtop batch captures: what the golden files cannot show or show only as digests.

What the parser makes of the four real samples (capture facts, counters, sample times, every
cell) is in tests/ingest/golden/esxtop (test_golden.py); the wide captures' counters and cells
are held there by column digests. Here: the quirks of those captures stated cell by cell (the
PCPU Power State repair, header splitting, the storage order), synthetic quirks, bad input, a
generated capture, the loader's DuckDB insert. Expected values were read from the sample files
by hand (`head -c`, `cut`), not copied from the parser's output.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import pytest

from ingest import writer as writer_module
from ingest.__main__ import main
from ingest.parsers import esxtop
from ingest.parsers.esxtop import rows as esxtop_rows
from ingest.records import Parsed
from ingest.sources import source_for
from synth.esxtop_wide import generate
from tests.conftest import SAMPLES
from tests.ingest.conftest import parse_bytes, parse_file, rejection

ESXTOP = SAMPLES / "esxtop"
BIG = "rach-sharp_esxtopd__esxtop-data.csv"
SMALL = "rach-sharp_esxtopd__small-esxtop-data.csv"
CR_ONLY = "gsliu_VisualEsxtopOnline__origincsv-cr-only-lineends.csv"
UTC = dt.UTC


def _parse_sample(name: str) -> Parsed:
    return parse_file(esxtop, ESXTOP / name)


def _parse_bytes(data: bytes, name: str = "capture.csv") -> Parsed:
    return parse_bytes(esxtop, data, f"/drop/{name}")


def _capture(parsed: Parsed) -> esxtop.EsxtopCapture:
    (capture,) = parsed.tables["esxtop_captures"]
    return capture


def _series(parsed: Parsed, header_suffix: str) -> list[float | None]:
    """Values of the one counter whose header ends with `header_suffix`, by sample_index."""
    counters = parsed.tables["esxtop_counters"].to_pylist()
    (counter_id,) = [c["counter_id"] for c in counters if c["header"].endswith(header_suffix)]
    rows = [r for r in parsed.tables["esxtop_samples"].to_pylist() if r["counter_id"] == counter_id]
    return [r["value"] for r in sorted(rows, key=lambda r: r["sample_index"])]


# ---------------------------------------------------------- the wide real capture, cell by cell


def test_pcpu_power_state_padded_cells_get_their_missing_comma():
    # GIVEN `..."T-State T7",   -"\\localhost.home\PCPU Power State(PCPU 1)\%C-State C0"...`
    # and rows `..."0.00",    73.1"8.93",...` (no comma after the padded cell)
    parsed = _parse_sample(BIG)
    dashes = [c for c in parsed.tables["esxtop_counters"].to_pylist() if c["is_name_inferred"]]
    # THEN both `-` cells are counters named after the PCPU block they close
    assert [(c["column_index"], c["instance"], c["counter"], c["header"]) for c in dashes] == [
        (17_398, "PCPU 0", "-", "   -"),
        (17_427, "PCPU 1", "-", "   -"),
    ]
    assert {c["host"] for c in dashes} == {"localhost.home"}
    assert {c["object_group"] for c in dashes} == {"PCPU Power State"}
    values = parsed.tables["esxtop_samples"].to_pylist()
    by_cell = {(r["sample_index"], r["counter_id"]): r["value"] for r in values}
    assert [by_cell[(i, 17_397)] for i in range(3)] == [73.1, 70.2, 68.5]
    assert [by_cell[(i, 17_426)] for i in range(3)] == [73.3, 77.6, 73.9]
    # AND the cell after the repaired one is the next counter, not glued to it
    assert [by_cell[(i, 17_398)] for i in range(3)] == [8.93, 10.94, 8.02]
    assert any("missing commas" in note for note in parsed.notes)


def test_header_cells_are_split_into_host_group_instance_counter():
    counters = {c["header"]: c for c in _parse_sample(BIG).tables["esxtop_counters"].to_pylist()}

    def split(header: str) -> tuple:
        c = counters[header]
        return c["host"], c["object_group"], c["instance"], c["counter"]

    assert split(r"\\localhost.home\Memory\Free MBytes") == (
        "localhost.home",
        "Memory",
        None,
        "Free MBytes",
    )
    assert split(r"\\localhost.home\Physical Cpu Load\Cpu Load (5 Minute Avg)") == (
        "localhost.home",
        "Physical Cpu Load",
        None,
        "Cpu Load (5 Minute Avg)",
    )
    assert split(
        r"\\localhost.home\Network Port(vSwitch0:33554435:Shadow of vmnic0)\Link Speed (Mb/s)"
    ) == (
        "localhost.home",
        "Network Port",
        "vSwitch0:33554435:Shadow of vmnic0",
        "Link Speed (Mb/s)",
    )
    assert split(r"\\localhost.home\Virtual Disk(poseidon:scsi0:0)\Average MilliSec/Write")[2:] == (
        "poseidon:scsi0:0",
        "Average MilliSec/Write",
    )


# ---------------------------------------------------------------- synthetic quirks

H = r"\\esx01.lab\Physical Cpu(_Total)\% Util Time"
H2 = r"\\esx01.lab\Memory\Free MBytes"


def _csv(lines: list[str], end: str = "\n") -> bytes:
    return (end.join(lines) + end).encode()


def test_semicolon_locale_copy_with_decimal_comma():
    # A UTF-8 byte-order mark, as a spreadsheet's "CSV UTF-8" save writes it.
    data = b"\xef\xbb\xbf" + _csv(
        [
            f'"(PDH-CSV 4.0) (UTC)(0)";"{H}";"{H2}"',
            '"04/24/2018 10:49:12";"8,95";"1234"',
            '"04/24/2018 10:49:17";"9,38";"1235,5"',
        ]
    )
    parsed = _parse_bytes(data)
    assert _capture(parsed).dialect == "semicolon"
    assert _series(parsed, r"\% Util Time") == [8.95, 9.38]
    assert _series(parsed, r"\Free MBytes") == [1234.0, 1235.5]


def test_truncated_last_row_is_dropped_with_a_note():
    data = (
        f'"(PDH-CSV 4.0) (UTC)(0)","{H}","{H2}"\n'
        '"04/24/2018 10:49:12","8.95","1234"\n'
        '"04/24/2018 10:49:17","9.38","1235"\n'
        '"04/24/2018 10:49:22","9.'
    ).encode()
    parsed = _parse_bytes(data)
    capture = _capture(parsed)
    assert (capture.sample_count, capture.dropped_rows) == (2, 1)
    assert parsed.notes == [
        "dropped truncated last row (line 4): 2 fields where the header has 3; "
        "the capture was cut mid-row (esxtop stopped mid-write)"
    ]
    assert _series(parsed, r"\% Util Time") == [8.95, 9.38]


def test_unterminated_last_row_with_all_fields_is_kept():
    data = f'"(PDH-CSV 4.0) (UTC)(0)","{H}"\n"04/24/2018 10:49:12","8.95"'.encode()
    parsed = _parse_bytes(data)
    assert _capture(parsed).dropped_rows == 0
    assert _series(parsed, r"\% Util Time") == [8.95]


def test_trailing_column_with_values_is_kept_as_a_nameless_counter():
    data = _csv(
        [
            f'"(PDH-CSV 4.0) (UTC)(0)","{H}",',
            '"04/24/2018 10:49:12","8.95",',
            '"04/24/2018 10:49:17","9.38","7"',
        ]
    )
    parsed = _parse_bytes(data)
    capture = _capture(parsed)
    assert (capture.column_count, capture.empty_cells) == (2, 1)
    last = parsed.tables["esxtop_counters"].to_pylist()[-1]
    assert (last["header"], last["is_name_inferred"]) == ("", True)
    assert _series(parsed, r"\% Util Time") == [8.95, 9.38]
    values = sorted(
        (r["sample_index"], r["value"])
        for r in parsed.tables["esxtop_samples"].to_pylist()
        if r["counter_id"] == 1
    )
    assert values == [(0, None), (1, 7.0)]
    assert any("no header but 1 values" in note for note in parsed.notes)


def test_samples_are_counter_major_snaking_over_the_rows():
    # Storage, not meaning: DuckDB compresses this order to ~0.3x the CSV (see bench_esxtop).
    samples = _parse_sample(SMALL).tables["esxtop_samples"].slice(0, 9).to_pylist()
    assert [(r["counter_id"], r["sample_index"]) for r in samples] == [
        (0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0), (2, 0), (2, 1), (2, 2)
    ]  # fmt: skip


def test_several_hosts_in_one_file():
    data = _csv(
        [
            '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01.lab\\Physical Cpu(_Total)\\% Util Time",'
            '"\\\\esx02.lab\\Physical Cpu(_Total)\\% Util Time"',
            '"04/24/2018 10:49:12","8.95","51.20"',
        ]
    )
    parsed = _parse_bytes(data)
    capture = _capture(parsed)
    assert (capture.host_count, json.dumps(capture.hosts_json)) == (2, '["esx01.lab", "esx02.lab"]')
    assert _series(parsed, r"esx02.lab\Physical Cpu(_Total)\% Util Time") == [51.2]


def test_empty_and_non_numeric_cells_are_kept_and_counted():
    data = _csv(
        [
            f'"(PDH-CSV 4.0) (UTC)(0)","{H}","{H2}"',
            '"04/24/2018 10:49:12","","1234"',
            '"04/24/2018 10:49:17","9.38","n/a"',
        ]
    )
    parsed = _parse_bytes(data)
    capture = _capture(parsed)
    assert (capture.cell_count, capture.empty_cells, capture.malformed_cells) == (4, 1, 1)
    assert _series(parsed, r"\% Util Time") == [None, 9.38]
    assert _series(parsed, r"\Free MBytes") == [1234.0, None]
    assert parsed.tables["esxtop_malformed_cells"] == [
        esxtop.EsxtopMalformedCell(sample_index=1, counter_id=1, line_number=3, cell_text="n/a")
    ]


def test_instance_names_with_parentheses_and_backslashes():
    header = r"\\esx01.lab\Group Cpu(1234:my vm (copy)\x)\% Used"
    data = _csv([f'"(PDH-CSV 4.0) (UTC)(0)","{header}"', '"04/24/2018 10:49:12","3.5"'])
    (counter,) = _parse_bytes(data).tables["esxtop_counters"].to_pylist()
    assert (counter["object_group"], counter["instance"], counter["counter"]) == (
        "Group Cpu",
        r"1234:my vm (copy)\x",
        "% Used",
    )


def test_pdh_bias_shifts_local_time_to_utc():
    data = _csv(
        [f'"(PDH-CSV 4.0) (Pacific Standard Time)(480)","{H}"', '"04/24/2018 10:49:12","8.95"']
    )
    parsed = _parse_bytes(data)
    assert _capture(parsed).utc_offset_min == 480
    assert parsed.tables["esxtop_sample_times"][0].sampled_at == dt.datetime(
        2018, 4, 24, 18, 49, 12, tzinfo=UTC
    )


def test_time_only_stamps_roll_over_midnight():
    data = _csv([f"(PDH-CSV 4.0) (UTC)(0),{H}", "23:59:58,1", "00:00:03,2"], end="\r")
    times = _parse_bytes(data).tables["esxtop_sample_times"]
    assert [t.sampled_at for t in times] == [
        dt.datetime(1970, 1, 1, 23, 59, 58, tzinfo=UTC),
        dt.datetime(1970, 1, 2, 0, 0, 3, tzinfo=UTC),
    ]


# ---------------------------------------------------------------- detection and bad input


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        pytest.param(ESXTOP / BIG, True, id="quoted-sample"),
        pytest.param(ESXTOP / CR_ONLY, True, id="unquoted-sample"),
        pytest.param(b'\xef\xbb\xbf"(PDH-CSV 4.0) (UTC)(0)","x"\n', True, id="utf8-bom"),
        pytest.param(b'{\n  "fio version" : "fio-3.36",\n', False, id="fio-json"),
        pytest.param(b"timestamp,value\n1,2\n", False, id="other-csv"),
        pytest.param(b"", False, id="empty"),
    ],
)
def test_detect(head, expected):
    if isinstance(head, Path):
        head = head.read_bytes()[:65536]
    assert esxtop.detect(head, "whatever.csv") is expected


BAD = [
    pytest.param(
        b"timestamp,value\n1,2\n", "line 1, column 1", "not an esxtop capture", id="not-esxtop"
    ),
    pytest.param(
        f'"(PDH-CSV 4.0) (UTC)(0)","{H}"\n'.encode(), "line 2", "no sample rows", id="header-only"
    ),
    pytest.param(
        f'"(PDH-CSV 4.0) (UTC)(0)","{H}"'.encode(), "line 2", "no sample rows", id="no-line-end"
    ),
    pytest.param(b"", "line 1", "empty file", id="empty"),
    pytest.param(
        _csv(['"(PDH-CSV 4.0) (UTC)(0)","x y z","1 2 3"', '"04/24/2018 10:49:12","1","2"']),
        "line 1",
        "no header cell of the form",
        id="garbage-header",
    ),
    pytest.param(
        _csv(
            [
                f'"(PDH-CSV 4.0) (UTC)(0)","{H}","{H2}"',
                '"04/24/2018 10:49:12","1","2"',
                '"04/24/2018 10:49:17","1"',
                '"04/24/2018 10:49:22","1","2"',
            ]
        ),
        "line 3",
        "2 fields where the header has 3",
        id="short-row-mid-file",
    ),
    pytest.param(
        _csv([f'"(PDH-CSV 4.0) (UTC)(0)","{H}"', '"yesterday","1"']),
        "line 2, column 1",
        "unreadable sample time 'yesterday'",
        id="bad-timestamp",
    ),
    pytest.param(
        _csv(
            [
                f'"(PDH-CSV 4.0) (UTC)(0)","{H}"',
                '"04/24/2018 10:49:12","1"',
                f'"(PDH-CSV 4.0) (UTC)(0)","{H}"',
                '"04/24/2018 10:49:17","1"',
            ]
        ),
        "line 3, column 1",
        "a second header: concatenated captures",
        id="concatenated-captures",
    ),
    pytest.param(
        _csv([f'"(PDH-CSV 4.0) (UTC)(0)"|"{H}"', '"04/24/2018 10:49:12"|"1"']),
        "line 1",
        "header has no ',' or ';'",
        id="unknown-delimiter",
    ),
]


@pytest.mark.parametrize(("data", "location", "reason"), BAD)
def test_bad_input_raises_parse_error_with_location(data, location, reason):
    error = rejection(esxtop, data, source_for("/drop/bad.csv", data))
    assert error.path == "/drop/bad.csv"
    assert error.location == location
    assert reason in error.reason


# ---------------------------------------------------------------- generated capture, loader path


@pytest.mark.parametrize(
    ("dialect", "quirks", "hosts"),
    [
        pytest.param("quoted", (), 1, id="quoted"),
        pytest.param(
            "quoted",
            ("trailing_comma", "truncated_last_row", "empty_cells", "malformed_cells"),
            2,
            id="quoted-quirks-2-hosts",
        ),
        pytest.param("semicolon", ("cr_line_ends", "empty_cells"), 1, id="semicolon-cr"),
        pytest.param("excel", (), 1, id="excel"),
    ],
)
def test_generated_2000_column_capture_round_trips(tmp_path: Path, dialect, quirks, hosts):
    made = generate(
        tmp_path / "capture.csv",
        columns=2_000,
        rows=30,
        hosts=hosts,
        dialect=dialect,
        quirks=quirks,
    )
    parsed = _parse_bytes(made.path.read_bytes())
    capture = _capture(parsed)
    assert (
        (capture.column_count, capture.sample_count)
        == (made.columns, made.rows)
        == (2_000, made.rows)
    )
    assert (capture.empty_cells, capture.malformed_cells) == (
        made.empty_cells,
        made.malformed_cells,
    )
    assert tuple(capture.hosts_json) == made.hosts
    assert capture.dropped_rows == (1 if "truncated_last_row" in quirks else 0)
    samples = parsed.tables["esxtop_samples"]
    assert samples.num_rows == made.columns * made.rows
    assert samples.column("value").null_count == made.empty_cells + made.malformed_cells
    pairs = duckdb.sql("select count(distinct (sample_index, counter_id)) from samples").fetchone()
    assert pairs == (samples.num_rows,)


@pytest.mark.parametrize("source", ["real", "generated-quirks"])
def test_many_slices_parsed_at_once_give_the_rows_of_one_slice(tmp_path, monkeypatch, source):
    # GIVEN the wide real capture, or a generated one with empty and malformed cells and a cut
    # last row, read in slices of a few lines (several slices in flight on the parser threads,
    # the last one of another shape) and in one slice
    if source == "real":  # 3 samples, a slice each
        data, lines_per_slice = (ESXTOP / BIG).read_bytes(), 1
    else:  # 32 samples and the cut row: slices of 3 lines, the last of 2 samples
        quirks = ("empty_cells", "malformed_cells", "truncated_last_row")
        made = generate(tmp_path / "c.csv", columns=2_000, rows=33, quirks=quirks)
        data, lines_per_slice = made.path.read_bytes(), 3
    whole = _parse_bytes(data)
    line_bytes = len(data.split(b"\n")[1])
    monkeypatch.setattr(esxtop_rows, "CHUNK_BYTES", lines_per_slice * line_bytes)
    monkeypatch.setattr(esxtop_rows, "MIN_SLICE_ROWS", 1)
    sliced = _parse_bytes(data)
    # THEN several slices were made (each counter-major in itself) and every table holds the
    # same rows
    assert len(sliced.tables["esxtop_samples"].to_batches()) >= 3
    assert _cells(sliced) == _cells(whole)
    assert sliced.tables["esxtop_counters"] == whole.tables["esxtop_counters"]
    for name in ("esxtop_captures", "esxtop_sample_times", "esxtop_malformed_cells"):
        assert sliced.tables[name] == whole.tables[name]
    assert sliced.notes == whole.notes
    if source != "real":
        assert _capture(sliced).malformed_cells == made.malformed_cells > 0


def _place(cell: tuple[int, int, float | None]) -> tuple[int, int]:
    return cell[0], cell[1]


def _cells(parsed: Parsed) -> list[tuple[int, int, float | None]]:
    rows = parsed.tables["esxtop_samples"].to_pylist()
    return sorted(((r["sample_index"], r["counter_id"], r["value"]) for r in rows), key=_place)


def test_samples_insert_into_duckdb_as_the_loader_does():
    con = duckdb.connect()
    con.register("arrow_table", _parse_sample(SMALL).tables["esxtop_samples"])
    con.execute(
        "create table esxtop_samples (sample_index integer, counter_id integer, value double, "
        "_source_file_id bigint)"
    )
    con.execute("insert into esxtop_samples select *, ? as _source_file_id from arrow_table", [7])
    total_util = con.execute(
        "select count(*), sum(value) filter (where counter_id = 11) from esxtop_samples"
    ).fetchone()
    # counter 11 is column 12, `Physical Cpu(_Total)\% Util Time`: 10.48, 7.71, 8.35
    assert total_util == (22_890, pytest.approx(10.48 + 7.71 + 8.35))


def test_loader_stores_every_cell_of_sliced_captures_under_their_file_ids(tmp_path, monkeypatch):
    # GIVEN a generated capture and the small real one, read in slices of about 3 lines, so
    # their rows reach DuckDB as Arrow chunks big enough to be handed over as they are (not
    # combined), both loaded in one run of the loader, one writer batch
    quirks = ("empty_cells", "malformed_cells", "truncated_last_row")
    made = generate(tmp_path / "in" / "sliced.csv", columns=2_000, rows=33, quirks=quirks)
    (tmp_path / "in" / SMALL).write_bytes((ESXTOP / SMALL).read_bytes())
    line_bytes = len(made.path.read_bytes().split(b"\n")[1])
    monkeypatch.setattr(esxtop_rows, "CHUNK_BYTES", 3 * line_bytes)
    monkeypatch.setattr(esxtop_rows, "MIN_SLICE_ROWS", 1)
    monkeypatch.setattr(writer_module, "_BIG_CHUNK_ROWS", 1_000)
    parsed = {
        name: _parse_bytes(path.read_bytes(), name)
        for name, path in (("sliced.csv", made.path), (SMALL, ESXTOP / SMALL))
    }
    handed_over: list[int] = []  # chunks of each table given to DuckDB

    def scan_ready(tabs):
        table = scan_ready_as_written(tabs)
        handed_over.append(table.column(0).num_chunks)
        return table

    scan_ready_as_written = writer_module._scan_ready
    monkeypatch.setattr(writer_module, "_scan_ready", scan_ready)
    db = tmp_path / "wh.duckdb"
    assert main(["load", str(tmp_path / "in"), "--db", str(db), "--quiet"]) == 0
    # THEN the samples went over as the slices they were parsed in
    slices = sum(len(p.tables["esxtop_samples"].to_batches()) for p in parsed.values())
    assert max(handed_over) == slices >= 10
    # AND each file's stored cells are the parser's, cell for cell, under the file's own id
    with duckdb.connect(str(db), read_only=True) as con:
        ids = dict(con.execute("select name, source_file_id from raw.source_files").fetchall())
        assert sorted(ids) == sorted(parsed)
        for name, one in parsed.items():
            stored = con.execute(
                "select sample_index, counter_id, value from raw.esxtop_samples "
                "where _source_file_id = ? order by sample_index, counter_id",
                [ids[name]],
            ).fetchall()
            assert stored == _cells(one)
        total = con.execute("select count(*) from raw.esxtop_samples").fetchone()
    # 32 whole rows of the generated capture (its cut last row dropped), 3 of the real one
    assert total == (2_000 * 32 + 7_630 * 3,)


def test_fuzz_regression_cell_that_is_not_utf8_is_a_parse_error() -> None:
    # GIVEN a real Excel re-save with a 0xFF byte in a cell of its first sample (found by
    # fuzzing: pyarrow raised ArrowInvalid instead of a clean rejection)
    name = "gsliu_VisualEsxtopOnline__origincsvfile-excel-resaved.csv"
    lines = (ESXTOP / name).read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b",", b",\xff", 1)
    data = b"\n".join(lines)
    error = rejection(esxtop, data, source_for(f"/x/{name}", data))
    assert error.location == "line 2"
    assert error.reason == "a cell is not UTF-8 text"
