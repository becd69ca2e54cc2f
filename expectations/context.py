"""The great-expectations side: one ephemeral context, a pandas datasource, a batch per model.

Everything is cached per process: importing GX and building its context is the slow part of a
run (seconds), while a batch definition is reused for every DataFrame of its model.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import great_expectations as gx
from great_expectations.data_context.types.base import ProgressBarsConfig

DATASOURCE = "warehouse"


@cache
def context() -> Any:
    """The process's ephemeral context: nothing is written to disk, no progress bars."""
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    return ctx


@cache
def _pandas_datasource() -> Any:
    return context().data_sources.add_pandas(name=DATASOURCE)


@cache
def batch_definition(model: str) -> Any:
    """A whole-DataFrame batch definition for `model`; pass the frame as a batch parameter."""
    asset = _pandas_datasource().add_dataframe_asset(name=model)
    return asset.add_batch_definition_whole_dataframe(name=f"{model}.whole")
