"""Results added from the browser: kept in the warehouse's folder, then loaded, built,
validated and published in the background.

The job runs the command line's own steps as child processes, one after the other:
`python -m ingest load <upload folder> --label ...` (the loader with all its limits and
guarantees, and the summary exactly as it prints it), then `build_and_publish_steps()`
(`ingest build`, then `ingest publish`: the gate, which keeps the served version when a
constraint fails). Child processes, not calls: the app does not import `ingest` (it imports
the app's report, docs/ARCHITECTURE.md), and each step takes the writer lock itself
(`Warehouse.exclusive`), so uploads from two servers queue like any two writers; jobs of one
server run one at a time (`_ONE_AT_A_TIME`). Readers keep reading the served version until
the publish step swaps it.

A job lives in this module's registry, not in a page run: a thread runs it, the page polls
`job(id)` and finds it again after a rerun or a reload of the session. Each job also keeps a
record beside its folder (`<folder>.job.json`: labels, state, the running step, each step's
exit status and output), written at every change: the page lists a warehouse's uploads from
the records, and an upload whose server stopped while it ran shows as interrupted, with the
commands that finish it, instead of vanishing with the server's memory.

Settings: `PERF_UPLOADS=off` turns uploads off (a read-only deployment); the size of one
upload is capped by Streamlit's `server.maxUploadSize` (app/.streamlit/config.toml); uploads
are kept under `PERF_UPLOAD_DIR`, else `<the warehouse's folder>/uploads`.
"""

from __future__ import annotations

import datetime as dt
import enum
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import warehouse
from warehouse import REPO_ROOT

OFF_VALUES = ("0", "off", "false", "no")
# `ingest load`'s usage error (bad labels): nothing was loaded, so the upload is not kept.
USAGE_ERROR = 2
# The CLI's summary line (ingest.load_command.summary_counts): "Summary: 1 loaded, ...".
_LOADED = re.compile(r"^Summary: (\d+) loaded", re.MULTILINE)
# What the page shows is the commands' text as a log would hold it: no colour codes, and
# Rich's lines (the publish step's table) as wide as the page's code block.
PLAIN_OUTPUT = {"NO_COLOR": "1", "TERM": "dumb", "DBT_USE_COLORS": "false", "COLUMNS": "120"}
# dbt's count of the nodes it runs, in each line: "  12 of 544 START sql view model ...".
_COUNTED = re.compile(r"\b(\d+) of (\d+) (?:START|OK|PASS|ERROR|FAIL|WARN|SKIP)\b")
# A job's record sits beside its folder, not in it: the load step walks the folder.
RECORD_SUFFIX = ".job.json"
# A file name from the browser, reduced to a name that is safe in one folder.
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def uploads_enabled() -> bool:
    return os.environ.get("PERF_UPLOADS", "on").strip().lower() not in OFF_VALUES


def uploads_root() -> Path | None:
    """Where uploads are kept: PERF_UPLOAD_DIR, else `uploads/` in the warehouse's folder;
    None when neither exists (a lake whose data files are in an object store)."""
    if configured := os.environ.get("PERF_UPLOAD_DIR"):
        return Path(configured).expanduser().absolute()
    folder = warehouse.from_settings().folder()
    return None if folder is None else folder / "uploads"


def safe_name(name: str) -> str:
    """The last part of a browser's file name, without characters a path should not hold."""
    base = _UNSAFE.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or "upload"


