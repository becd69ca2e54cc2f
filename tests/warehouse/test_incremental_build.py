"""Issue 30: after a few more files, `ingest build` rebuilds only what they change, and the
marts are those of a full build of the same loads; changed code forces a full build.

Real samples of five formats are loaded and built in full; three real fio JSON files held
back are loaded next and built again (the incremental build); a copy of that warehouse is
then built with `--full` and every relation of `marts` is compared row by row.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import yaml

from tests.conftest import SAMPLES
from tests.lake.test_lake_build import _rows, _sorted, mart_relations
from tests.reliability.conftest import REJECTED_SAMPLES, run_ingest
from warehouse import build_state
from warehouse.build import DBT_PROJECT, built_for, plan_build, run_build
from warehouse.build_state import LIVE_SOURCES, BuildState
from warehouse.file import FileWarehouse

SAMPLE_FOLDERS = ("fio", "vdbench", "vsan_capacity", "vsan_perfsvc")
ESXTOP_SAMPLE = "esxtop/rach-sharp_esxtopd__small-esxtop-data.csv"
# Loaded after the first build: three fio JSON outputs of different fio versions.
MORE = (
    "fio/fioplot__fio-3.14__randread-1-1.json",
    "fio/pkb__fio-2.17__group_reporting_numjobs2__pkb-7fb0c9d8-0_fio.json",
    "fio/generated-locally/fio-3.33__json-unified-mixed.json",
)


@dataclass(frozen=True)
class Builds:
    incremental: Path  # built in full, then loaded MORE and built again
    full: Path  # a copy of `incremental` before its second build, built with --full
    incremental_output: str
    again_output: str


def _copy(files: list[Path], dest: Path) -> Path:
    for source in files:
        copy = dest / source.relative_to(SAMPLES)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, copy)
    return dest


def _build(db: Path, *args: str) -> str:
    done = run_ingest(db, "build", *args, timeout=600, DBT_TARGET_PATH=str(db.parent / "target"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    work = tmp_path_factory.mktemp("incremental")
    samples = sorted(
        p
        for folder in SAMPLE_FOLDERS
        for p in (SAMPLES / folder).rglob("*")
        if p.is_file() and p.name not in REJECTED_SAMPLES
    )
    more = [SAMPLES / name for name in MORE]
    base = _copy([p for p in samples if p not in more] + [SAMPLES / ESXTOP_SAMPLE], work / "a")
    added = _copy(more, work / "b")
    db = work / "inc" / "warehouse.duckdb"
    db.parent.mkdir()
    assert run_ingest(db, "load", str(base), "--quiet").returncode == 0
    assert "full build: no record" in _build(db)
    assert run_ingest(db, "load", str(added), "--quiet").returncode == 0
    # the same loads, built in full in a copy (same source-file ids, same load times)
    full = work / "full" / "warehouse.duckdb"
    full.parent.mkdir()
    shutil.copy(db, full)
    incremental_output = _build(db)
    _build(full, "--full")
    return Builds(db, full, incremental_output, _build(db))


def test_a_few_more_files_rebuild_only_the_tables_downstream_of_their_raw_tables(builds):
    out = " ".join(builds.incremental_output.split())
    assert "changed build: rows changed in" in out
    assert "raw.fio_runs" in out and "raw.source_files" in out
    # the other formats' raw tables gained nothing
    assert "raw.vdbench_runs" not in out and "raw.esxtop_samples" not in out


def test_a_build_with_nothing_changed_runs_nothing(builds):
    assert "nothing to build" in builds.again_output
    assert "built; not yet on the dashboard" not in builds.again_output


def _marts(db: Path) -> dict[str, list[tuple]]:
    """Every relation of `marts` with its rows, sorted. Each warehouse on its own connection:
    dbt's views name their catalog, the file's stem, which both files share."""
    with duckdb.connect(str(db), read_only=True) as con:
        relations = mart_relations(con)
        return {
            relation: _sorted(_rows(con, relation, columns, {}), list(range(len(columns))))
            for relation, columns in relations.items()
        }


def test_the_incremental_build_gives_the_marts_of_a_full_build(builds):
    incremental, full = _marts(builds.incremental), _marts(builds.full)
    assert incremental.keys() == full.keys() and len(full) >= 30
    for relation, rows in full.items():
        assert incremental[relation] == rows, relation
    filled = sum(bool(rows) for rows in full.values())
    assert filled >= 20, f"only {filled} of {len(full)} marts have rows"
    # the added results reach the marts (else an unchanged mart would pass as well)
    with duckdb.connect(str(builds.incremental), read_only=True) as con:
        (added,) = con.execute(
            "select count(*) from marts.fct_result_outputs r "
            "join raw.source_files f using (source_file_id) where f.path like '%/b/fio/%'"
        ).fetchone()
    assert added >= 3


def _project_copy(repo: Path) -> Path:
    """The dbt project and the packages its Python models import, as the repository has them."""
    dest = repo / DBT_PROJECT.name
    shutil.copytree(DBT_PROJECT, dest, ignore=shutil.ignore_patterns("target", "logs"))
    for package in build_state.local_packages(DBT_PROJECT):
        shutil.copytree(package, repo / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.mark.parametrize(
    "changed",
    [
        "dbt_project/seeds/label_definitions.csv",
        "dbt_project/models/marts/core/fct_workload_results.sql",
        "analysis/change_points.py",  # imported by the change_points Python model
    ],
)
def test_a_changed_seed_or_model_plans_a_full_build(builds, tmp_path, changed):
    project = _project_copy(tmp_path)
    tables = build_state.source_tables(project)
    with duckdb.connect(str(builds.incremental), read_only=True) as con:
        recorded = build_state.read_state(con)
        prints = build_state.fingerprints(con, tables)
    assert recorded is not None
    # the copy's code is the recorded code: nothing to build
    # (built as inc/warehouse.duckdb: its views name the catalog "warehouse")
    made_for = built_for([], "warehouse")
    same = BuildState(build_state.code_hash(project, made_for), prints)
    assert build_state.plan(recorded, same, tables).kind == "nothing"
    with (tmp_path / changed).open("a", encoding="utf-8") as f:
        f.write("\n")
    edited = BuildState(build_state.code_hash(project, made_for), prints)
    planned = build_state.plan(recorded, edited, tables)
    assert planned.kind == "full" and "changed" in planned.reason


def _fingerprints(db: Path) -> dict[str, str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return build_state.fingerprints(con, build_state.source_tables(DBT_PROJECT))


def _plan_now(db: Path) -> build_state.BuildPlan:
    """What `ingest build` would do now (its own planning, dbt not started)."""
    return plan_build(FileWarehouse(db), full=False)[0]


def test_a_copied_or_renamed_warehouse_file_is_built_in_full(builds, tmp_path):
    # dbt's views name the file's catalog ("warehouse".staging...): a changed build keeps the
    # views, which in a file named otherwise would name a catalog that is not there
    renamed = tmp_path / "backup-of-warehouse.duckdb"
    shutil.copy(builds.incremental, renamed)
    assert _plan_now(builds.incremental).kind == "nothing"
    planned = _plan_now(renamed)
    assert planned.kind == "full" and "catalog (a copied or renamed file)" in planned.reason


def test_one_more_file_changes_exactly_the_raw_tables_it_wrote(builds, tmp_path):
    wh = FileWarehouse(tmp_path / "warehouse.duckdb")
    shutil.copy(builds.incremental, wh.main)
    lines: list[str] = []
    assert run_build(wh, progress=lines.append).plan.kind == "nothing"
    assert lines and lines[0].startswith("nothing to build")
    # a real fio JSON with other content (its job renamed): a new file to the loader
    source = SAMPLES / "fio" / "fioplot__fio-3.16__randread-32-32.json"
    text = source.read_text(encoding="utf-8")
    assert '"jobname" : "' in text
    renamed = tmp_path / "c" / "renamed.json"
    renamed.parent.mkdir()
    renamed.write_text(text.replace('"jobname" : "', '"jobname" : "again-', 1), encoding="utf-8")
    assert run_ingest(wh.main, "load", str(renamed), "--quiet").returncode == 0
    planned = _plan_now(wh.main)
    changed = {t.relation for t in planned.changed}
    assert planned.kind == "changed" and {"raw.fio_runs", "raw.source_files"} <= changed
    assert not any(name.startswith(("raw.vdbench", "raw.esxtop")) for name in changed)
    # loading the same file twice adds nothing, so it changes nothing more
    before = _fingerprints(wh.main)
    assert run_ingest(wh.main, "load", str(renamed), "--quiet").returncode == 0
    assert _fingerprints(wh.main) == before


def _listed(tmp_path: Path, *args: str) -> list[str]:
    """`dbt ls` of the project with these arguments (names of the nodes, sorted)."""
    from dbt.cli.main import dbtRunner

    listed = dbtRunner().invoke(
        ["ls", "--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT),
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
         "--quiet", "--output", "name", *args]
    )  # fmt: skip
    assert listed.success, listed.exception
    return sorted(listed.result)


def test_a_changed_build_runs_every_data_test_a_full_build_runs_on_the_changed_rows(tmp_path):
    """Tests of views too: a view is not rebuilt, but its test reads the new rows through it."""
    fio = [t for t in build_state.source_tables(DBT_PROJECT) if t.source == "fio"]
    plan = build_state.BuildPlan("changed", "a test", tuple(fio))
    selected = _listed(tmp_path, "--resource-type", "test", "--select", *plan.selectors())
    downstream = [f"{t.selector}+" for t in fio]
    assert selected == _listed(tmp_path, "--resource-type", "test", "--select", *downstream)
    # among them the tests of the fio staging views, which no table-only selection reaches
    assert any(name.startswith("not_null_stg_fio__") for name in selected)
    models = _listed(tmp_path, "--resource-type", "model", "--select", *plan.selectors())
    assert "fct_workload_results" in models and not any(m.startswith("stg_") for m in models)


def test_no_table_reads_a_source_the_build_ignores(tmp_path):
    """The gate's results change at every publish and start no build: only views read them."""
    selectors = [f"source:{name}+,config.materialized:table" for name in LIVE_SOURCES]
    assert _listed(tmp_path, "--resource-type", "model", "--select", *selectors) == []
    # and the sources exist: a renamed one would make this pass for nothing
    declared = {
        source["name"]
        for path in (DBT_PROJECT / "models").rglob("*.yml")
        for source in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("sources") or []
    }
    assert declared >= LIVE_SOURCES
