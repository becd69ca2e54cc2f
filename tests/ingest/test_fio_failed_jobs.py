"""A fio job that failed (issue 27) makes a result-less file, not a broken one.

fio prints a failed job differently in each form: JSON lists it with `"error" : 13`; terse
writes its record with error field 13; the normal report prints no block at all for a job that
failed before any I/O (only fio's `fio: pid=..., err=13/...` line), and `err=13 (...)` in the
block header of one that failed after some. Whatever the form, the file loads, the job is
stored with state `error`, its error code and fio's own words, and the file says why it holds
no result. A good job beside it is still a result. Inputs are real fio 3.33 outputs
(tests/fixtures/fio/README.md says how each was made); the mangled ones change one value of a
real output. A rejection points at the line that holds the problem.
"""

from __future__ import annotations

import pytest

from ingest.parsers import fio
from ingest.records import RunState
from ingest.registry import detect_format
from ingest.sources import source_for
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import cases, parse_bytes, parse_file, rejection

FAILED = FIXTURES / "fio" / "failed_jobs"
DENIED = "func=open(/tmp/fio-err/ro/denied.dat), error=Permission denied"


def jobs_by_name(parsed) -> dict:
    return {job.jobname: job for job in parsed.tables["fio_jobs"]}


def directions_of(parsed, job) -> list:
    return [
        d
        for d in parsed.tables["fio_job_directions"]
        if (d.run_index, d.job_index) == (job.run_index, job.job_index)
    ]


@pytest.mark.parametrize(
    ("name", "line"),
    cases(
        ("normal", "fio-3.33__normal_denied_only.txt", 4),
        ("client-normal", "fio-3.33__client_normal_denied_only.txt", 4),
        ("terse", "fio-3.33__terse_denied_only.txt", 1),
        ("json", "fio-3.33__json_denied_only.json", 1),
    ),
)
def test_the_only_job_failed_loads_as_a_job_in_error_without_a_result(name, line):
    # GIVEN fio's output of a run whose only job could not open its file
    path = FAILED / name
    assert fio.detect(path.read_bytes(), path.name)
    # WHEN parsed THEN the file loads: one job, state error, fio's code and words with the line
    parsed = parse_file(fio, path)
    (job,) = parsed.tables["fio_jobs"]
    assert (job.jobname, job.state, job.error_code) == ("denied", RunState.error, 13)
    assert DENIED in job.state_reason
    assert f"line {line}" in job.state_reason
    # AND no direction of it is a result: the file says why it has none
    assert not [d for d in directions_of(parsed, job) if d.total_ios]
    assert parsed.no_result_reason.startswith("no fio result: 1 of 1 job(s) error; job 'denied'")
    assert DENIED in parsed.no_result_reason


@pytest.mark.parametrize(
    "name",
    [
        "fio-3.33__normal_good_and_denied.txt",
        "fio-3.33__client_normal_good_and_denied.txt",
        "fio-3.33__terse_good_and_denied.txt",
        "fio-3.33__client_terse_good_and_denied.txt",
    ],
)
def test_a_failed_job_beside_a_good_one_is_stored_and_the_good_one_is_the_result(name):
    parsed = parse_file(fio, FAILED / name)
    jobs = jobs_by_name(parsed)
    # THEN the good job is the result: its 256 reads of 4 KiB
    good = jobs["good"]
    assert good.state == RunState.ok
    (read,) = [d for d in directions_of(parsed, good) if d.total_ios]
    assert read.total_ios == 256 and read.io_bytes == 1024 * 1024
    assert parsed.no_result_reason is None
    # AND the failed one is kept, in error, with fio's words (not dropped, not a result)
    denied = jobs["denied"]
    assert (denied.state, denied.error_code) == (RunState.error, 13)
    assert DENIED in denied.state_reason
    assert not [d for d in directions_of(parsed, denied) if d.total_ios]


