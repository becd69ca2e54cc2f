"""Loading without importing pandas.

pyarrow (its first `pa.array`, `pa.table`, `pa.scalar`) and DuckDB's client (every bound
parameter, every scan of a Python object) import pandas only to ask whether a value is a
pandas object. A loader never hands them one, and the import is 0.15-0.5 s of every
`ingest load` process and parse worker: a third of a one-file load, a fifth of a 94 MB esxtop
capture's. While pandas is refused, both answer "not a pandas object" and go on.

- `pandas_refused()` refuses it for the length of a load (`ingest load`, and the reload of
  `ingest check --repair`): DuckDB asks again at every call, so the refusal has to last as
  long as the loading does.
- `answer_pyarrow_probe()` refuses it once (a parse worker): pyarrow asks once per process
  and keeps the answer for its probes only; asked to convert to pandas, it imports it then.

Neither does anything when pandas is already imported (the test process, the dashboard):
there is nothing left to save. Code that does need pandas while it is refused gets a
ModuleNotFoundError that says so.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import ModuleSpec


class _RefusePandas:
    """An import finder that refuses pandas and its submodules."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(
                "pandas is not imported while files load (ingest/without_pandas.py)", name=name
            )
        return None  # type: ignore[return-value]


@contextmanager
def pandas_refused() -> Iterator[None]:
    """pandas cannot be imported inside the block, unless it already was."""
    if "pandas" in sys.modules:
        yield
        return
    finder = _RefusePandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def answer_pyarrow_probe() -> None:
    """pyarrow's pandas probe, answered "no pandas" once for this process."""
    import pyarrow as pa

    with pandas_refused():
        pa.array([0])
