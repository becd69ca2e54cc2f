"""The ingest command end to end: walking, labels, idempotence, rejection, archives."""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import duckdb
import pytest

from ingest import writer as writer_module
from ingest.__main__ import main
from ingest.outcomes import Outcome, Status
from ingest.parsers import vdbench
from ingest.parsers.hcibench.case_folder import hcibench_case_of
from tests.conftest import HCIB28_VDB_STDOUT, POWERCLI_CSV, SAMPLES
from tests.ingest.conftest import parse_bytes

FIO = SAMPLES / "fio"
GOOD = FIO / "fioplot__fio-3.14__randread-1-1.json"
CLIENT = FIO / "pbench__fio-3.7__client_server_2hosts__fio-result.txt"
CASE = "easy-run/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572"
ERRORS_ONLY = FIO / "fioplot__no_json_only_errors__randread-1-1.json"


def query(db: Path, sql: str, params=None):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


def counts(db: Path) -> dict[str, int]:
    tables = [
        t
        for (t,) in query(
            db, "select table_name from information_schema.tables where table_schema='raw'"
        )
    ]
    return {t: query(db, f"select count(*) from raw.{t}")[0][0] for t in tables}


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "wh.duckdb"


def test_load_samples_twice_adds_nothing(db, capsys):
    assert main(["load", str(FIO), "--db", str(db), "--quiet"]) == 1  # one sample holds only errors
    first = counts(db)
    out = capsys.readouterr().out
    assert "22 loaded" in out and "1 rejected" in out and "1 skipped" in out
    assert main(["load", str(FIO), "--db", str(db), "--quiet"]) == 1
    assert counts(db) == first
    assert "22 already loaded (unchanged)" in capsys.readouterr().out
    formats = query(db, "select distinct format from raw.source_files")
    assert formats == [("fio",)]


