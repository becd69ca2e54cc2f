"""Hostile input through every parser, as the loader calls them (detect on 64 KiB, then parse).

Only the product's own clear rejections may come out: `ParseError`, or for structures nested
too deeply for the JSON/YAML readers the loader's explicit "structure nested too deeply"
rejection. Any other exception is a parser crash and fails the test; so does a call that
runs over 5 s (benchmarks/fuzz_parsers.py runs the same cases for as long as you like).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.fuzz_parsers import load_seeds, mutate, run_case
from ingest import parse_step, walk
from ingest.__main__ import main as ingest_main
from ingest.label_resolver import LabelResolver
from ingest.registry import PARSERS
from ingest.triage import load_member
from ingest.walk import Member, Refused, Walk
from tests.conftest import REPO, SAMPLES
from tests.reliability.conftest import ingest_env, loaded_paths, query, rows_by_path, run_ingest

SEEDS = load_seeds()
# Each parser's signature: the first line of a real seed it detects.
SIGNATURES = {}
for _name, _data in SEEDS:
    SIGNATURES.setdefault(run_case(_data, _name)[0], _data.split(b"\n", 1)[0][:4096] + b"\n")
NAMES = sorted({name for name, _ in SEEDS} | {"hcibench.cfg", "perf-conf.yaml", "x.json"})
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


def _assert_clean(data: bytes, name: str) -> None:
    _, crash = run_case(data, name, timeout_s=5.0)
    assert crash is None, (
        f"{crash.fmt} {crash.stage} crashed on a mutation of {name}: {crash.error}"
    )


def test_seeds_cover_every_parser() -> None:
    assert set(PARSERS) <= set(SIGNATURES)


@FUZZ
@given(data=st.binary(max_size=8192), name=st.sampled_from(NAMES))
def test_random_bytes(data: bytes, name: str) -> None:
    _assert_clean(data, name)


@FUZZ
@given(
    data=st.binary(max_size=4096),
    module=st.sampled_from(sorted(PARSERS)),
    name=st.sampled_from(NAMES),
)
def test_random_bytes_behind_each_parsers_own_signature(
    data: bytes, module: str, name: str
) -> None:
    # Random bytes rarely pass a detector: prefix each with a real seed's first line so
    # every parser's body, not only its detector, sees garbage.
    _assert_clean(SIGNATURES[module] + data, name)


@FUZZ
@given(index=st.integers(0, len(SEEDS) - 1), other=st.integers(0, len(SEEDS) - 1), rnd=st.randoms())
def test_mutated_real_samples(index: int, other: int, rnd: random.Random) -> None:
    name, data = SEEDS[index]
    _assert_clean(mutate(rnd, data, SEEDS[other][1]), name)


DEPTH = 100_000
DEEP = [
    pytest.param(
        "fio.json", b'{"fio version": "fio-3.36", "jobs": ' + b"[" * DEPTH, id="fio-arrays"
    ),
    pytest.param(
        "fio.json", b'{"fio version": "fio-3.36", "jobs": [' + b'{"a":' * DEPTH, id="fio-objects"
    ),
    pytest.param(
        "observer.json", b'{"stats": {"times": [], "avgs": [], "x": ' + b"[" * DEPTH, id="observer"
    ),
    pytest.param(
        "hcibench.cfg", b"vc: a\ndatacenter_name: b\ncluster_name: c\nx: " + b"[" * DEPTH, id="yaml"
    ),
]


@pytest.mark.parametrize(("name", "data"), DEEP)
def test_deep_nesting_is_a_clean_rejection(tmp_path: Path, name: str, data: bytes) -> None:
    # GIVEN 100k levels of nesting behind a real format's signature, WHEN loaded
    data = data + b"]" * DEPTH + b"}"
    _assert_clean(data, name)
    outcome = load_member(
        _NullWriter(), Member(f"/deep/{name}", len(data), lambda: data), LabelResolver({}), set()
    )
    # THEN the loader rejects it with its own reason, not "parser failed unexpectedly"
    assert outcome.status == "rejected"
    assert "unexpectedly" not in outcome.reason
    assert outcome.reason


class _NullWriter:
    """Enough of the raw writer for a file that never reaches the write."""

    def claim(self, path: str, sha256: str, case: str | None) -> None:
        pass

    def unclaim_ahead(self, path: str, sha256: str, case: str | None) -> None:
        pass

    def find_same_content(self, sha256: str, case: str | None) -> list:
        return []

    def find_by_path(self, path: str) -> list:
        return []

    def release(self, path: str, sha256: str, case: str | None) -> None:
        pass


# Peak memory of one huge input, in a subprocess so the kernel measures it (ru_maxrss).
# Measured on this machine for 200 MB inputs: plain 272 MB, fio JSON 672 MB, fio normal
# 672 MB, esxtop 672 MB, vdbench 472 MB, HCIBench settings 472 MB, parameter files 872 MB,
# -res.txt 1272 MB: the bytes, their text and one split copy; never more than ~6x the input.
MEMORY_FACTOR = 7


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "megabytes"),
    [
        pytest.param("plain", 200, id="plain-200MB"),
        pytest.param("hcibench_cfg", 200, id="hcibench-settings-200MB"),
        pytest.param("fio_json", 64, id="fio-json-64MB"),
        pytest.param("fio_normal", 64, id="fio-normal-64MB"),
        pytest.param("esxtop", 64, id="esxtop-64MB"),
        pytest.param("vdbench", 64, id="vdbench-64MB"),
        pytest.param("hcibench_fio_params", 64, id="hcibench-params-64MB"),
        pytest.param("hcibench_res_txt", 64, id="hcibench-res-64MB"),
    ],
)
def test_one_huge_line_has_bounded_time_and_memory(kind: str, megabytes: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability._huge_input", kind, str(megabytes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["crash"] is None, result
    grown = result["rss_peak_mb"] - result["rss_before_mb"]
    assert grown <= MEMORY_FACTOR * megabytes, result


# --- The load never dies of one file (issue 16) -------------------------------------------
# Each case: a folder with a good file before and after the hostile one, loaded by the real
# command in a subprocess with a timeout (a FIFO that hung the load would fail, not hang, the
# test). The run must print its summary, exit 1, load the good files and name the bad one.

GOOD_FIO = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"
OTHER_FIO = SAMPLES / "fio" / "fioplot__fio-3.1__randwrite-8-1.json"
CLIENT = SAMPLES / "fio" / "pbench__fio-3.7__client_server_2hosts__fio-result.txt"


def _corpus(folder: Path) -> Path:
    """`a_good.json` and `z_good.json` (two real fio outputs) around whatever the test adds."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(GOOD_FIO, folder / "a_good.json")
    shutil.copy(OTHER_FIO, folder / "z_good.json")
    return folder


