"""Nothing secret is stored: credentials planted in every kind of text ingest reads
(HCIBench's `hcibench.cfg`, `perf-conf.yaml`, `vsan.cfg` and fio job file, a run.yaml and
`--label`, the options of a real fio run) are absent from every text column of every table of
every schema (raw, dbt's staging/intermediate/marts, data_quality), list and struct columns
cast to text, and from the bytes of the DuckDB file after CHECKPOINT, while an ordinary value
planted beside each is found (the scan can see values)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from tests.conftest import FIXTURES
from tests.reliability.conftest import query, run_ingest

CASE = "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000"

# name -> planted secret; every one is unique, so a hit anywhere is this test's plant.
SECRETS = {
    "vc_username": "perf-canary-admin@vsphere.local",
    "vc_password": "Vc!Pa55-w0rd-Canary",
    "host_username": "esx-canary-operator",
    "host_password": "Esx!Pa55-Canary-42",
    "hosts_credential": "U2FsdGVkX1+canarySecretBlob==",
    "host_pwd": "HostPwd-Plant-0001",
    "vc_pw": "VcPw-Plant-0002",
    "auth_header": "AuthHdr-Plant-0003",
    "sso_login": "SsoLogin-Plant-0004",
    "url_userinfo": "UrlPw-Plant-0005",
    "password_in_list": "ListPw-Plant-0006",
    "argument_in_list": "ListArg-Plant-0007",
    "nested_map": "Nested-Plant-0008",
    "vsan_cfg_host_url": "VsanHostPw-Plant-0009",
    "run_yaml": "RunYaml-Plant-0010",
    "run_yaml_nested": "RunYamlNested-Plant-0011",
    "cli_label": "CliLabel-Plant-0012",
    "fio_description_url": "FioUrl-Plant-0013",
    "fio_exec_prerun": "FioPrerun-Plant-0014",
    "fio_cfg_option": "FioCfg-Plant-0015",
    "fio_cfg_header": "FioHdr-Plant-0016",
    "bearer_in_text": "Note-Plant-0017",
    "perf_conf_sso": "PerfConfSso-Plant-0018",
}
S = SECRETS
# Ordinary values planted next to the secrets: each must be stored.
CANARIES = (
    "hci-canary-prefix",  # hcibench.cfg setting
    "vc-canary.example.local",  # the host of the URL whose user info is hidden
    "esx-canary-host",  # the host of vsan.cfg's URL
    "canary-testbed",  # run.yaml label
    "canary-fio-job",  # fio job name
    "nas-canary.example",  # fio description URL host
)

HCIBENCH_CFG = f"""vc: 10.0.0.5
vc_username: {S["vc_username"]}
vc_password: '{S["vc_password"]}'
host_pwd: {S["host_pwd"]}
vc_pw: {S["vc_pw"]}
auth_header: 'Bearer {S["auth_header"]}'
sso_login: {S["sso_login"]}
vc_url: https://admin:{S["url_userinfo"]}@vc-canary.example.local/sdk
datacenter_name: Datacenter
cluster_name: vSAN-Cluster
network_name: VM Network
reuse_vm: false
datastore_name:
- vsanDatastore
hosts:
- name: esx1
  password: {S["password_in_list"]}
extra_args:
- --threads=2
- --password={S["argument_in_list"]}
deep:
  a:
    b:
      secret: {S["nested_map"]}
      depth: 3
note: "curl -H 'Authorization: Bearer {S["bearer_in_text"]}' https://vc/api"
hosts_credential:
  10.0.0.11:
    host_username: {S["host_username"]}
    host_password: {S["hosts_credential"]}
number_vm: 2
tool: fio
vm_prefix: hci-canary-prefix
"""

# HCIBench's own name for the same settings (rvc-util.rb reads it).
PERF_CONF_YAML = f"""vc: '10.0.0.5'
vc_username: '{S["vc_username"]}'
vc_password: '{S["vc_password"]}'
datacenter_name: 'Datacenter'
cluster_name: 'vSAN-Cluster'
host_username: '{S["host_username"]}'
host_password: '{S["host_password"]}'
ssoLogin: '{S["perf_conf_sso"]}'
easy_run: true
number_vm: 2
tool: 'fio'
vm_prefix: 'hci-canary-prefix'
"""

VSAN_CFG_HOSTS = f"""Cluster Hosts Map
vSAN-Cluster:
- https://root:{S["vsan_cfg_host_url"]}@esx-canary-host
"""

RUN_YAML = f"""testbed: canary-testbed
db_password: {S["run_yaml"]}
extra:
  api_token: {S["run_yaml_nested"]}
  site: lab-1
