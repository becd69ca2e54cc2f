"""SFD7 VSAN 6.0 scaling: per-host outputs load and add up to the published figures."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from synth.studies import sfd7_vsan60_scaling as study
from tests.synth._study_checks import generate_and_total, load_subset, seed_by_id

SEED = seed_by_id(study.STUDY_ID)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("sfd7")
    totals = generate_and_total(study, root / "data")
    return root / "data", totals


def test_one_run_of_each_testbed_loads_without_rejections(tmp_path):
    study.write(tmp_path / "data")
    keep = {"hybrid/8hosts-r70", "allflash/2dg-ws400gb"}
    assert load_subset(tmp_path / "data" / study.STUDY_ID, keep, tmp_path / "w.duckdb") == 0


def _value(figure_id: str) -> float:
    return float(SEED[figure_id]["value"])


@pytest.mark.parametrize(
    ("figure_id", "folder", "column", "per_node", "tolerance"),
    [
        pytest.param(
            "sfd7-hybrid-64h-r100-iops", "hybrid/64hosts-r100", "iops", 1, 0.05, id="3.8M"
        ),
        pytest.param("sfd7-hybrid-64h-r70-iops", "hybrid/64hosts-r70", "iops", 1, 0.01, id="992K"),
        pytest.param(
            "sfd7-hybrid-64h-r70-read-iops",
            "hybrid/64hosts-r70",
            "read_iops",
            1,
            0.01,
            id="694K-read",
        ),
        pytest.param(
            "sfd7-hybrid-64h-r70-write-iops",
            "hybrid/64hosts-r70",
            "write_iops",
            1,
            0.01,
            id="298K-write",
        ),
        pytest.param(
            "sfd7-hybrid-64h-r70-iops-per-node",
            "hybrid/64hosts-r70",
            "iops",
            64,
            0.01,
            id="15.5K-per-host",
        ),
        pytest.param(
            "sfd7-hybrid-2dg-r100-iops-per-node",
            "hybrid/8hosts-2dg-r100",
            "iops",
            8,
            0.001,
            id="116K-per-host-2dg",
        ),
        pytest.param(
            "sfd7-hybrid-2dg-r70-iops-per-node",
            "hybrid/8hosts-2dg-r70",
            "iops",
            8,
            0.001,
            id="31K-per-host-2dg",
        ),
        pytest.param("sfd7-af-1dg-ws100-iops", "allflash/1dg-ws100gb", "iops", 1, 0.01, id="350K"),
        pytest.param(
            "sfd7-af-2dg-ws400-iops-per-node",
            "allflash/2dg-ws400gb",
            "iops",
            8,
            0.01,
            id="68.75K-per-host",
        ),
        pytest.param(
            "sfd7-hybrid-r100-latency", "hybrid/16hosts-r100", "latency_ms", 1, 0.001, id="2.25ms"
        ),
        pytest.param(
            "sfd7-hybrid-4h-r70-latency",
            "hybrid/4hosts-r70",
            "latency_ms",
            1,
            0.001,
            id="2.5ms-4-hosts",
        ),
        pytest.param(
            "sfd7-af-2dg-ws1200-latency",
            "allflash/2dg-ws1200gb",
            "latency_ms",
            1,
            0.001,
            id="2.5ms-1200gb",
        ),
    ],
)
def test_per_host_outputs_add_up_to_the_published_figure(
    generated, figure_id, folder, column, per_node, tolerance
):
    _, totals = generated
    measured = totals[folder][column] / per_node
    assert measured == pytest.approx(_value(figure_id), rel=tolerance)


def test_one_output_per_host_and_over_60k_per_host_at_64_hosts(generated):
    _, totals = generated
    assert totals["hybrid/64hosts-r100"]["outputs"] == 64
    assert totals["hybrid/64hosts-r100"]["iops"] / 64 > _value("sfd7-hybrid-64h-r100-iops-per-node")
    assert totals["hybrid/64hosts-r70"]["latency_ms"] > _value("sfd7-hybrid-64h-r70-latency")


def test_working_set_drops_round_to_the_published_deltas(generated):
    _, totals = generated
    drop1 = 100 * (
        totals["allflash/1dg-ws400gb"]["iops"] / totals["allflash/1dg-ws100gb"]["iops"] - 1
    )
    drop2 = 100 * (
        totals["allflash/2dg-ws400gb"]["iops"] / totals["allflash/2dg-ws100gb"]["iops"] - 1
    )
    assert drop1 == pytest.approx(_value("sfd7-af-1dg-ws400-vs-ws100-iops-delta"), abs=1.0)
    assert drop2 == pytest.approx(_value("sfd7-af-2dg-ws400-vs-ws100-iops-delta"), abs=1.0)
    assert round(drop2 - drop1) == _value("sfd7-af-2dg-vs-1dg-drop-difference")


def _run_labels(data: Path, folder: str) -> dict:
    return yaml.safe_load((data / study.STUDY_ID / folder / "run.yaml").read_text())


def test_all_flash_working_sets_differ_in_working_set_gb_alone(generated):
    """No `profile` named after the working set: a 100 GB and a 400 GB run of one disk-group
    count differ in one label, so config_deltas attributes the drop to the working set."""
    data, _ = generated
    ws100 = _run_labels(data, "allflash/2dg-ws100gb")
    ws400 = _run_labels(data, "allflash/2dg-ws400gb")
    assert "profile" not in ws100 and "profile" not in ws400
    differing = {k for k in ws100.keys() | ws400.keys() if ws100.get(k) != ws400.get(k)}
    assert differing == {"working_set_gb"}
    assert (ws100["working_set_gb"], ws400["working_set_gb"]) == (100, 400)


def test_hybrid_runs_carry_the_mirroring_policy(generated):
    """'with mirroring this represents 595K writes to the backend': RAID-1, FTT=1."""
    data, _ = generated
    for folder in ("hybrid/64hosts-r70", "hybrid/8hosts-2dg-r100"):
        labels = _run_labels(data, folder)
        assert (labels["ftm"], labels["ftt"]) == ("RAID-1", 1)
    assert "ftm" not in _run_labels(data, "allflash/1dg-ws100gb")
