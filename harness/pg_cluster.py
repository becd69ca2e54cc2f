"""A throw-away PostgreSQL cluster (tests and benchmarks of team mode).

Debian's `postgresql` (installed by scripts/setup.sh) provides initdb and pg_ctl; the cluster is
made and started as the `postgres` user (PostgreSQL refuses to run as root) in a temporary folder,
listening on 127.0.0.1 on a free port with trust authentication, fsync off (throw-away data).
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class PostgresMissing(RuntimeError):
    pass


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not versions:
        raise PostgresMissing(
            f"PostgreSQL's {name} not found: bash scripts/setup.sh installs postgresql"
        )
    return str(versions[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(args: list[str]) -> list[str]:
    """Run as `postgres` when we are root (initdb and postgres refuse root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


@dataclass
class PgCluster:
    folder: Path
    port: int
    _counter: itertools.count

    def conninfo(self, dbname: str) -> str:
        return f"dbname={dbname} host=127.0.0.1 port={self.port} user=postgres"

    def new_database(self) -> str:
        name = f"lake{next(self._counter)}"
        subprocess.run(
            [
                _pg_bin("psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-q",
                "-c",
                f"create database {name}",
            ],
            check=True,
        )
        return self.conninfo(name)

    def start(self) -> None:
        """Start (or restart) the server on its port; returns once it accepts connections."""
        folder = self.folder
        options = (
            f"-p {self.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        pg_ctl = [_pg_bin("pg_ctl"), "-D", str(folder / "data"), "-w", "-l", str(folder / "log")]
        subprocess.run(
            _as_postgres([*pg_ctl, "-o", options, "start"]), check=True, stdout=subprocess.DEVNULL
        )

    def stop(self) -> None:
        """Stop the server now (as a crash or a network cut looks to its clients); a stopped
        server stays stopped."""
        subprocess.run(
            _as_postgres(
                [_pg_bin("pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop"]
            ),
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


@contextmanager
def throwaway_cluster() -> Iterator[PgCluster]:
    """Start a new cluster; stop it and delete its folder when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="perf-pg-"))
    os.chmod(folder, 0o777)
    data = folder / "data"
    port = _free_port()
    subprocess.run(
        _as_postgres(
            [_pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    cluster = PgCluster(folder, port, itertools.count(1))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
