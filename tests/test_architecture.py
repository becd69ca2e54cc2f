"""The package structure holds (docs/ARCHITECTURE.md, "Where each job lives").

GIVEN every Python module of the product, read as source (imports at any depth, lazy ones too)
THEN the top-level packages import each other without a cycle, nothing outside tests/ imports
from tests/, and outside warehouse/ no module knows which kind of warehouse it works on: it
imports the `warehouse` interface, never the file's or the lake's own modules or classes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PRODUCT = (
    "analysis",
    "app",
    "benchmarks",
    "expectations",
    "harness",
    "ingest",
    "synth",
    "warehouse",
)
# The kinds of warehouse and their mechanics: only warehouse/ itself may name them.
KIND_MODULES = (
    "warehouse.file",
    "warehouse.lake",
    "warehouse.lake_locks",
    "warehouse.ducklake",
    "warehouse.filelock",
)
KIND_NAMES = ("FileWarehouse", "LakeWarehouse", "LakeAddress", "is_lake", "is_lake_name")
# Benchmarks compare the kinds (file vs lake loads, publishes) and so name them.
MAY_NAME_KINDS = ("warehouse", "benchmarks")


def _modules(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for every import in the file, at any depth."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {package: set() for package in PRODUCT}
    for package in PRODUCT:
        for path in _modules(package):
            for module, _ in _imports(path):
                top = module.split(".")[0]
                if top in graph and top != package:
                    graph[package].add(top)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path (first node repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_between_top_level_packages() -> None:
    graph = _package_graph()
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"
    # and the layering the docs describe: the warehouse is the floor
    assert graph["warehouse"] == set()
    assert "ingest" not in graph["synth"] and "ingest" not in graph["expectations"]


@pytest.mark.parametrize("package", PRODUCT)
def test_nothing_outside_tests_imports_tests(package: str) -> None:
    offenders = [
        f"{path.relative_to(REPO)}: {module}"
        for path in _modules(package)
        for module, _ in _imports(path)
        if module == "tests" or module.startswith("tests.")
    ]
    assert offenders == []


@pytest.mark.parametrize("package", [p for p in PRODUCT if p not in MAY_NAME_KINDS])
def test_only_the_warehouse_package_knows_the_kinds_of_warehouse(package: str) -> None:
    offenders = []
    for path in _modules(package):
        for module, names in _imports(path):
            named = [n for n in names if n in KIND_NAMES or f"warehouse.{n}" in KIND_MODULES]
            if module in KIND_MODULES or (module == "warehouse" and named):
                offenders.append(f"{path.relative_to(REPO)}: {module} {named}")
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(REPO)}: {name}" for name in KIND_NAMES if name in text]
    assert offenders == []
