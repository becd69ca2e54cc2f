"""vdbench_text: the rendered stdout parses with the real parser and prints the asked totals."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import statistics

import pytest

from ingest.parsers import vdbench
from ingest.records import SourceFile
from synth import vdbench_text

RUN = vdbench_text.VdbenchRun(
    rd_name="run1",
    elapsed_s=300,
    warmup_s=60,
    interval_s=30,
    started_at=dt.datetime(2018, 6, 4, 12, 0, 5),
)
TOTALS = vdbench_text.VdbenchTotals(
    iops=30381.19, read_pct=70.0, resp_ms=1.234, read_resp_ms=0.987, write_resp_ms=1.81
)


def _source(name: str = "hci-vdb-1.txt") -> SourceFile:
    return SourceFile(path=f"case/{name}", name=name, folder="case", sha256="0" * 64, size_bytes=1)


@pytest.mark.parametrize(
    "layout", [pytest.param("50406", id="50406"), pytest.param("50407", id="50407")]
)
def test_rendered_stdout_parses_to_the_totals(layout: str) -> None:
    text = vdbench_text.render_stdout(RUN, TOTALS, layout=layout, seed=1)
    assert vdbench.detect(text.encode()[:65536], "hci-vdb-1.txt")
    parsed = vdbench.parse(text.encode(), _source())
    runs = parsed.tables["vdbench_runs"]
    assert len(runs) == 1
    run = runs[0]
    assert (run.iops, run.read_pct, run.resp_ms) == (30381.19, 70.0, 1.234)
    assert (run.read_resp_ms, run.write_resp_ms) == (0.987, 1.81)
    assert (run.first_interval, run.last_interval, run.interval_count) == (3, 12, 12)
    assert run.elapsed_s == 300 and run.warmup_s == 60
    measured = [i.iops for i in parsed.tables["vdbench_intervals"] if i.interval_index >= 3]
    # zero-sum jitter: the measured intervals average to the totals within print rounding
    assert sum(measured) / len(measured) == pytest.approx(30381.19, abs=0.01)


def test_same_seed_same_text_other_seed_other_text() -> None:
    one = vdbench_text.render_stdout(RUN, TOTALS, seed=3)
    assert one == vdbench_text.render_stdout(RUN, TOTALS, seed=3)
    assert one != vdbench_text.render_stdout(RUN, TOTALS, seed=4)


def test_split_cluster_totals_adds_up() -> None:
    parts = vdbench_text.split_cluster_totals(486_099, 1.10, 16, random.Random(0))
    assert round(sum(i for i, _ in parts), 2) == 486_099
    weighted = sum(i * r for i, r in parts) / sum(i for i, _ in parts)
    assert abs(weighted - 1.10) <= 0.0005
    assert len({i for i, _ in parts}) > 1  # the VMs differ


def test_direction_resp_keeps_the_mix_mean() -> None:
    read, write = vdbench_text.direction_resp(2.0, 70, 1.8)
    assert 0.7 * read + 0.3 * write == pytest.approx(2.0)
    assert vdbench_text.direction_resp(2.0, 100, 1.8) == (2.0, 0.0)
    assert vdbench_text.direction_resp(2.0, 0, 1.8) == (0.0, 2.0)


def test_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="layout"):
        vdbench_text.render_stdout(RUN, TOTALS, layout="50499")


def test_interval_lines_ramp_up_in_the_warmup_then_move_as_ar1() -> None:
    long_run = dataclasses.replace(RUN, elapsed_s=3000, interval_s=5)
    text = vdbench_text.render_stdout(long_run, TOTALS, seed=4)
    rows = vdbench.parse(text.encode(), _source()).tables["vdbench_intervals"]
    warm = [r for r in rows if r.interval_index <= 12]
    measured = [r for r in rows if r.interval_index > 12]
    assert (len(warm), len(measured)) == (12, 600)
    # the avg_ line is the measured intervals' mean rate and IOPS-weighted response time
    assert sum(r.iops for r in measured) / 600 == pytest.approx(30381.19, abs=0.01)
    weighted = sum(r.iops * r.resp_ms for r in measured) / sum(r.iops for r in measured)
    assert weighted == pytest.approx(1.234, abs=0.001)
    # warm-up: the first 5 s at about 1 - 0.25 e^(-2.5/10) = 0.81 of the plateau
    assert warm[0].iops < 0.88 * 30381.19
    # Little's law: response time x rate is the same in every line (to print precision)
    products = [r.iops * r.resp_ms for r in rows]
    assert max(products) / min(products) == pytest.approx(1.0, abs=0.002)
    # AR(1): neighbouring measured intervals move together
    rates = [r.iops for r in measured]
    assert 0.45 < statistics.correlation(rates[:-1], rates[1:]) < 0.75