def _rejected(stdout: str) -> dict[str, str]:
    """Rejected path (as printed) -> `location: reason`."""
    lines = [
        line[len("rejected ") :] for line in stdout.splitlines() if line.startswith("rejected ")
    ]
    return dict(line.split(": ", 1) for line in lines)


def _good_files_loaded(db: Path) -> None:
    names = {path.rsplit("/", 1)[-1] for path in loaded_paths(db)}
    assert {"a_good.json", "z_good.json"} <= names, names


def test_fifo_device_socket_and_links_to_them_are_refused_without_reading(tmp_path: Path) -> None:
    # GIVEN a FIFO (no writer: opening it for reading would block forever), a socket, a link
    # to the FIFO, among good files, and /dev/zero (st_size 0, endless) as a PATH argument
    folder = _corpus(tmp_path / "in")
    os.mkfifo(folder / "m_stuck.json")
    (folder / "n_link.json").symlink_to(folder / "m_stuck.json")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "o_socket.json"))
    try:
        # WHEN loaded (a hang fails the test at the timeout)
        done = run_ingest(tmp_path / "w.duckdb", "load", str(folder), "/dev/zero", timeout=120)
    finally:
        server.close()
    # THEN each is refused by kind, the good files load, and the run ends with its summary
    assert done.returncode == 1, done.stderr
    assert _rejected(done.stdout) == {
        "in/m_stuck.json": "file: is a FIFO (named pipe), not a regular file (not read)",
        "in/n_link.json": "file: is a symbolic link (not followed)",
        "in/o_socket.json": "file: is a socket, not a regular file (not read)",
        "zero": "file: is a character device, not a regular file (not read)",
    }
    assert "Summary: 2 loaded, 0 already loaded (unchanged), 0 skipped, 4 rejected" in done.stdout
    _good_files_loaded(tmp_path / "w.duckdb")


