"""Run labels (issue 16, issue 15): hostile run.yaml files, one definition of every label's
type and range, and the identity of a loaded file (bytes, labels, HCIBench case).

Every load here reads a real fio output (a sample written by fio 3.14) under the labels
being tested, through the `ingest load` command, as a user would."""

from __future__ import annotations

import itertools
import json
import resource
import shutil
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main
from ingest.label_definitions import (
    MACRO_PATH,
    definitions,
    read_definitions,
    render_macro,
    size_label_bytes,
)
from ingest.labels import MAX_FILE_BYTES, MAX_KEYS, LabelError, merge, parse_label_file
from tests.conftest import REPO, SAMPLES
from tests.ingest.conftest import cases

GOOD = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"
STAGING = REPO / "dbt_project" / "models" / "staging" / "ingest" / "stg_ingest__source_files.sql"


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch):
    # the summary is wrapped to the terminal: keep each message on one line
    monkeypatch.setenv("COLUMNS", "1000")


def query(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def _labelled_folder(root: Path, name: str, run_yaml: str | bytes) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    shutil.copy(GOOD, folder / "out.json")
    target = folder / "run.yaml"
    if isinstance(run_yaml, bytes):
        target.write_bytes(run_yaml)
    else:
        target.write_text(run_yaml, encoding="utf-8")
    return folder


def _load(db: Path, *args: str) -> int:
    return main(["load", *args, "--db", str(db)])


def _billion_laughs(levels: int = 9) -> str:
    """The issue's run.yaml: each level an alias list of nine of the level before
    (9 ** 9 = 387 million strings once expanded)."""
    names = "abcdefghi"[:levels]
    lines = [f"a: &a [{','.join(['lol'] * 9)}]"]
    for before, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [{','.join([f'*{before}'] * 9)}]")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ hostile run.yaml


def test_billion_laughs_run_yaml_is_refused_at_once_and_its_files_do_not_load(tmp_path, capsys):
    text = _billion_laughs()
    assert len(text.encode()) < 400  # the file was 355 bytes
    folder = _labelled_folder(tmp_path, "lol", text)
    db = tmp_path / "wh.duckdb"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert _load(db, str(folder)) == 1
    # it took 2 minutes and 6.3 GB before; refusing the first alias expands nothing
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # KiB
    out = capsys.readouterr().out
    assert f"{folder.as_posix()}/run.yaml" in out
    assert "line 2, column 8: YAML aliases (*name) are not allowed" in out
    # the fio output under it is rejected naming the run.yaml, never loaded unlabelled
    assert "out.json" in out and "bad labels" in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]


def test_duplicate_key_is_refused_with_its_line(tmp_path, capsys):
    folder = _labelled_folder(tmp_path, "dup", "testbed: lab-a\nnodes: 4\ntestbed: lab-b\n")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder)) == 1
    out = capsys.readouterr().out
    assert "line 3, column 1: duplicate key 'testbed'" in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]


@pytest.mark.parametrize(
    ("run_yaml", "reason"),
    cases(
        ("too-large", "testbed: x\n" + "# padding\n" * 7000, f"at most {MAX_FILE_BYTES}"),
        (
            "too-many-keys",
            "".join(f"k{i}: {i}\n" for i in range(MAX_KEYS + 1)),
            f"more than {MAX_KEYS} labels",
        ),
        ("long-text", "testbed: " + "x" * 300 + "\n", "longer than 256 characters"),
        ("long-free-text", "note: " + "x" * 1100 + "\n", "longer than 1024 characters"),
        (
            "too-deep",
            "a: {b: {c: {d: [1]}}}\n",
            "line 1, column 17: nested more than 4 levels deep",
        ),
        ("not-utf8", b"testbed: caf\xe9\n", "byte 12: not UTF-8 text"),
        ("binary-tag", "blob: !!binary aGVsbG8=\n", "is not a label value (bytes)"),
        ("nan", "ratio: .nan\n", "must be a finite number"),
        ("nul-byte", 'testbed: "a\\0b"\n', "'testbed' holds the control character '\\x00'"),
        ("escape-char", 'note: "x\\x1by"\n', "'note' holds the control character '\\x1b'"),
        ("dotted-name", "workload.read_pct: 70\n", "label name 'workload.read_pct'"),
        ("not-a-map", "- testbed\n", "must be a map of label: value"),
    ),
)
def test_label_file_caps(tmp_path, capsys, run_yaml, reason):
    folder = _labelled_folder(tmp_path, "caps", run_yaml)
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder)) == 1
    out = capsys.readouterr().out
    assert f"{folder.as_posix()}/run.yaml" in out and reason in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]


