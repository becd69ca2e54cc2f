"""Text encodings and the reasons a file is skipped.

PowerShell's `>` writes UTF-16LE with a byte-order mark (Get-VsanStat CSV, a report copied
through a Windows console); Excel and Notepad write UTF-8 with a mark. The loader converts such
files to UTF-8 once, before detection, so each parser reads the same rows as from the UTF-8
original. The inputs here are real samples (and the Get-VsanStat fixture) converted with
`iconv`; the rows loaded from each copy are compared with those loaded from the original.
"""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main
from ingest.parsers._common import normalize_text_encoding
from ingest.registry import HEAD_BYTES, detect_format, unsupported_reason
from ingest.sources import sha256_hex
from tests.conftest import FIXTURES, SAMPLES

POWERCLI_CSV = FIXTURES / "vsan_perfsvc" / "valid" / "get-vsanstat_export.csv"
PERFSVC_JSON = (
    SAMPLES
    / "vsan_perfsvc"
    / "generated-locally"
    / "pyvmomi-9.1.1.0__VsanPerfEntityMetricCSV_array__VmomiJSONEncoder.json"
)
VDBENCH = SAMPLES / "vdbench"
VDB_SUMMARY = (
    VDBENCH / "TheOtherOtherOperation_vdbconvert__vdbench50401_raw_2hosts_3RDs_avg_2-60_"
    "old_layout_cpu_cols__summary.html"
)
FIO_JSON = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"
HISTOGRAM = VDBENCH / "tiger7z_vdbench_for_mac_m1__vdbench50407_resp_time_buckets__histogram.html"
PARMFILE = (
    VDBENCH / "TheOtherOtherOperation_vdbconvert__vdbench50401_raw_sd_51wds_3rds__parmfile.html"
)


def iconv(source: Path, target: Path, encoding: str, bom: bytes = b"") -> Path:
    """`source` re-encoded by iconv (glibc's `UTF-16` writes a little-endian BOM)."""
    converted = subprocess.run(
        ["iconv", "-f", "UTF-8", "-t", encoding, str(source)], check=True, capture_output=True
    ).stdout
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bom + converted)
    return target


def raw_rows(db: Path) -> dict[str, list[tuple]]:
    """Every raw table's rows without the source-file id, sorted."""
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [
            t
            for (t,) in con.execute(
                "select table_name from information_schema.tables "
                "where table_schema = 'raw' and table_name <> 'source_files'"
            ).fetchall()
        ]
        return {
            t: con.execute(
                f"select * exclude (_source_file_id) from raw.{t} order by all"
            ).fetchall()
            for t in tables
        }