def test_special_files_are_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a FIFO and a FIFO named like an archive; every open of the walk is watched
    os.mkfifo(tmp_path / "pipe.json")
    os.mkfifo(tmp_path / "pipe.tgz")
    opened: list[str] = []
    real_open = os.open

    def watched_open(path, flags, *args, **kwargs):
        opened.append(os.fsdecode(path))
        if stat.S_ISFIFO(os.stat(path).st_mode):
            raise AssertionError(f"opened a FIFO: {path}")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", watched_open)
    # WHEN walked and every member read
    items = [(i.path, i.reason if isinstance(i, Refused) else i.read()) for i in Walk([tmp_path])]
    # THEN both are refused from their lstat, and nothing was opened
    assert items == [
        (
            (tmp_path / "pipe.json").as_posix(),
            "is a FIFO (named pipe), not a regular file (not read)",
        ),
        (
            (tmp_path / "pipe.tgz").as_posix(),
            "is a FIFO (named pipe), not a regular file (not read)",
        ),
    ]
    assert opened == []


def _fio_with(path: Path, key: str, value: int) -> None:
    document = json.loads(GOOD_FIO.read_text())
    document["jobs"][0]["read"][key] = value
    path.write_text(json.dumps(document))


@pytest.mark.parametrize("key", ["total_ios", "io_bytes"])
def test_integer_past_2_63_is_that_files_rejection(tmp_path: Path, key: str) -> None:
    # GIVEN a warehouse holding one file, and a folder where one fio JSON has 2^64 + 5 as
    # its read `total_ios` / `io_bytes` (Arrow's int64 cannot hold it)
    db = tmp_path / "w.duckdb"
    assert (
        run_ingest(
            db, "load", str(SAMPLES / "fio" / "fioplot__fio-3.16__randread-32-32.json")
        ).returncode
        == 0
    )
    before = rows_by_path(db)
    folder = _corpus(tmp_path / "in")
    _fio_with(folder / "m_huge.json", key, 2**64 + 5)
    # WHEN loaded
    done = run_ingest(db, "load", str(folder), "--quiet", timeout=120)
    # THEN that file is rejected naming it, the others load, what was stored is untouched
    assert done.returncode == 1, done.stderr
    [(path, reason)] = _rejected(done.stdout).items()
    assert path == "in/m_huge.json"
    assert "Traceback" not in done.stderr
    assert "2^63" in reason or "OverflowError" in reason, reason
    assert "Summary: 2 loaded, 0 already loaded (unchanged), 0 skipped, 1 rejected" in done.stdout
    _good_files_loaded(db)
    after = rows_by_path(db)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not any(path.endswith("m_huge.json") for _, path in after)


def test_non_utf8_file_and_folder_names_load_with_escaped_paths(tmp_path: Path) -> None:
    # GIVEN a fio output whose name holds bytes 0xff 0xfe (not UTF-8), an empty .json whose
    # name holds 0xff (rejected: the tool wrote nothing), and a folder named with 0xfd
    # holding a run.yaml and an output
    folder = _corpus(tmp_path / "in")
    raw = os.fsencode(folder)
    shutil.copy(CLIENT, os.fsdecode(raw + b"/m_vm-\xff\xfe.txt"))
    open(os.fsdecode(raw + b"/m_empty-\xff.json"), "wb").close()
    os.mkdir(raw + b"/lab-\xfd")
    with open(raw + b"/lab-\xfd/run.yaml", "wb") as out:
        out.write(b"testbed: lab-fd\n")
    shutil.copy(GOOD_FIO, os.fsdecode(raw + b"/lab-\xfd/vm.json"))
    db = tmp_path / "w.duckdb"
    # WHEN loaded
    done = run_ingest(db, "load", str(folder), "--quiet", timeout=120)
    # THEN it ends with its summary; the bad name is printed with \xNN escapes
    assert done.returncode == 1, done.stderr
    assert _rejected(done.stdout) == {
        "in/m_empty-\\xff.json": "byte 0: empty file: the tool wrote no output"
    }
    assert "Summary: 4 loaded," in done.stdout
    # AND the paths are stored as valid text, with the folder's labels applied
    stored = {p.rsplit("/in/", 1)[-1] for p in loaded_paths(db)}
    assert stored == {"a_good.json", "z_good.json", "m_vm-\\xff\\xfe.txt", "lab-\\xfd/vm.json"}
    labels = query(db, "select labels_json from raw.source_files where path like '%lab-%'")
    assert json.loads(labels[0][0])["testbed"] == "lab-fd"


