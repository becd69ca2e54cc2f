"""Every dashboard page is a dbt exposure (issue 26): `dbt docs` shows which marts each page
reads. The pages are app/lib/navigation.py's; an exposure names a page by its script
(`dashboard_<script stem>`), its menu title and its URL, and depends only on marts and seeds
(what the app may read, STYLE.md rule 14)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from app.lib.navigation import PAGES
from tests.dbt.conftest import DBT_PROJECT
from tests.dbt.test_project_layout import _layer, _models, relation_name

APP_URL = "http://localhost:8501/"
_REF = re.compile(r"^ref\(\s*'([a-z0-9_]+)'\s*\)$")


def _exposures() -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in (DBT_PROJECT / "models").rglob("*.yml"):
        for exposure in yaml.safe_load(path.read_text(encoding="utf-8")).get("exposures") or []:
            assert exposure["name"] not in found, exposure["name"]
            found[exposure["name"]] = exposure
    return found


def _exposure_name(page_path: str) -> str:
    return "dashboard_" + Path(page_path).stem


def _mart_relations() -> set[str]:
    """What lives in schema marts: the marts, the outcome of a check (not its chk_ steps), the
    seeds."""
    models = {
        name
        for name, path in _models().items()
        if _layer(path) == "marts" or (_layer(path) == "checks" and not name.startswith("chk_"))
    }
    return models | {path.stem for path in (DBT_PROJECT / "seeds").glob("*.csv")}


def test_every_page_has_a_dashboard_exposure() -> None:
    exposures = _exposures()
    missing = [page.path for page in PAGES if _exposure_name(page.path) not in exposures]
    assert missing == [], f"pages without an exposure in dbt_project/models: {missing}"
    for index, page in enumerate(PAGES):
        exposure = exposures[_exposure_name(page.path)]
        # the first page is Streamlit's default, served at the root
        url_path = "" if index == 0 else Path(page.path).stem
        assert exposure["type"] == "dashboard", page.path
        assert exposure["label"] == page.title, page.path
        assert exposure["url"] == APP_URL + url_path, page.path
        assert exposure["owner"].get("name") or exposure["owner"].get("email"), page.path
        assert exposure["maturity"] in ("high", "medium", "low"), page.path
        assert page.path in exposure["description"], page.path
        assert exposure["depends_on"], page.path


def test_every_dashboard_exposure_is_a_page() -> None:
    pages = {_exposure_name(page.path) for page in PAGES}
    dashboards = {n for n, e in _exposures().items() if e["type"] == "dashboard"}
    assert dashboards - pages == set()


def test_pages_depend_on_marts_and_seeds_only() -> None:
    marts = _mart_relations()
    for name, exposure in _exposures().items():
        refs = [_REF.match(item) for item in exposure["depends_on"]]
        assert all(refs), f"{name}: depends_on takes ref('<mart>') items"
        read = [ref.group(1) for ref in refs if ref]
        assert len(read) == len(set(read)), f"{name} lists a mart twice"
        assert set(read) <= marts, f"{name} depends on {sorted(set(read) - marts)}"


def test_the_report_exposure_names_exactly_the_marts_the_report_reads() -> None:
    from app.report.data import MARTS

    exposure = _exposures()["ra_report"]
    refs = {_REF.match(ref).group(1) for ref in exposure["depends_on"]}
    assert {relation_name(ref) for ref in refs} == set(MARTS)
    assert refs <= _mart_relations()
