"""Where the warehouse lives: `--db`, else `PERF_DUCKDB_PATH`, else the default."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB_PATH = REPO_ROOT / "data" / "warehouse.duckdb"


def warehouse_path(cli_value: str | None = None) -> Path:
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    env = os.environ.get("PERF_DUCKDB_PATH")
    if env:
        return Path(env).expanduser().absolute()
    return DEFAULT_DB_PATH