def test_oversized_run_yaml_is_not_read(tmp_path, monkeypatch):
    """The size is checked before the file is opened: a huge run.yaml is never read."""
    from ingest import label_resolver

    folder = _labelled_folder(tmp_path, "huge", "testbed: x\n")
    with (folder / "run.yaml").open("ab") as handle:
        handle.truncate(MAX_FILE_BYTES * 1000)  # sparse: 65 MB on paper
    monkeypatch.setattr(label_resolver, "_parse", lambda *_: pytest.fail("read an oversized file"))
    found = label_resolver._read_from_disk(folder.as_posix())
    assert isinstance(found, LabelError) and "65536000 bytes" in found.reason


def test_dates_stay_the_text_written(tmp_path):
    folder = _labelled_folder(tmp_path, "dated", "captured_at: 2024-01-02T03:04:05+00:00\n")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder), "--quiet") == 0
    (labels_json,) = query(db, "select labels_json from raw.source_files")[0]
    assert json.loads(labels_json)["captured_at"] == "2024-01-02T03:04:05+00:00"


def test_an_empty_nearer_workload_map_does_not_crash_the_merge():
    merged = merge({"workload": {"read_pct": 70}}, {"workload": None}, {"testbed": "a"})
    assert merged == {"workload": None, "testbed": "a"}


# ------------------------------------------------------------------ one definition


@pytest.mark.parametrize(
    ("label", "reason"),
    cases(
        (
            "nodes-past-2^63",
            "nodes: 100000000000000000000000",
            "label 'nodes' is a whole number past 2^63",
        ),
        ("nodes-past-2^31", "nodes: 2147483648", "label 'nodes' must be between 1 and 64 hosts"),
        ("nodes-0", "nodes: 0", "label 'nodes' must be between 1 and 64 hosts (got 0)"),
        ("ftt-negative", "ftt: -3", "label 'ftt' must be between 0 and 3 failures (got -3)"),
        (
            "outstanding-io-negative",
            "workload:\n  outstanding_io: -8",
            "label 'workload.outstanding_io' must be between 1 and 1048576 I/Os (got -8)",
        ),
        (
            "block-size-4kmb",
            "workload:\n  block_size: 4kmb",
            "label 'workload.block_size' must be one size such as 4k",
        ),
        (
            "block-size-4g",
            "workload:\n  block_size: 4g",
            "label 'workload.block_size' must be between 512 and 1073741824 bytes (got '4g')",
        ),
        (
            "read-pct-101",
            "workload:\n  read_pct: 101",
            "label 'workload.read_pct' must be between 0 and 100 percent (got 101)",
        ),
        (
            "architecture",
            "architecture: vsan",
            "label 'architecture' must be one of OSA, ESA (got 'vsan')",
        ),
    ),
)
def test_label_outside_its_definition_is_refused_naming_file_and_key(
    tmp_path, capsys, label, reason
):
    folder = _labelled_folder(tmp_path, "bad", label + "\n")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder)) == 1
    out = capsys.readouterr().out
    assert f"{folder.as_posix()}/run.yaml" in out and reason in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]
    # the same value given as --label is a usage error naming --label and the key
    flat = label.replace(":\n  ", ".").replace(": ", "=")
    assert _load(db, str(GOOD), "--label", flat) == 2
    assert f"--label: {reason}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("written", "expected"),
    cases(
        ("4k", "4k", 4096),
        ("4K", "4K", 4096),
        ("4KB", "4KB", 4096),
        ("4KiB", "4KiB", 4096),
        ("64k", "64k", 65536),
        ("1m", "1m", 1048576),
        ("1MiB", "1MiB", 1048576),
        ("1g", "1g", 1073741824),
        ("hex", "0x1000", 4096),
        ("bytes-int", 8192, 8192),
        ("bytes-text", "512", 512),
        ("4kmb", "4kmb", None),
        ("range", "4k-8k", None),
        ("list", "4k,64k", None),
        ("negative", "-4k", None),
        ("bool", True, None),
        ("empty", "", None),
    ),
)
def test_block_size_grammar(written, expected):
    assert size_label_bytes(written) == expected


