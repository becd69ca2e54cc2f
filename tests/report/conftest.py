"""The report's tests read the warehouse the app's tests read: the product's own build of the
samples, fixtures and reference dataset, published (tests/app/conftest.py's session fixture;
PERF_APP_TEST_WAREHOUSE names one already built, e.g. by scripts/main.sh)."""

from __future__ import annotations

from tests.app.conftest import real_warehouse, warehouse

__all__ = ["real_warehouse", "warehouse"]