def upload_folder(root: Path, first_name: str, now: dt.datetime) -> Path:
    """`<root>/<UTC time>-<first file's name>/`, new (a suffix when two start in the same
    second)."""
    stem = f"{now.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}-{safe_name(first_name)}"
    for n in itertools.count():
        folder = root / (stem if n == 0 else f"{stem}-{n}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            continue
    raise AssertionError("unreachable")


def save_files(folder: Path, files: Iterable[tuple[str, bytes]]) -> list[Path]:
    """Write the uploaded files into `folder`; two files of one name get a numbered suffix."""
    saved: list[Path] = []
    for name, data in files:
        path = folder / safe_name(name)
        for n in itertools.count(1):
            if not path.exists():
                break
            path = folder / f"{n}-{safe_name(name)}"
        path.write_bytes(data)
        saved.append(path)
    return saved


def _ingest(*args: str) -> list[str]:
    return [sys.executable, "-m", "ingest", *args]


def load_step(folder: Path, labels: Iterable[str]) -> list[str]:
    """`ingest load` of the upload folder: it is the load path, so provenance names it."""
    return _ingest(
        "load", str(folder), *itertools.chain.from_iterable(("--label", a) for a in labels)
    )


def build_and_publish_steps() -> list[tuple[str, list[str]]]:
    """What turns loaded files into served results: the one place to change when `ingest
    build` gets a faster way (an incremental build) of its own."""
    return [("build", _ingest("build")), ("publish", _ingest("publish"))]


class State(enum.StrEnum):
    QUEUED = "queued"  # waiting for another upload of this server
    RUNNING = "running"
    SERVED = "served"  # published: the new results are on the dashboard
    NOTHING_NEW = "nothing new"  # no file stored (all rejected, skipped or already loaded)
    LABELS_REFUSED = "labels refused"  # `ingest load` refused a label: nothing was loaded
    FAILED = "failed"  # a step failed: the served version stays what it was
    NOT_PUBLISHED = "not published"  # validation failed: the previous version is served
    INTERRUPTED = "interrupted"  # its server stopped while it ran: the record says where


@dataclass(frozen=True, slots=True)
class StepResult:
    name: str  # load, build, publish
    exit_code: int
    output: str  # what the command printed (stdout and stderr), as it printed it


@dataclass(slots=True)
class UploadJob:
    id: int
    folder: Path
    labels: tuple[str, ...]
    state: State = State.QUEUED
    step: str = ""  # the step running now
    live: list[str] = field(default_factory=list)  # the running step's lines so far
    done: list[StepResult] = field(default_factory=list)
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def steps(self) -> list[str]:
        return ["load", *(name for name, _ in build_and_publish_steps())]

    @property
    def progress(self) -> float:
        """Steps done, and the running step's share where it counts its own (dbt's `N of M`)."""
        return (len(self.done) + step_fraction(self.live)) / len(self.steps)

    def output(self, name: str) -> str | None:
        return next((s.output for s in self.done if s.name == name), None)


def step_fraction(lines: list[str]) -> float:
    """How far a running command is by its own count: dbt prints `12 of 544 START ...`."""
    for line in reversed(lines[-20:]):
        if counted := _COUNTED.search(line):
            done, total = int(counted.group(1)), int(counted.group(2))
            return min(done / total, 1.0) if total else 0.0
    return 0.0


def record_path(folder: Path) -> Path:
    return folder.with_name(folder.name + RECORD_SUFFIX)


def save_record(job: UploadJob) -> None:
    """Write the job's record whole (a reader never sees half of one)."""
    record = {
        "folder": str(job.folder),
        "labels": list(job.labels),
        "state": job.state.value,
        "step": job.step,
        "done": [asdict(step) for step in job.done],
        "updated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    path = record_path(job.folder)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record, indent=1), encoding="utf-8")
    os.replace(partial, path)


@dataclass(frozen=True, slots=True)
class UploadRecord:
    """An upload as its record tells it, for the page's list of a warehouse's uploads."""

    folder: Path
    labels: tuple[str, ...]
    state: State
    step: str  # the step that was running (an interrupted upload's)
    done: tuple[StepResult, ...]

    def finish_commands(self) -> list[list[str]]:
        """What finishes an interrupted upload by hand: its load again (a file loaded
        already adds nothing), then the build and the publish."""
        steps = [load_step(self.folder, self.labels), *(c for _, c in build_and_publish_steps())]
        return [["python", *cmd[1:]] for cmd in steps]


def _running_folders() -> set[Path]:
    return {j.folder for j in _JOBS.values() if not j.finished.is_set()}


def _read_record(path: Path, running: set[Path]) -> UploadRecord:
    record = json.loads(path.read_text(encoding="utf-8"))
    folder = Path(record["folder"])
    state = State(record["state"])
    if state in (State.QUEUED, State.RUNNING) and folder not in running:
        state = State.INTERRUPTED  # no thread of this server runs it: its server stopped
    done = tuple(StepResult(**step) for step in record["done"])
    return UploadRecord(folder, tuple(record["labels"]), state, record["step"], done)


def recorded_uploads(root: Path) -> list[UploadRecord]:
    """Every upload of `root` that has a record, newest first (folders start with their time)."""
    running = _running_folders()
    paths = sorted(root.glob(f"*{RECORD_SUFFIX}"), reverse=True) if root.is_dir() else []
    return [_read_record(path, running) for path in paths]


_JOBS: dict[int, UploadJob] = {}
_IDS = itertools.count(1)
_ONE_AT_A_TIME = threading.Lock()


def job(job_id: int) -> UploadJob | None:
    return _JOBS.get(job_id)


def start(folder: Path, labels: Iterable[str]) -> UploadJob:
    """Run the upload's steps in a thread that outlives the page run."""
    new = UploadJob(next(_IDS), folder, tuple(labels))
    _JOBS[new.id] = new
    save_record(new)
    threading.Thread(target=run, args=(new,), name=f"upload-{new.id}", daemon=True).start()
    return new


def run(job: UploadJob) -> None:
    """The steps, in order, stopping at the first that decides the upload's fate."""
    with _ONE_AT_A_TIME:
        job.state = State.RUNNING
        try:
            job.state = _run_steps(job)
        except OSError as exc:  # a step could not start at all
            job.done.append(StepResult(job.step, -1, str(exc)))
            job.state = State.FAILED
        finally:
            job.step = ""
            if job.state is not State.LABELS_REFUSED:  # that folder is gone, and its record
                save_record(job)
            job.finished.set()


def _run_steps(job: UploadJob) -> State:
    load = _step(job, "load", load_step(job.folder, job.labels))
    if load.exit_code == USAGE_ERROR:
        shutil.rmtree(job.folder, ignore_errors=True)  # nothing of it was loaded
        record_path(job.folder).unlink(missing_ok=True)
        return State.LABELS_REFUSED
    loaded = _LOADED.search(load.output)
    if loaded is None:
        return State.FAILED  # the load stopped before its summary (exit 3: the warehouse went)
    if int(loaded.group(1)) == 0:
        return State.NOTHING_NEW
    for name, cmd in build_and_publish_steps():
        if _step(job, name, cmd).exit_code != 0:
            return State.NOT_PUBLISHED if name == "publish" else State.FAILED
    return State.SERVED


def _step(job: UploadJob, name: str, cmd: list[str]) -> StepResult:
    """Run one command line, keeping its lines as they come for the page's progress."""
    job.step, job.live = name, []
    save_record(job)
    env = {**os.environ, **PLAIN_OUTPUT}
    with subprocess.Popen(
        cmd,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            job.live.append(line.rstrip("\n"))
    result = StepResult(name, proc.returncode, "\n".join(job.live))
    job.done.append(result)
    save_record(job)
    return result