def test_block_size_is_stored_in_bytes(tmp_path):
    folder = _labelled_folder(tmp_path, "bs", "workload:\n  block_size: 64KiB\n  read_pct: 70\n")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder), "--quiet") == 0
    (labels_json,) = query(db, "select labels_json from raw.source_files")[0]
    assert json.loads(labels_json)["workload"] == {"block_size": 65536, "read_pct": 70}


def test_extreme_but_valid_labels_load():
    labels = parse_label_file(
        "nodes: 64\nftt: 3\nstripe_width: 12\nosr_pct: 100\ndisk_groups: 5\n"
        "workload: {block_size: 1g, outstanding_io: 1048576, read_pct: 0, random_pct: 100}\n",
        "/x/run.yaml",
    )
    assert labels["nodes"] == 64 and labels["workload"]["block_size"] == 2**30
    assert labels["workload"]["outstanding_io"] == 2**20


def test_generated_dbt_macro_is_current():
    """dbt casts with the macro generated from the seed the loader reads: they must agree."""
    expected = render_macro(read_definitions())
    assert MACRO_PATH.read_text(encoding="utf-8") == expected, (
        "dbt_project/macros/label_definitions.sql is stale: "
        "run `python -m ingest.label_definitions`"
    )


def test_every_defined_label_is_cast_by_its_definition_in_staging():
    sql = STAGING.read_text(encoding="utf-8")
    # result_per has its own raw.source_files column (the loader fills in its default)
    for key in set(definitions()) - {"result_per"}:
        assert f"label_value('{key}')" in sql, key
    # no label is parsed by hand beside its definition
    assert "cast(json_extract(" not in sql and "size_to_bytes" not in sql


def test_contract_lists_the_defined_keys():
    contract = (REPO / "docs" / "CONTRACT.md").read_text(encoding="utf-8")
    section = contract.split("## 2. Run labels", 1)[1].split("## 3.", 1)[0]
    top = {key.split(".", 1)[0] for key in definitions()}
    for key in top:
        assert f"`{key}`" in section, key


# ------------------------------------------------------------------ identity


def _testbeds(db: Path) -> list[tuple]:
    return query(
        db,
        "select json_extract_string(labels_json, '$.testbed'), sha256, count(*) "
        "from raw.source_files group by all order by 1",
    )


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_same_bytes_under_two_label_sets_are_two_results(tmp_path, order):
    folders = {
        name: _labelled_folder(tmp_path, name, f"testbed: lab-{name}\n") for name in ("a", "b")
    }
    db = tmp_path / "wh.duckdb"
    for name in order * 2:  # a, b, a, b: nothing flips
        assert _load(db, str(folders[name]), "--quiet") == 0
        seen = {t for t, _, _ in _testbeds(db)}
        assert f"lab-{name}" in seen
    rows = _testbeds(db)
    assert [(t, n) for t, _, n in rows] == [("lab-a", 1), ("lab-b", 1)]
    assert rows[0][1] == rows[1][1]  # the same bytes
    jobs = query(db, "select count(*), count(distinct _source_file_id) from raw.fio_jobs")
    assert jobs == [(2, 2)]
    # loading both again adds nothing
    before = query(db, "select source_file_id, loaded_at from raw.source_files order by 1")
    assert _load(db, str(tmp_path), "--quiet") == 0
    after = query(db, "select source_file_id, loaded_at from raw.source_files order by 1")
    assert after == before


def test_same_bytes_same_labels_in_two_folders_load_once(tmp_path, capsys):
    (tmp_path / "run.yaml").write_text("testbed: lab\n")
    for name in ("copy1", "copy2"):
        (tmp_path / name).mkdir()
        shutil.copy(GOOD, tmp_path / name / "out.json")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(tmp_path)) == 0
    assert query(db, "select count(*) from raw.source_files") == [(1,)]
    assert "1 loaded, 1 already loaded (unchanged)" in capsys.readouterr().out


def test_relabelling_a_path_replaces_its_load(tmp_path):
    folder = _labelled_folder(tmp_path, "a", "testbed: lab-a\n")
    db = tmp_path / "wh.duckdb"
    assert _load(db, str(folder), "--quiet") == 0
    (folder / "run.yaml").write_text("testbed: lab-renamed\n")
    assert _load(db, str(folder), "--quiet") == 0
    assert [(t, n) for t, _, n in _testbeds(db)] == [("lab-renamed", 1)]
