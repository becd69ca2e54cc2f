"""The app's tests run on the warehouse the product builds, never on hand-written tables.

One session fixture does what scripts/main.sh does (the real samples, the valid fixtures and
the reference dataset, `ingest load`, `dbt build`, the expectations, publish), so the pages
read exactly the marts' columns and can never drift from them. Expected values in the tests
are the reference studies' published figures, worked out by hand. The empty-warehouse case
is an empty DuckDB file with a `marts` schema. The own-data case (`own_warehouse`) is what a
new user has after loading nothing but their own fio runs: nine short runs of Debian's fio,
loaded, built and published with the README's commands.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from harness.process import stop
from tests.conftest import marts_warehouse

REPO = Path(__file__).resolve().parents[2]
REAL_LOAD_ARGS = ("tests/fixtures/hcibench/results",)
# A warehouse already built the way build_real_warehouse builds it (e.g. by scripts/main.sh):
# the app tests read it and the browser tests serve it instead of building their own (minutes
# on a busy machine).
APP_WAREHOUSE_ENV = "PERF_APP_TEST_WAREHOUSE"
# The same for the own-data warehouse (build_own_fio_warehouse).
OWN_WAREHOUSE_ENV = "PERF_APP_TEST_OWN_WAREHOUSE"
# A user's own lab: one testbed, three storage-policy profiles, three read mixes of 4 KiB
# random I/O (fio's own job options say the workload; the labels say the configuration).
OWN_TESTBED = "my-lab"
OWN_PROFILES = ("baseline", "balanced", "density")
OWN_READ_MIXES = {
    0: ("--rw=randwrite",),
    70: ("--rw=randrw", "--rwmixread=70"),
    100: ("--rw=randread",),
}
OWN_FIO_ARGS = (
    "--bs=4k", "--size=16M", "--runtime=1", "--time_based", "--ioengine=psync",
    "--output-format=json",
)  # fmt: skip


def _run(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> None:
    # Subprocesses, not in-process calls: dbt-duckdb keeps a read-write handle open in the
    # process that ran it, and that lock would keep the Streamlit server (another process) out.
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode not in ok:
        pytest.fail(f"{' '.join(cmd[:4])} exited {done.returncode}:\n{done.stdout[-3000:]}")


def build_real_warehouse(main_file: Path, work: Path) -> None:
    """What scripts/main.sh does: load the samples, valid fixtures and the reference dataset,
    dbt build, validate, publish the serving snapshot."""
    from tests.conftest import SAMPLES

    env = {
        **os.environ,
        "PERF_DUCKDB_PATH": str(main_file),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    valid = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests" / "fixtures").glob("*/valid"))
    py = sys.executable
    paths = [str(SAMPLES), *valid, *REAL_LOAD_ARGS]
    # The reference dataset (rebuilt from the studies' published figures) is what a new user
    # sees first; the key-figure tests read it.
    reference = work / "reference"
    _run([py, "-m", "ingest", "reference", str(reference)], env)
    paths.append(str(reference))
    # Exit 1: some samples are broken on purpose and are rejected with a reason.
    _run([py, "-m", "ingest", "load", *paths, "--quiet"], env, (0, 1))
    dbt = [
        str(Path(py).with_name("dbt")), "build", "--project-dir", "dbt_project",
        "--profiles-dir", "dbt_project", "--target-path", str(work / "target"),
        "--log-path", str(work / "logs"), "--quiet",
    ]  # fmt: skip
    _run(dbt, env)
    # Exit 1 = some constraint failed; the data-quality page shows that, so it is data too.
    _run([py, "-m", "expectations"], env, (0, 1))
    # The app reads the serving snapshot once one exists; `load` published one before dbt.
    _run([py, "-m", "ingest", "publish", "--db", str(main_file)], env)


def _fio_run(work: Path, name: str, mix: tuple[str, ...]) -> tuple[subprocess.Popen, Path]:
    out = work / "fio" / f"{name}.json"
    data = work / "fio-data" / name  # outside the loaded files: fio's own test file
    cmd = ["fio", f"--name={name}", f"--filename={data}", f"--output={out}", *OWN_FIO_ARGS, *mix]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT), out


def build_own_fio_warehouse(main_file: Path, work: Path) -> None:
    """A warehouse of only a user's own fio runs, made as the README tells a user to: one
    short real fio run per profile x read mix (three at a time: each is a second of I/O on a
    16 MiB file), `ingest load` of each profile's JSON outputs with its labels, `ingest build`,
    `ingest publish`."""
    (work / "fio").mkdir(parents=True, exist_ok=True)
    (work / "fio-data").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PERF_DUCKDB_PATH": str(main_file),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    py = sys.executable
    for profile in OWN_PROFILES:
        runs = [_fio_run(work, f"{profile}-{pct}read", mix) for pct, mix in OWN_READ_MIXES.items()]
        for proc, _ in runs:
            output = proc.communicate(timeout=60)[0]
            if proc.returncode != 0:
                pytest.fail(f"fio exited {proc.returncode}:\n{output.decode()[-2000:]}")
        labels = ["--label", f"testbed={OWN_TESTBED}", "--label", f"profile={profile}"]
        _run([py, "-m", "ingest", "load", *(str(out) for _, out in runs), *labels], env)
    # dbt's target and logs in the work folder: another build (a test, a user) may be using
    # dbt_project/target.
    target = ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    _run([py, "-m", "ingest", "build", *target], env)
    _run([py, "-m", "ingest", "publish"], env)


@pytest.fixture(scope="session")
def own_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse of only a user's own fio runs (build_own_fio_warehouse), made once per
    session, or the one OWN_WAREHOUSE_ENV names."""
    given = os.environ.get(OWN_WAREHOUSE_ENV)
    if given:
        return Path(given)
    work = tmp_path_factory.mktemp("app_own")
    path = work / "warehouse.duckdb"
    build_own_fio_warehouse(path, work)
    return path