"""

FIO_JOB = f"""[global]
description=mirror of https://svc:{S["fio_description_url"]}@nas-canary.example/share
ioengine=psync
size=4m
# time-based: a run that ends in under a second reports eta INT_MAX, read as unfinished
time_based
runtime=2
[canary-fio-job]
rw=randread
bs=4k
exec_prerun=echo password={S["fio_exec_prerun"]}
"""


def _plant_hcibench(results: Path) -> None:
    shutil.copytree(FIXTURES / "hcibench" / "results" / "hcib25-fio", results / "hcib25-fio")
    case = results / "hcib25-fio" / CASE
    (case / "hcibench.cfg").write_text(HCIBENCH_CFG, encoding="utf-8")
    (case / "perf-conf.yaml").write_text(PERF_CONF_YAML, encoding="utf-8")
    vsan = case / "vsan.cfg"
    vsan.write_text(vsan.read_text(encoding="utf-8").rstrip("\n") + "\n" + VSAN_CFG_HOSTS)
    fio_cfg = case / "fio.cfg"
    job = fio_cfg.read_text(encoding="utf-8")
    job = job.replace(
        "; working_set:    100\n",
        f"; working_set:    100\n; auth_header: Bearer {S['fio_cfg_header']}\n",
    )
    job = job.replace("[global]\n", f"[global]\nhttp_pass={S['fio_cfg_option']}\n")
    fio_cfg.write_text(job, encoding="utf-8")


def _plant_fio_run(folder: Path) -> None:
    """A real fio 3.33 JSON output whose job options carry a URL and a command line."""
    folder.mkdir()
    (folder / "job.fio").write_text(FIO_JOB, encoding="utf-8")
    done = subprocess.run(
        ["fio", "--output-format=json", "--output=canary.json", f"--directory={folder}", "job.fio"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (folder / "job.fio").unlink()  # not a tool output: would be skipped, but keep it simple
    for leftover in folder.iterdir():
        if leftover.name != "canary.json":
            leftover.unlink()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The warehouse after load + dbt build + publish, and the output of each command."""
    if shutil.which("fio") is None:
        pytest.fail("Debian's fio is required to write the planted fio output")
    root = tmp_path_factory.mktemp("secrets")
    results = root / "results"
    results.mkdir()
    (results / "run.yaml").write_text(RUN_YAML, encoding="utf-8")
    _plant_hcibench(results)
    _plant_fio_run(results / "fio")
    db = root / "w.duckdb"
    label = f"api_token={S['cli_label']}"
    outputs = []
    for args in (("load", str(results), "--label", label), ("build",), ("publish",)):
        done = run_ingest(db, *args, timeout=900)
        outputs.append(done.stdout + done.stderr)
        if args[0] != "publish":  # publish may refuse a tiny warehouse: checked on its own
            assert done.returncode == 0, f"{args[0]}: {done.stdout}{done.stderr}"
    # A second load of the same files under the same (redacted) labels adds nothing.
    again = run_ingest(db, "load", str(results), "--label", label)
    outputs.append(again.stdout + again.stderr)
    assert again.returncode == 0, outputs[-1]
    with duckdb.connect(str(db)) as con:
        con.execute("checkpoint")
    return db, outputs


