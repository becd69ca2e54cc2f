"""Series rebuilt from cumulative counters, with the Observer's own averaging rules."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(slots=True)
class Series:
    """The Observer's `InventoryStat#add` / `#addStatic`, keeping (time, avg) points."""

    points: list[tuple[float, float]] = field(default_factory=list)
    prev: float | None = None
    prev_ts: float = 0.0
    delta: float = 0.0

    def add(self, ts: float, value: float | None, div: float | None = None) -> None:
        """A cumulative counter: its delta per second, or per `div` (an IO-count delta)."""
        if self.prev is None or value is None or self.prev > value:
            delta = 0.0  # first point, missing value or counter reset
        else:
            delta = value - self.prev
        if div is None:
            span = ts - self.prev_ts
            avg = delta / span if span else 0.0
        else:
            avg = delta / div if div else 0.0
        self.points.append((ts, avg))
        self.prev, self.prev_ts, self.delta = value, ts, delta

    def add_static(self, ts: float, value: float) -> None:
        """A gauge (or a value already averaged): kept as it is."""
        self.points.append((ts, value))
        self.prev, self.prev_ts, self.delta = value, ts, value


# The metric vocabulary of each entity type a raw capture yields, and the jsonstats group the
# bundle keeps that vocabulary's files in.
RAW_FAMILY = {
    "dom_client": "dom",
    "dom_owner": "dom",
    "dom_compmgr": "dom",
    "lsom_host": "lsom",
    "ssd": "ssd",
    "lsom_congestion": "cong",
    "physdisk": "physdisk",
    "pcpu": "pcpu",
    "vsan_worlds": "world",
    "system_mem": "mem",
}
RAW_GROUP = {
    "dom": "dom",
    "lsom": "lsom",
    "ssd": "lsom",
    "cong": "lsom",
    "physdisk": "lsom",
    "pcpu": "pcpu",
    "world": "pcpu",
    "mem": "mem",
}

SeriesId = tuple[str, str, str | None, str, str | None]  # kind, host, entity, metric, family


@dataclass
class Capture:
    """Series rebuilt from the raw counters, keyed like the bundle's files."""

    series: dict[SeriesId, Series] = field(default_factory=lambda: defaultdict(Series))

    def get(self, kind: str, host: str, entity: str | None, metric: str) -> Series:
        family = RAW_FAMILY[kind]
        return self.series[(kind, host, entity, metric, family)]