def test_client_normal_report_keeps_its_all_clients_block_as_the_flagged_aggregate():
    parsed = parse_file(fio, FAILED / "fio-3.33__client_normal_good_and_denied.txt")
    aggregate = jobs_by_name(parsed)["All clients"]
    # fio prints it after the disk stats, without a group line of its own: it is whole
    assert aggregate.is_all_clients_aggregate
    assert aggregate.state == RunState.ok
    assert parsed.tables["fio_runs"][0].is_client_mode
    # AND the good job's options come from its `<vm> good: (g=0): ...` definition line
    assert jobs_by_name(parsed)["good"].rw == "randread"


def test_a_job_that_failed_after_some_io_says_what_failed():
    parsed = parse_file(fio, FAILED / "fio-3.33__normal_denied_after_io.txt")
    (job,) = parsed.tables["fio_jobs"]
    assert (job.state, job.error_code) == (RunState.error, 13)
    assert DENIED in job.state_reason and "line 6" in job.state_reason
    assert parsed.no_result_reason.startswith("no fio result: 1 of 1 job(s) error")


def test_the_failed_job_reads_the_same_in_every_form():
    # The same job in JSON, terse and the normal report: one state, code and cause (terse
    # lists no job options, so its rw is unknown).
    reasons = {}
    for name in (
        "fio-3.33__json_denied_only.json",
        "fio-3.33__terse_denied_only.txt",
        "fio-3.33__normal_denied_only.txt",
    ):
        (job,) = parse_file(fio, FAILED / name).tables["fio_jobs"]
        reasons[name] = (job.state, job.error_code, job.state_reason.split(" (line")[0])
    assert len(set(reasons.values())) == 1, reasons


# ------------------------------------------------------------------------ locations


def _mangled(name: str, old: str, new: str) -> bytes:
    """A real output with the first `old` replaced by `new`."""
    text = (FAILED / name).read_text()
    assert old in text
    return text.replace(old, new, 1).encode()


@pytest.mark.parametrize(
    ("data", "location", "reason"),
    cases(
        (
            # an overflowed IOPS counter in the good job's `read:` line (line 9)
            "normal-unsound-iops",
            _mangled(
                "fio-3.33__normal_good_and_denied.txt", "IOPS=9846,", "IOPS=99999999999999999999k,"
            ),
            "line 9",
            "iops = 1e+23 is past 2^63",
        ),
        (
            # the same in the good terse record (line 2); the first line is fio's error text
            "terse-unsound-iops",
            _mangled(
                "fio-3.33__terse_good_and_denied.txt",
                ";1024;14027;3506;73;",
                ";1024;14027;99999999999999999999;73;",
            ),
            "line 2",
            "iops = 1e+20 is past 2^63",
        ),
        (
            # a terse file whose only record is cut: the cut line, not fio's error line 1
            "terse-only-record-cut",
            (FAILED / "fio-3.33__terse_denied_only.txt").read_bytes().rstrip(b"\n"),
            "line 2",
            "the last terse record is cut",
        ),
        (
            # a value that is no number in the good job's lat line (line 11), whose text the
            # file also holds earlier (`client <127.0.0.1>`, line 7)
            "normal-bad-number",
            _mangled("fio-3.33__client_normal_good_and_denied.txt", "avg=227.23", "avg=127.0.0.1"),
            "line 11",
            "value of the wrong type",
        ),
    ),
)
def test_a_rejection_points_at_the_line_that_holds_the_problem(data, location, reason):
    error = rejection(fio, data, source_for("/drop/out.txt", data))
    assert error.location == location
    assert reason in error.reason


def _terse_field(name: str, line: int, index: int, value: str) -> bytes:
    """A real terse output with field `index` of line `line` replaced."""
    lines = (FAILED / name).read_text().split("\n")
    fields = lines[line - 1].split(";")
    fields[index] = value
    lines[line - 1] = ";".join(fields)
    return "\n".join(lines).encode()