def test_rejected_file_named_with_location_and_warehouse_unchanged(db, capsys):
    assert main(["load", str(GOOD), "--db", str(db), "--quiet"]) == 0
    before = counts(db)
    assert main(["load", str(ERRORS_ONLY), "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "fioplot__no_json_only_errors" in out and "line 1" in out
    assert "engine libaio not loadable" in out
    assert counts(db) == before


def test_changed_file_replaces_its_rows(db, tmp_path):
    target = tmp_path / "run" / "out.json"
    target.parent.mkdir()
    shutil.copy(GOOD, target)
    assert main(["load", str(target), "--db", str(db), "--quiet"]) == 0
    shutil.copy(FIO / "fioplot__fio-3.1__randwrite-8-1.json", target)
    assert main(["load", str(target), "--db", str(db), "--quiet"]) == 0
    assert query(db, "select count(*) from raw.source_files") == [(1,)]
    (jobname,) = query(db, "select jobname from raw.fio_jobs")[0]
    assert jobname == "random-read"  # the fio-3.1 file's job
    assert query(db, "select count(distinct _source_file_id) from raw.fio_job_directions") == [(1,)]


def test_labels_from_run_yaml_chain_and_cli(db, tmp_path):
    top = tmp_path / "cluster"
    case = top / "case1"
    case.mkdir(parents=True)
    (top / "run.yaml").write_text("testbed: lab-a\nnodes: 4\nworkload:\n  block_size: 4k\n")
    (case / "run.yml").write_text("nodes: 8\nprofile: balanced\nworkload:\n  read_pct: 70\n")
    shutil.copy(GOOD, case / "vm1.json")
    assert main(["load", str(top), "--db", str(db), "--quiet", "--label", "transport=rdma"]) == 0
    (labels_json,) = query(db, "select labels_json from raw.source_files")[0]
    labels = json.loads(labels_json)
    assert labels["testbed"] == "lab-a" and labels["nodes"] == 8 and labels["profile"] == "balanced"
    assert labels["transport"] == "rdma" and labels["result_per"] == "file"
    assert labels["workload"] == {"block_size": 4096, "read_pct": 70}  # 4k, in bytes
    # --label beats run.yaml
    assert main(["load", str(top), "--db", str(db), "--quiet", "--label", "nodes=16"]) == 0
    (labels_json,) = query(db, "select labels_json from raw.source_files")[0]
    assert json.loads(labels_json)["nodes"] == 16
    assert query(db, "select count(*) from raw.source_files") == [
        (1,)
    ]  # relabelled, not duplicated


def test_bad_run_yaml_rejects_the_files_it_labels(db, tmp_path, capsys):
    (tmp_path / "run.yaml").write_text("nodes: four\n")
    shutil.copy(GOOD, tmp_path / "vm1.json")
    assert main(["load", str(tmp_path), "--db", str(db), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "run.yaml" in out and "whole number" in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]


def test_bad_cli_label_is_a_usage_error(db, capsys):
    assert main(["load", str(GOOD), "--db", str(db), "--label", "transport=carrier-pigeon"]) == 2
    assert "must be one of tcp, rdma" in capsys.readouterr().out


def test_missing_path_is_a_usage_error(db, tmp_path):
    assert main(["load", str(tmp_path / "nope"), "--db", str(db)]) == 2


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_archive_labels_stored_after_outputs_still_apply(db, tmp_path):
    archive = tmp_path / "results.tgz"
    _tar(
        archive,
        {
            f"{CASE}/vm-1.json": GOOD.read_bytes(),
            f"{CASE}/vm-2.json": CLIENT.read_bytes(),
            "easy-run/run.yaml": b"testbed: tarball-lab\n",
        },
    )
    assert main(["load", str(archive), "--db", str(db), "--quiet"]) == 0
    rows = query(
        db,
        "select path, labels_json, result_per, hcibench_case from raw.source_files order by path",
    )
    assert len(rows) == 2
    for path, labels_json, result_per, case in rows:
        assert path.startswith(archive.as_posix() + "!/easy-run/")
        assert json.loads(labels_json)["testbed"] == "tarball-lab"
        assert result_per == "folder"  # inside an HCIBench test case
        assert case.endswith("fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572")


def test_archive_path_traversal_and_links_refused(db, tmp_path, capsys):
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = GOOD.read_bytes()
        info = tarfile.TarInfo("../../escape.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link.json")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    assert main(["load", str(archive), "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "leaves the archive" in out and "is a link" in out
    assert query(db, "select count(*) from raw.source_files") == [(0,)]


def test_zip_and_gz_members_load(db, tmp_path):
    zipped = tmp_path / "bundle.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("a/out.json", GOOD.read_bytes())
    import gzip

    gz = tmp_path / "client.txt.gz"
    gz.write_bytes(gzip.compress(CLIENT.read_bytes()))
    assert main(["load", str(zipped), str(gz), "--db", str(db), "--quiet"]) == 0
    paths = sorted(p for (p,) in query(db, "select path from raw.source_files"))
    assert paths == [f"{zipped.as_posix()}!/a/out.json", f"{gz.as_posix()}!/client.txt"]


def test_empty_output_file_rejected_other_files_load(db, tmp_path, capsys):
    (tmp_path / "write-64-8.json").write_bytes(b"")
    shutil.copy(GOOD, tmp_path / "ok.json")
    assert main(["load", str(tmp_path), "--db", str(db)]) == 1
    assert "empty file" in capsys.readouterr().out
    assert query(db, "select name from raw.source_files") == [("ok.json",)]


@pytest.mark.parametrize(
    ("path", "known", "expected"),
    [
        pytest.param(
            "/r/t/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572/vm1.json",
            set(),
            "/r/t/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572",
            id="generated-name",
        ),
        pytest.param(
            "/r/t/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572-res.txt",
            set(),
            "/r/t/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572",
            id="summary",
        ),
        pytest.param(
            "/r/t/group1-vdb-2vmdk-50ws-8k-0rdpct-100randompct-2threads-1600000000/vm.txt",
            set(),
            "/r/t/group1-vdb-2vmdk-50ws-8k-0rdpct-100randompct-2threads-1600000000",
            id="vm-group",
        ),
        pytest.param(
            "/r/t/mytest-1600000000/vm.json",
            {"/r/t/mytest-1600000000/fio.cfg"},
            "/r/t/mytest-1600000000",
            id="user-named-with-cfg",
        ),
        pytest.param("/r/t/mytest-1600000000/vm.json", set(), None, id="user-named-alone"),
        pytest.param("/r/fio/randread-1-1.json", set(), None, id="plain-fio"),
        pytest.param(
            "/r/t/vdb-1vmdk-100ws-4k-100rdpct-100randompct-1threads-1600000000/obs.tgz!/jsonstats/dom/x.json",
            set(),
            "/r/t/vdb-1vmdk-100ws-4k-100rdpct-100randompct-1threads-1600000000",
            id="observer-in-case",
        ),
    ],
)
def test_hcibench_case_of(path, known, expected):
    assert hcibench_case_of(path, known) == expected


def run_duckdb_cli(*args: str) -> str:
    """The last line the pip-installed DuckDB CLI prints for `args` (skips without the CLI)."""
    import subprocess
    import sys

    cli = Path(sys.executable).parent / "duckdb"
    if not cli.exists():
        pytest.skip("duckdb-cli not installed in this environment")
    out = subprocess.run(
        [str(cli), *args], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return out.strip().splitlines()[-1]


def test_warehouse_opens_in_the_duckdb_cli(db):
    """CONTRACT.md: analysts open the file with the pip-installed DuckDB CLI."""
    assert main(["load", str(GOOD), "--db", str(db), "--quiet"]) == 0
    assert run_duckdb_cli(str(db), "-csv", "-c", "select count(*) from raw.fio_jobs") == "1"


def test_the_analysts_cli_settings_are_the_products(db):
    """scripts/analyst.duckdbrc (README) gives the CLI every setting of warehouse.DUCKDB_CONFIG
    (the DuckDB 1.5.5 planner workaround)."""
    import warehouse

    init = Path(__file__).resolve().parents[2] / "scripts" / "analyst.duckdbrc"
    assert main(["load", str(GOOD), "--db", str(db), "--quiet"]) == 0
    for name, value in warehouse.DUCKDB_CONFIG.items():
        query = f"select current_setting('{name}')"
        shown = run_duckdb_cli(
            "-init", str(init), "-readonly", str(db), "-csv", "-noheader", "-c", query
        )
        assert shown == value


def test_identical_copies_in_two_hcibench_cases_load_once_per_case(db, tmp_path):
    """Every case folder holds its own byte-identical vsan.cfg; each describes its case."""
    cfg = (
        b"Local vSAN Datastore Name: vsanDatastore\nvSAN Type: All-Flash\nNumber of Hosts: 4\n"
        b"Disk Groups per Host: 2\nSpace Efficiency: None\n"
    )
    for epoch in ("1600000000", "1600000900"):
        case = tmp_path / "t" / f"fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-{epoch}"
        case.mkdir(parents=True)
        (case / "vsan.cfg").write_bytes(cfg)
        shutil.copy(GOOD, case / "vm-1.json")
    main(["load", str(tmp_path / "t"), "--db", str(db), "--quiet"])
    cases = query(
        db, "select count(distinct hcibench_case) from raw.source_files where name = 'vsan.cfg'"
    )
    assert cases == [(2,)]
    # ...and loading again still adds nothing
    before = counts(db)
    main(["load", str(tmp_path / "t"), "--db", str(db), "--quiet"])
    assert counts(db) == before


def test_a_copy_staged_in_the_same_batch_is_already_loaded(db, tmp_path, capsys):
    """Two copies of one output (same bytes, same labels) in one load: the second is found
    among the files staged for the same write, and stored once."""
    for folder in ("a", "b"):
        (tmp_path / "t" / folder).mkdir(parents=True)
        shutil.copy(GOOD, tmp_path / "t" / folder / "vm-1.json")
    main(["load", str(tmp_path / "t"), "--db", str(db)])
    assert "1 loaded, 1 already loaded (unchanged)" in capsys.readouterr().out
    assert query(db, "select count(*) from raw.source_files where name = 'vm-1.json'") == [(1,)]


# --- Nothing silent: files with no result, and notes that say data was dropped ------------
VDB_STDOUT = HCIB28_VDB_STDOUT


def _cut_mid_interval(tmp_path: Path) -> Path:
    """The Vdbench stdout of a run killed in the middle of its 11th interval line."""
    data = VDB_STDOUT.read_bytes()
    starts = [m.start() for m in re.finditer(rb"^\d\d:\d\d:\d\d\.\d{3}\s+\d+\s", data, re.M)]
    cut = tmp_path / "killed" / "vm-1.txt"
    cut.parent.mkdir()
    cut.write_bytes(data[: starts[10] + 30])
    return cut


@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "verbose"])
def test_no_result_and_dropped_data_are_always_in_the_summary(db, tmp_path, capsys, quiet):
    # GIVEN a Vdbench run killed mid-interval (loads: its intervals, no avg_ line, so no
    # result; its parser notes the dropped last line), a PowerCLI export (an ordinary note)
    # and a good fio output
    killed = _cut_mid_interval(tmp_path)
    parsed = parse_bytes(vdbench, killed.read_bytes(), killed.as_posix())
    assert parsed.no_result_reason and parsed.row_count() > 0
    shutil.copy(POWERCLI_CSV, tmp_path / "killed" / "get-vsanstat_export.csv")
    shutil.copy(GOOD, tmp_path / "killed" / "fio.json")
    # WHEN loaded, with or without --quiet
    assert main(["load", str(tmp_path / "killed"), "--db", str(db), *(["--quiet"] * quiet)]) == 0
    out = capsys.readouterr().out.splitlines()
    # THEN the file without a result has its line and is counted, and the dropped-line note
    # is shown, in both modes
    assert f"no result  killed/vm-1.txt: {parsed.no_result_reason}" in out
    assert "note killed/vm-1.txt: line 28: dropped the last line, cut short" in out
    assert out[-1].startswith("Summary: 3 loaded (1 with no result), 0 already loaded")
    # AND the PowerCLI note (no data lost) only without --quiet
    powercli_note = (
        "note killed/get-vsanstat_export.csv: "
        "PowerCLI Get-VsanStat: times are client local time, stored as UTC"
    )
    assert (powercli_note in out) is not quiet
    # AND the file's rows are stored: it is not rejected, nothing was lost
    (stored,) = query(db, "select row_count from raw.source_files where name = 'vm-1.txt'")[0]
    assert stored == parsed.row_count()


def test_data_loss_notes_are_told_from_plain_notes():
    outcome = Outcome(
        "/x",
        Status.LOADED,
        notes=[
            "skipped 3 missing values (None or empty)",
            "sample times have no seconds ('%H:%M', e.g. an Excel re-save)",
            "sample times are unreliable: they step backwards by minutes",
            "no time-zone bias in header: sample times taken as UTC",
        ],
    )
    assert outcome.data_loss_notes() == [
        "skipped 3 missing values (None or empty)",
        "sample times are unreliable: they step backwards by minutes",
    ]


@pytest.mark.parametrize(("batch_bytes", "batches"), [(None, [3]), (1, [1, 1, 1])])
def test_writer_batches_are_bounded_by_bytes(db, tmp_path, monkeypatch, batch_bytes, batches):
    # GIVEN three fio outputs, and a byte bound per batch that one file already reaches
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("fioplot__fio-3.14__randread-1-1.json", "fioplot__fio-3.1__randwrite-8-1.json"):
        shutil.copy(FIO / name, folder / name)
    shutil.copy(CLIENT, folder / "client.txt")
    if batch_bytes is not None:
        monkeypatch.setattr(writer_module, "BATCH_BYTES", batch_bytes)
    written: list[int] = []
    real_write = writer_module.RawWriter._write

    def counting_write(self, staged):
        written.append(len(staged))
        return real_write(self, staged)

    monkeypatch.setattr(writer_module.RawWriter, "_write", counting_write)
    # WHEN loaded
    assert main(["load", str(folder), "--db", str(db), "--quiet"]) == 0
    # THEN the files are written together under the default bound, one by one past the bytes
    assert written == batches
    assert query(db, "select count(*) from raw.source_files") == [(3,)]
