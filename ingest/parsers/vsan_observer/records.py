"""The row every Observer series point becomes, and the checks its times and values pass."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ingest.parsers.vsan_observer.metrics import metric_name


@dataclass(frozen=True, slots=True)
class ObserverSample:
    capture: str
    stats_group: str
    entity_type: str
    host: str | None
    entity: str | None
    observer_metric: str
    metric: str
    sampled_at: dt.datetime
    value: float
    unit: str | None


@dataclass(frozen=True, slots=True)
class SeriesKey:
    """Which series a point belongs to; the same for a bundle file and a raw capture."""

    capture: str  # `bundle` | `raw`
    stats_group: str
    entity_type: str
    family: str | None  # the metric vocabulary the series' names come from
    host: str | None
    entity: str | None
    observer_metric: str


def sample_rows(key: SeriesKey, points: Iterable[tuple[float, float]]) -> Iterator[ObserverSample]:
    """One row per (epoch seconds, value) point of a series."""
    metric, unit = metric_name(key.family, key.observer_metric)
    for ts, value in points:
        yield ObserverSample(
            capture=key.capture,
            stats_group=key.stats_group,
            entity_type=key.entity_type,
            host=key.host,
            entity=key.entity,
            observer_metric=key.observer_metric,
            metric=metric,
            sampled_at=dt.datetime.fromtimestamp(ts, tz=dt.UTC),
            value=value,
            unit=unit,
        )


# Epoch seconds a datetime can hold (up to 9999-12-31): beyond that a stamp is corrupt.
_MAX_TS = 253402300799.0


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_time(ts: Any) -> bool:
    return is_number(ts) and 0 <= ts <= _MAX_TS
