"""A user's own figures file in team mode (DuckLake): stored in raw.published_figures, a
figure id another stored figures file holds refused in the write's transaction (the lake's
snapshot sees the other file), and a changed file replacing its figures; one process at a time,
the way the file warehouse's tests (tests/ingest/test_published_figures.py) do it."""

from __future__ import annotations

from pathlib import Path

from tests.ingest.test_published_figures import example_rows, write_figures
from tests.lake.test_lake_build import lake_env, start
from warehouse import ducklake


def load(env: dict[str, str], path: Path) -> tuple[int, str]:
    proc = start(env, "load", str(path))
    out, _ = proc.communicate(timeout=240)
    return proc.returncode, " ".join(out.split())


def figures(target) -> list[tuple]:
    with ducklake.connect(target, read_only=True) as con:
        sql = "select figure_id, value from raw.published_figures order by row_number"
        return con.execute(sql).fetchall()


def test_figures_in_a_lake_refuse_a_taken_id_and_replace_when_changed(lake_target, tmp_path):
    env = lake_env(lake_target, tmp_path / "work")
    first = write_figures(tmp_path / "a" / "figures.csv", example_rows())
    assert load(env, first)[0] == 0
    expected = [(r["figure_id"], float(r["value"])) for r in example_rows()]
    assert figures(lake_target) == expected

    taken = example_rows()[0]
    code, out = load(env, write_figures(tmp_path / "b" / "figures.csv", [taken]))
    assert code == 1
    assert f"row 2, column figure_id: figure id '{taken['figure_id']}' is already loaded" in out
    assert figures(lake_target) == expected

    write_figures(first, [{**taken, "value": "3000"}])
    assert load(env, first)[0] == 0
    assert figures(lake_target) == [(taken["figure_id"], 3000.0)]