def _text_columns(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """Every column of every table and view of the database, in every schema."""
    return con.execute(
        "select table_schema, table_name, column_name from information_schema.columns "
        "where table_catalog = current_database() "
        "and table_schema not in ('information_schema', 'pg_catalog')"
    ).fetchall()


def _hits(db: Path, needles: list[str]) -> dict[str, list[str]]:
    """needle -> `schema.table.column` holding it; every column (VARCHAR, JSON, lists,
    structs, numbers) cast to text, so no type of column can hide a value from the scan."""
    found: dict[str, list[str]] = {n: [] for n in needles}
    with duckdb.connect(str(db), read_only=True) as con:
        for schema, table, column in _text_columns(con):
            blob = f'string_agg(cast("{column}" as varchar), chr(10))'
            (text,) = con.execute(f'select {blob} from "{schema}"."{table}"').fetchone()
            for needle in needles:
                if text and needle in text:
                    found[needle].append(f"{schema}.{table}.{column}")
    return found


def test_every_command_succeeded_and_printed_no_secret(built: tuple[Path, list[str]]) -> None:
    db, outputs = built
    for output in outputs:
        for name, secret in SECRETS.items():
            assert secret not in output, name
    # The reload found every file already stored: the redacted labels compare equal.
    loaded = query(db, "select count(*) from raw.source_files")[0][0]
    assert loaded == 8  # 2 VM outputs, fio.cfg, hcibench.cfg, perf-conf.yaml, vsan.cfg,
    # the -res.txt summary and the real fio run
    assert "unchanged" in outputs[-1].lower()


def test_the_scan_reaches_every_schema(built: tuple[Path, list[str]]) -> None:
    db, _ = built
    with duckdb.connect(str(db), read_only=True) as con:
        schemas = {schema for schema, _, _ in _text_columns(con)}
    assert {"raw", "staging", "intermediate", "marts"} <= schemas


def test_no_planted_secret_in_any_column_and_every_canary_found(
    built: tuple[Path, list[str]],
) -> None:
    db, _ = built
    hits = _hits(db, [*SECRETS.values(), *CANARIES])
    for canary in CANARIES:
        assert hits[canary], f"the scan must find the ordinary value {canary!r}"
    leaked = {name: hits[secret] for name, secret in SECRETS.items() if hits[secret]}
    assert leaked == {}


def test_labels_reach_the_marts_with_secrets_hidden(built: tuple[Path, list[str]]) -> None:
    db, _ = built
    rows = query(db, "select labels_json from marts.fct_workload_results order by 1")
    assert len(rows) == 2  # the HCIBench case (2 VM outputs) and the fio run
    for (labels,) in rows:
        assert '"api_token": "***"' in labels and '"db_password": "***"' in labels
        assert '"extra": {"api_token": "***", "site": "lab-1"}' in labels
        assert '"testbed": "canary-testbed"' in labels


def test_no_planted_secret_in_the_bytes_of_the_files(built: tuple[Path, list[str]]) -> None:
    db, _ = built
    files = [p for p in db.parent.iterdir() if p.name.startswith(db.name.split(".")[0])]
    assert db in files
    # Short strings are stored uncompressed: the ordinary setting is there in plain bytes,
    # so a stored secret would be too.
    assert b"hci-canary-prefix" in db.read_bytes()
    for path in files:
        if path.is_dir():
            continue
        raw = path.read_bytes()
        for name, secret in SECRETS.items():
            assert secret.encode() not in raw, f"{name} in {path.name}"
            assert secret.encode("utf-16-le") not in raw, f"{name} in {path.name}"


def test_settings_keep_what_is_not_secret(built: tuple[Path, list[str]]) -> None:
    db, _ = built
    rows = query(
        db,
        "select s.name, h.setting_key, h.value_json, h.is_redacted "
        "from raw.hcibench_settings as h join raw.source_files as s "
        "on s.source_file_id = h._source_file_id order by 1, 2",
    )
    by_file: dict[str, dict[str, tuple]] = {}
    for name, key, value, redacted in rows:
        by_file.setdefault(name, {})[key] = (value, redacted)
    assert set(by_file) == {"hcibench.cfg", "perf-conf.yaml"}
    cfg, conf = by_file["hcibench.cfg"], by_file["perf-conf.yaml"]
    for key in ("host_pwd", "vc_pw", "auth_header", "sso_login", "hosts_credential"):
        assert cfg[key] == (None, True), key
    assert conf["ssoLogin"] == (None, True)
    assert conf["host_username"] == (None, True)
    assert cfg["vc_url"] == ('"https://***@vc-canary.example.local/sdk"', True)
    assert cfg["hosts"] == ('[{"name": "esx1", "password": "***"}]', True)
    assert cfg["extra_args"] == ('["--threads=2", "--password=***"]', True)
    assert cfg["deep.a.b.secret"] == (None, True)
    assert cfg["deep.a.b.depth"] == ("3", False)
    assert cfg["note"] == ("\"curl -H 'Authorization: ***' https://vc/api\"", True)
    assert conf["vm_prefix"] == ('"hci-canary-prefix"', False)


def test_fio_options_keep_what_is_not_secret(built: tuple[Path, list[str]]) -> None:
    db, _ = built
    of_canary = "join raw.source_files as s on s.source_file_id = t._source_file_id "
    of_canary += "where s.name = 'canary.json'"
    ((global_options,),) = query(db, f"select global_options_json from raw.fio_runs t {of_canary}")
    assert '"description": "mirror of https://***@nas-canary.example/share"' in global_options
    assert '"ioengine": "psync"' in global_options
    ((job, options),) = query(db, f"select jobname, options_json from raw.fio_jobs t {of_canary}")
    assert job == "canary-fio-job"
    assert '"exec_prerun": "echo password=***"' in options
    hosts = query(
        db, "select host_name from raw.hcibench_cluster_hosts where host_name like '%//%'"
    )
    assert hosts == [("https://***@esx-canary-host",)]