def source_file(db: Path) -> tuple[str, str, list[str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        sha, fmt, notes = con.execute(
            "select sha256, format, notes_json from raw.source_files"
        ).fetchone()
    return sha, fmt, json.loads(notes)


@pytest.mark.parametrize(
    ("original", "name"),
    [
        (POWERCLI_CSV, "get-vsanstat.csv"),
        (PERFSVC_JSON, "perf.json"),
        (VDB_SUMMARY, "summary.html"),
        (FIO_JSON, "fio.json"),
    ],
    ids=["powercli-csv", "perfsvc-json", "vdbench-summary", "fio-json"],
)
def test_utf16le_file_loads_the_rows_of_its_utf8_original(
    tmp_path: Path, original: Path, name: str, capsys
) -> None:
    plain = tmp_path / "utf8" / name
    plain.parent.mkdir()
    shutil.copy(original, plain)
    wide = iconv(original, tmp_path / "utf16" / name, "UTF-16")
    assert wide.read_bytes()[:2] == codecs.BOM_UTF16_LE
    db_plain, db_wide = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    assert main(["load", str(plain), "--db", str(db_plain), "--quiet"]) == 0
    assert main(["load", str(wide), "--db", str(db_wide)]) == 0
    assert "decoded from UTF-16LE" in capsys.readouterr().out
    expected = raw_rows(db_plain)
    assert sum(len(rows) for rows in expected.values()) > 0
    assert raw_rows(db_wide) == expected
    sha, fmt, notes = source_file(db_wide)
    assert sha == sha256_hex(wide.read_bytes())  # the file's own hash: a reload adds nothing
    assert fmt == source_file(db_plain)[1]
    assert notes[0] == "decoded from UTF-16LE"
    assert main(["load", str(wide), "--db", str(db_wide), "--quiet"]) == 0
    assert "1 already loaded (unchanged)" in capsys.readouterr().out


def test_utf16be_and_utf8_with_bom_read_like_the_original(tmp_path: Path) -> None:
    original = POWERCLI_CSV.read_bytes()
    big = iconv(POWERCLI_CSV, tmp_path / "be.csv", "UTF-16BE", codecs.BOM_UTF16_BE).read_bytes()
    assert normalize_text_encoding(big) == (original, "decoded from UTF-16BE")
    marked = codecs.BOM_UTF8 + original
    assert normalize_text_encoding(marked) == (
        original,
        "decoded from UTF-8 with a byte-order mark",
    )
    assert normalize_text_encoding(original) == (original, None)  # plain UTF-8: untouched


def test_powercli_values_survive_utf16(tmp_path: Path) -> None:
    """A value read off the UTF-8 CSV (first data row) is the value stored from its copy."""
    first_row = POWERCLI_CSV.read_text().splitlines()[1].split('","')
    wide = iconv(POWERCLI_CSV, tmp_path / "w" / "stat.csv", "UTF-16")
    db = tmp_path / "w.duckdb"
    assert main(["load", str(wide), "--db", str(db), "--quiet"]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        values = con.execute(
            "select value from raw.vsan_perfsvc_samples where powercli_name = ? "
            "order by sampled_at limit 1",
            [first_row[1]],
        ).fetchall()
    assert values == [(float(first_row[3].rstrip('"')),)]


# ------------------------------------------------------------------------- skipped, and why


def _reason(data: bytes, name: str) -> str:
    data, _ = normalize_text_encoding(data)
    assert detect_format(data[:HEAD_BYTES], name) is None
    return unsupported_reason(data[:HEAD_BYTES], name)


def test_other_vdbench_report_pages_are_named() -> None:
    assert _reason(HISTOGRAM.read_bytes(), HISTOGRAM.name).startswith(
        "a Vdbench histogram.html page: a report kind that carries no measurements"
    )
    assert _reason(PARMFILE.read_bytes(), PARMFILE.name).startswith("a Vdbench parmfile.html page")
    # Vdbench 50407 titles every page; an errorlog names itself so
    errorlog = b"<title>Vdbench output/errorlog.html</title><pre>\n09:42:36.152 sd1 error\n"
    assert _reason(errorlog, "errorlog.html").startswith("a Vdbench errorlog.html page")


def test_undecodable_encodings_say_so(tmp_path: Path) -> None:
    unmarked = iconv(POWERCLI_CSV, tmp_path / "le.csv", "UTF-16LE").read_bytes()
    assert _reason(unmarked, "le.csv") == (
        "not a supported format: UTF-16LE text without a byte-order mark "
        "(save it as UTF-8 or with a BOM)"
    )
    # a Windows-1252 note, as an old editor saves it
    latin1 = "Messprotokoll für Host esx01: Größe 4 KiB\n".encode("cp1252")
    at = latin1.index(b"\xfc")
    assert _reason(latin1, "protokoll.txt") == (
        f"not a supported format: byte {at} is not UTF-8 text (binary data or another encoding)"
    )
    broken = codecs.BOM_UTF16_LE + "Entity".encode("utf-16-le") + b"\x00\xd8"  # lone surrogate
    data, note = normalize_text_encoding(broken)
    assert data == broken and note == (
        "starts with a UTF-16LE byte-order mark but byte 14 is not UTF-16LE"
    )
    assert "byte-order mark that does not decode" in _reason(broken, "x.csv")


def test_header_only_file_says_it_has_no_rows() -> None:
    header = b"Time,Host,Counter,Value\r\n"
    assert _reason(header, "export.csv") == (
        "not a supported format: a header line with no data rows"
    )
    assert _reason(b"just some words\n", "notes.txt") == "not a supported format"


def test_load_summary_prints_the_reason(tmp_path: Path, capsys) -> None:
    unmarked = iconv(POWERCLI_CSV, tmp_path / "drop" / "stat.csv", "UTF-16LE")
    assert main(["load", str(unmarked.parent), str(HISTOGRAM), "--db", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out
    assert "stat.csv: not a supported format: UTF-16LE text without a byte-order mark" in out
    assert "a Vdbench histogram.html page" in out
    assert "2 skipped" in out