@pytest.fixture(scope="session")
def real_warehouse(samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The main warehouse file (its serving snapshot is published beside it)."""
    work = tmp_path_factory.mktemp("app_real")
    path = work / "warehouse.duckdb"
    build_real_warehouse(path, work)
    return path


@pytest.fixture(scope="session")
def warehouse(request: pytest.FixtureRequest) -> Path:
    """The real warehouse, or the one APP_WAREHOUSE_ENV names (built the same way)."""
    given = os.environ.get(APP_WAREHOUSE_ENV)
    return Path(given) if given else request.getfixturevalue("real_warehouse")


@pytest.fixture(scope="session")
def empty_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with an empty `marts` schema: every page must say "no data", not fail."""
    return marts_warehouse(tmp_path_factory.mktemp("app_empty") / "warehouse.duckdb")


@pytest.fixture()
def warehouse_env(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(warehouse))
    yield warehouse


def query(warehouse: Path, sql: str, params: list | None = None) -> list[tuple]:
    """Rows of a query on the warehouse, for the expected values the tests derive."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(sql, params).fetchall()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(
    warehouse: Path, log: Path, *, env: dict[str, str] | None = None, script_args: tuple = ()
) -> Iterator[str]:
    """`streamlit run` on `warehouse` (PERF_DUCKDB_PATH; `env` adds to the environment,
    `script_args` go to app/server.py after `--`); yields its base URL once /_stcore/health is
    ok."""
    port = free_port()
    env = {**os.environ, "PERF_DUCKDB_PATH": str(warehouse), **(env or {})}
    cmd = [
        sys.executable, "-m", "streamlit", "run", "app/server.py",
        "--server.headless", "true", "--server.port", str(port),
        "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
        *(("--", *script_args) if script_args else ()),
    ]  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                    if resp.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        stop(proc, 15)


@pytest.fixture(scope="session")
def app_url(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served on the real warehouse."""
    with serve(warehouse, tmp_path_factory.mktemp("streamlit") / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="session")
def own_app_url(own_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served on the warehouse of only a user's own fio runs."""
    with serve(own_warehouse, tmp_path_factory.mktemp("streamlit_own") / "streamlit.log") as url:
        yield url
