"""Nothing secret is stored: HCIBench's `hcibench.cfg` and `perf-conf.yaml` carry vCenter and
ESXi user names and passwords. After loading a case folder holding both, no text column of
any table of the warehouse (main file and serving snapshot) and no byte of either file
contains those values, while an ordinary setting is found (the scan can see values)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from tests.conftest import FIXTURES
from tests.reliability.conftest import query, run_ingest
from warehouse import serving_path

CASE = "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000"
SECRETS = (
    "perf-canary-admin@vsphere.local",
    "Vc!Pa55-w0rd-Canary",
    "esx-canary-operator",
    "Esx!Pa55-Canary-42",
    "U2FsdGVkX1+canarySecretBlob==",
)
CANARY = "hci-canary-prefix"  # an ordinary setting: must be stored

HCIBENCH_CFG = f"""vc: 10.0.0.5
vc_username: {SECRETS[0]}
vc_password: '{SECRETS[1]}'
datacenter_name: Datacenter
cluster_name: vSAN-Cluster
network_name: VM Network
reuse_vm: false
datastore_name:
- vsanDatastore
hosts_credential:
  10.0.0.11:
    host_username: {SECRETS[2]}
    host_password: {SECRETS[4]}
number_vm: 2
tool: fio
vm_prefix: {CANARY}
"""

# HCIBench's own name for the same settings (rvc-util.rb reads it).
PERF_CONF_YAML = f"""vc: '10.0.0.5'
vc_username: '{SECRETS[0]}'
vc_password: '{SECRETS[1]}'
datacenter_name: 'Datacenter'
cluster_name: 'vSAN-Cluster'
host_username: '{SECRETS[2]}'
host_password: '{SECRETS[3]}'
easy_run: true
clear_cache: false
number_vm: 2
tool: 'fio'
vm_prefix: '{CANARY}'
"""


def _text_hits(db: Path, needle: str) -> list[str]:
    """`schema.table.column` of every value containing `needle`, every column cast to text."""
    with duckdb.connect(str(db), read_only=True) as con:
        columns = con.execute(
            "select table_schema, table_name, column_name from information_schema.columns "
            "where table_catalog = current_database() "
            "and table_schema not in ('information_schema', 'pg_catalog')"
        ).fetchall()
        hits = []
        for schema, table, column in columns:
            (n,) = con.execute(
                f'select count(*) from "{schema}"."{table}" '
                f'where contains(cast("{column}" as varchar), ?)',
                [needle],
            ).fetchone()
            if n:
                hits.append(f"{schema}.{table}.{column}")
        return hits


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("secrets")
    case = root / "results" / CASE
    shutil.copytree(FIXTURES / "hcibench" / "results" / "hcib25-fio" / CASE, case)
    (case / "hcibench.cfg").write_text(HCIBENCH_CFG, encoding="utf-8")
    (case / "perf-conf.yaml").write_text(PERF_CONF_YAML, encoding="utf-8")
    db = root / "w.duckdb"
    done = run_ingest(db, "load", str(root / "results"))
    assert done.returncode == 0, done.stdout + done.stderr
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr
    return db


def test_both_settings_files_were_loaded_with_secrets_redacted(loaded: Path) -> None:
    rows = query(
        loaded,
        "select s.name, h.setting_key, h.value_json, h.is_redacted "
        "from raw.hcibench_settings as h join raw.source_files as s "
        "on s.source_file_id = h._source_file_id order by 1, 2",
    )
    by_file: dict[str, dict[str, tuple]] = {}
    for name, key, value, redacted in rows:
        by_file.setdefault(name, {})[key] = (value, redacted)
    assert set(by_file) == {"hcibench.cfg", "perf-conf.yaml"}
    assert by_file["perf-conf.yaml"]["vc_password"] == (None, True)
    assert by_file["perf-conf.yaml"]["host_username"] == (None, True)
    assert by_file["hcibench.cfg"]["hosts_credential"] == (None, True)
    assert by_file["perf-conf.yaml"]["vm_prefix"] == (f'"{CANARY}"', False)


@pytest.mark.parametrize("which", ["main", "serving"])
def test_no_secret_in_any_text_column(loaded: Path, which: str) -> None:
    db = loaded if which == "main" else serving_path(loaded)
    assert _text_hits(db, CANARY), "the scan must find an ordinary stored setting"
    for secret in SECRETS:
        assert _text_hits(db, secret) == [], secret


@pytest.mark.parametrize("which", ["main", "serving"])
def test_no_secret_in_the_raw_bytes_of_the_file(loaded: Path, which: str) -> None:
    db = loaded if which == "main" else serving_path(loaded)
    files = [db, *db.parent.glob(db.name + ".wal")]
    # Short strings are stored uncompressed: the ordinary setting is there in plain bytes,
    # so a stored secret would be too.
    assert CANARY.encode() in db.read_bytes()
    for path in files:
        raw = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in raw, f"{secret} in {path.name}"
            assert secret.encode("utf-16-le") not in raw
