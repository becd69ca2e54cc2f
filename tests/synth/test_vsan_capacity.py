"""The VsanSpaceUsage writer: what it renders is what the capacity parser reads back."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ingest.parsers import vsan_capacity as parser
from synth import vsan_capacity
from tests.ingest.conftest import parse_bytes

RAID5_3P1 = Fraction(4, 3)


def _parsed(usage: vsan_capacity.SpaceUsage):
    text = vsan_capacity.render(usage)
    assert parser.detect(text.encode()[:4096], "space_usage.json")
    return parse_bytes(parser, text.encode(), "/drop/space_usage.json")


def test_breakdown_and_efficiency_round_trip_through_the_parser() -> None:
    usage = vsan_capacity.SpaceUsage(
        total_capacity_bytes=10_000,
        object_spaces=(
            vsan_capacity.protected("vdisk", 4_000, RAID5_3P1),
            vsan_capacity.system("fileSystemOverhead", 1_000),
        ),
        logical_used_bytes=5_000,
        physical_used_bytes=2_000,
    )
    parsed = _parsed(usage)
    (snapshot,) = parsed.tables["vsan_capacity_snapshots"]
    assert (snapshot.logical_used_bytes, snapshot.physical_used_bytes) == (5_000, 2_000)
    assert snapshot.ratio_computed == 2.5
    assert snapshot.free_capacity_bytes == 8_000  # total minus the physical use
    rows = {r.obj_type: r for r in parsed.tables["vsan_space_usage_by_object_type"]}
    # 4,000 used under 3+1: 3,000 data + 1,000 parity; system types hold no data
    assert (rows["vdisk"].primary_capacity_bytes, rows["vdisk"].overhead_bytes) == (3_000, 1_000)
    assert rows["fileSystemOverhead"].primary_capacity_bytes == 0
    assert rows["fileSystemOverhead"].used_bytes == 1_000
    # the overview is the cluster after data efficiency: 2,000 physical bytes
    assert rows[None].scope == "overview" and rows[None].used_bytes == 2_000


def test_without_data_efficiency_there_is_no_ratio() -> None:
    usage = vsan_capacity.SpaceUsage(
        total_capacity_bytes=100,
        object_spaces=(vsan_capacity.ObjectSpace("vdisk", 40, 20),),
    )
    parsed = _parsed(usage)
    (snapshot,) = parsed.tables["vsan_capacity_snapshots"]
    assert snapshot.has_efficient_capacity is False and snapshot.ratio_computed is None
    assert snapshot.free_capacity_bytes == 40
    assert "no efficientCapacity: data efficiency was off, no ratio" in parsed.notes


def test_split_by_shares_adds_up_exactly() -> None:
    parts = vsan_capacity.split_by_shares(1_001, {"a": Fraction(1, 3), "b": Fraction(2, 3)})
    assert parts == {"a": 334, "b": 667}
    with pytest.raises(ValueError, match="sum to 1"):
        vsan_capacity.split_by_shares(10, {"a": Fraction(1, 2)})


def test_a_snapshot_larger_than_the_cluster_is_refused() -> None:
    usage = vsan_capacity.SpaceUsage(
        total_capacity_bytes=10, object_spaces=(vsan_capacity.system("statsdb", 11),)
    )
    with pytest.raises(ValueError, match="more than the cluster"):
        vsan_capacity.render(usage)