def _without_root_privilege() -> list[str]:
    """A prefix that runs a command without the root's right to read any file, so
    permissions apply (as for the ordinary user that runs the loader)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and setpriv is missing: permissions cannot be applied")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all"]


def test_unreadable_archive_file_and_folder_are_rejections(tmp_path: Path) -> None:
    # GIVEN an archive, a file and a folder nobody may read, among good files
    folder = _corpus(tmp_path / "in")
    locked_archive = folder / "m_locked.tgz"
    with tarfile.open(locked_archive, "w:gz") as tar:
        tar.add(GOOD_FIO, arcname="vm.json")
    shutil.copy(CLIENT, folder / "n_locked.txt")
    (folder / "o_locked_dir").mkdir()
    shutil.copy(GOOD_FIO, folder / "o_locked_dir" / "vm.json")
    for locked in ("m_locked.tgz", "n_locked.txt", "o_locked_dir"):
        (folder / locked).chmod(0)
    db = tmp_path / "w.duckdb"
    # WHEN loaded by a process that permissions apply to
    done = subprocess.run(
        [*_without_root_privilege(), sys.executable, "-m", "ingest", "load", str(folder)],
        cwd=REPO,
        env=ingest_env(db),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # THEN each is rejected with the reason, and the good files still load
    assert done.returncode == 1, done.stderr
    denied = "Permission denied (errno 13)"
    rejected = _rejected(done.stdout)
    assert rejected["in/m_locked.tgz"] == f"file: archive cannot be read: {denied}"
    assert rejected["in/o_locked_dir"] == (
        f"folder: folder cannot be read: {denied}; the files in it are not loaded"
    )
    assert rejected["in/n_locked.txt"].startswith("file: cannot be read: [Errno 13]")
    assert len(rejected) == 3
    assert "Summary: 2 loaded, 0 already loaded (unchanged), 0 skipped, 3 rejected" in done.stdout
    _good_files_loaded(db)


def test_an_exception_past_the_parser_is_that_files_rejection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # GIVEN a parse of one file that lets 2^64 through in an int64 column (the parser bug
    # class: Arrow then raises OverflowError when the writer converts the rows)
    real_parse = parse_step.parse_with

    def parse_letting_an_overflow_through(module, data, source):
        parsed = real_parse(module, data, source)
        if source.name == "m_huge.json":
            rows = parsed.tables["fio_job_directions"]
            rows[0] = dataclasses.replace(rows[0], total_ios=2**64)
        return parsed

    monkeypatch.setattr(parse_step, "parse_with", parse_letting_an_overflow_through)
    db = tmp_path / "w.duckdb"
    assert ingest_main(["load", str(CLIENT), "--db", str(db), "--quiet"]) == 0
    before = rows_by_path(db)
    folder = _corpus(tmp_path / "in")
    shutil.copy(SAMPLES / "fio" / "fioplot__fio-3.16__randread-32-32.json", folder / "m_huge.json")
    # WHEN the folder is loaded
    assert ingest_main(["load", str(folder), "--db", str(db), "--quiet"]) == 1
    # THEN that file is rejected, naming the exception, the load went on past it
    out = capsys.readouterr().out
    assert _rejected(out) == {
        "in/m_huge.json": "file: could not be loaded "
        "(OverflowError: Python int too large to convert to C long)"
    }
    assert "Summary: 2 loaded, 0 already loaded (unchanged), 0 skipped, 1 rejected" in out
    _good_files_loaded(db)
    after = rows_by_path(db)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not any(path.endswith("m_huge.json") for _, path in after)


def test_a_file_changed_after_the_listing_is_read_within_its_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN two files listed as regular files under a 1,000-byte limit
    monkeypatch.setattr(walk, "MAX_FILE_BYTES", 1000)
    (tmp_path / "grows.json").write_bytes(b"x" * 900)
    (tmp_path / "swapped.json").write_bytes(b"x" * 10)
    grows, swapped = Walk([tmp_path])
    # WHEN one grows past the limit and the other is replaced by a FIFO before they are read
    (tmp_path / "grows.json").write_bytes(b"x" * 5000)
    (tmp_path / "swapped.json").unlink()
    os.mkfifo(tmp_path / "swapped.json")
    # THEN reading either is an error naming why (no hang on the FIFO, no 5,000 bytes)
    with pytest.raises(OSError, match="grew past the 1,000-byte limit while read"):
        grows.read()
    with pytest.raises(OSError, match=r"swapped\.json changed since it was listed"):
        swapped.read()
