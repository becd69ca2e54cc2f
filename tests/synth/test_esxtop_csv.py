"""The esxtop capture writer produces captures the esxtop parser reads back with the chosen CPU."""

from __future__ import annotations

import datetime as dt

import pytest

from ingest.parsers import esxtop
from ingest.sources import source_for
from synth.esxtop_csv import HostCapture, capture_text

FIRST = dt.datetime(2024, 1, 15, 10, 0, 5, tzinfo=dt.UTC)


def _parse(text: str):
    data = text.encode()
    assert esxtop.detect(data[:65536], "esxtop-host.csv")
    return esxtop.parse(data, source_for("/r/esxtop-host.csv", data))


def _values(parsed, group: str, instance: str | None, counter: str) -> dict[str, list[float]]:
    counters = parsed.tables["esxtop_counters"].to_pylist()
    samples = parsed.tables["esxtop_samples"].to_pylist()
    ids = {
        c["counter_id"]: c["host"]
        for c in counters
        if (c["object_group"], c["instance"], c["counter"]) == (group, instance, counter)
    }
    out: dict[str, list[tuple[int, float]]] = {}
    for s in samples:
        if s["counter_id"] in ids:
            out.setdefault(ids[s["counter_id"]], []).append((s["sample_index"], s["value"]))
    return {host: [v for _, v in sorted(pairs)] for host, pairs in out.items()}


@pytest.mark.parametrize(
    ("util", "load"),
    [pytest.param(99.0, 0.99, id="near-full"), pytest.param(54.0, 0.47, id="half")],
)
def test_total_util_averages_to_the_chosen_value(util, load):
    hosts = [HostCapture("h1.lab", util, load, pcpu_count=16), HostCapture("h2.lab", 20.0, 0.2)]
    parsed = _parse(capture_text(hosts, first_sample_at=FIRST, interval_s=5, samples=11, seed=1))
    totals = _values(parsed, "Physical Cpu", "_Total", "% Util Time")
    assert sum(totals["h1.lab"]) / 11 == pytest.approx(util, abs=1e-9)
    assert sum(totals["h2.lab"]) / 11 == pytest.approx(20.0, abs=1e-9)
    assert all(0 <= v <= 100 for v in totals["h1.lab"])
    loads = _values(parsed, "Physical Cpu Load", None, "Cpu Load (1 Minute Avg)")
    assert loads["h1.lab"] == [load] * 11


def test_per_pcpu_cells_average_to_the_total_of_their_row():
    host = HostCapture("h1.lab", 64.5, 0.65, pcpu_count=8)
    parsed = _parse(capture_text([host], first_sample_at=FIRST, interval_s=5, samples=4, seed=2))
    per_pcpu = [_values(parsed, "Physical Cpu", str(i), "% Util Time")["h1.lab"] for i in range(8)]
    totals = _values(parsed, "Physical Cpu", "_Total", "% Util Time")["h1.lab"]
    for row, total in enumerate(totals):
        assert sum(p[row] for p in per_pcpu) / 8 == pytest.approx(total, abs=1e-9)


def test_sample_times_are_utc_and_spaced_by_the_interval():
    text = capture_text(
        [HostCapture("h1", 50.0, 0.5)], first_sample_at=FIRST, interval_s=5, samples=3, seed=0
    )
    assert text.splitlines()[1].startswith('"01/15/2024 10:00:05"')
    parsed = _parse(text)
    times = [t.sampled_at for t in parsed.tables["esxtop_sample_times"]]
    assert times == [FIRST + dt.timedelta(seconds=5 * i) for i in range(3)]


def test_same_seed_same_bytes():
    hosts = [HostCapture("h1", 75.0, 0.75)]
    a = capture_text(hosts, first_sample_at=FIRST, interval_s=5, samples=5, seed=9)
    assert a == capture_text(hosts, first_sample_at=FIRST, interval_s=5, samples=5, seed=9)