@pytest.mark.parametrize(
    ("data", "location", "reason"),
    cases(
        (
            # the failed job's usr cpu (field 88 of its v3 record, line 3) printed as NaN
            "terse-nan-cpu",
            _terse_field("fio-3.33__terse_good_and_denied.txt", 3, 87, "-nan%"),
            "line 3",
            "fio_jobs row 2: usr_cpu_pct = nan is NaN",
        ),
        (
            # a disk's util printed past what a double holds, on the report's disk line 30
            "normal-disk-util-overflow",
            _mangled("fio-3.33__normal_good_and_denied.txt", "util=0.00%", f"util={'9' * 400}%"),
            "line 30",
            "fio_disk_util row 1: util_pct = inf is Infinity",
        ),
        (
            # a line that starts like a terse v2 record but has 5 fields, after fio's error
            "terse-v2-too-short",
            b"fio: pid=1, err=5/file:io_u.c:1, func=io_u error, error=Input/output error\n"
            b"2;job1;0;5;7\n",
            "line 2",
            "no terse records found",
        ),
    ),
)
def test_unsound_values_outside_the_directions_point_at_their_line(data, location, reason):
    error = rejection(fio, data, source_for("/drop/out.txt", data))
    assert error.location == location
    assert reason in error.reason


def test_normal_report_cut_before_any_job_points_at_where_fio_started():
    text = (FAILED / "fio-3.33__normal_good_and_denied.txt").read_text()
    cut = text[: text.index("good: Laying out")].encode()
    error = rejection(fio, cut, source_for("/drop/cut.txt", cut))
    assert error.location == "line 4"
    assert "fio started 2 job(s)" in error.reason


def test_client_output_of_a_failed_run_is_read_as_fio():
    data = (FAILED / "fio-3.33__client_normal_denied_only.txt").read_bytes()
    assert detect_format(data, "out.txt") == "fio"
    assert parse_bytes(fio, data, "/drop/out.txt").tables["fio_runs"][0].is_client_mode


_ERROR = "fio: pid=9, err=5/file:io_u.c:1, func=io_u error, error=Input/output error\n"


@pytest.mark.parametrize(
    ("after_brace", "found_after"), [("\n", 0), ("\n" + _ERROR, 3), (" " + _ERROR, 0)]
)
def test_error_lines_outside_documents_match_those_of_the_whole_text_off_document_lines(
    after_brace: str, found_after: int
) -> None:
    # the status-interval sample (3 documents) after an error line, with nothing, an error line
    # or, on the line of a document's `}` (a line of the document), an error after each document
    from ingest.parsers.fio.json_documents import split_documents
    from ingest.parsers.fio.json_output import _outside_documents
    from ingest.parsers.fio.text import error_lines
    from tests.ingest.conftest import source_for

    path = SAMPLES / "fio" / "generated-locally" / "fio-3.33__json-status-interval-1s.json"
    text = _ERROR + path.read_text().replace("\n}\n", "\n}" + after_brace)
    documents, _ = split_documents(text, source_for(str(path), text.encode()))
    lines = [(text.count("\n", 0, d.start) + 1, text.count("\n", 0, d.end) + 1) for d in documents]
    naive = [e for e in error_lines(text) if not any(a <= e.line <= b for a, b in lines)]
    assert len(documents) == 3
    assert len(error_lines(text)) == 1 + (3 if after_brace != "\n" else 0)
    assert [e.line for e in naive][:1] == [1] and len(naive) == 1 + found_after
    assert error_lines(text, _outside_documents(text, documents)) == naive


@pytest.mark.parametrize(
    "text",
    [
        "fio: pid=21475, err=13/file:filesetup.c:805, func=open(/x), error=Permission denied\n",
        "Jobs: 1\nJobs: 0 (f=0)<vm1> fio: pid=7, err=5/file:io_u.c:1, func=io_u error  \r\nok\n",
        "a\n\nfio: pid=1, err=-22/x fio: pid=2, err=3/y\nb fio: pid=3, err=4/z\t\n",
        "no errors here\n{\n}\n",
    ],
)
def test_error_lines_in_one_pass_match_the_line_by_line_reading(text: str) -> None:
    from ingest.parsers.fio.text import error_in, error_lines

    by_line = [error_in(line, n) for n, line in enumerate(text.split("\n"), 1)]
    assert error_lines(text) == [e for e in by_line if e is not None]
