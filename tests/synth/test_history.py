"""synth.history: a fio run history from one real report (../shared/samples), read back as
JSON: every copy distinct, re-dated two runs a day, its IOPS scaled by the run's factor and
its latencies left alone, the upgrade in its own labelled folder."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import yaml

from synth.cli import main as synth_main
from synth.fio_json import documents, final_fio_dump
from synth.history import HistorySpec, write_fio_history, write_hcibench_history
from tests.conftest import SAMPLES
from tests.synth import HCIBENCH_FIO_CASE

FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"


def test_history_copies_are_redated_and_scaled(tmp_path):
    spec = HistorySpec(runs=6, change_at=4, outlier_at=1)
    runs = write_fio_history(FIO_OUTPUT, tmp_path, spec)
    original = json.loads(FIO_OUTPUT.read_text())
    docs = [json.loads(run.path.read_text()) for run in runs]
    assert len({run.path.read_bytes() for run in runs}) == 6
    assert [run.ended_at.hour for run in runs] == [9, 15] * 3
    assert runs[2].ended_at - runs[0].ended_at == dt.timedelta(days=spec.days_apart)
    for run, doc in zip(runs, docs, strict=True):
        assert doc["timestamp"] == int(run.ended_at.timestamp())
        assert doc["timestamp_ms"] == doc["timestamp"] * 1000
        for direction in ("read", "write"):
            stats, before = doc["jobs"][0][direction], original["jobs"][0][direction]
            assert stats["iops"] == pytest.approx(before["iops"] * run.factor)
            assert stats["total_ios"] == round(before["total_ios"] * run.factor)
            assert stats["lat_ns"] == before["lat_ns"]
    assert [run.is_after_change for run in runs] == [False] * 4 + [True] * 2
    assert runs[1].is_outlier and runs[1].factor < 0.8
    after = yaml.safe_load((tmp_path / "after-upgrade" / "run.yaml").read_text())
    before = yaml.safe_load((tmp_path / "before-upgrade" / "run.yaml").read_text())
    # the upgrade changes the event label vsan_version; the rest is one configuration
    assert (before["vsan_version"], after["vsan_version"]) == ("8.0u2", "8.0u3")
    assert after == {**before, "vsan_version": "8.0u3", "note": spec.upgrade_note}


def test_history_command_writes_the_runs(tmp_path, capsys):
    assert synth_main(["history", str(FIO_OUTPUT), str(tmp_path), "--runs", "8"]) == 0
    assert len(list(tmp_path.rglob("run*.json"))) == 8
    assert "wrote 8 runs" in capsys.readouterr().out


def test_an_hcibench_history_redates_the_case_and_recomputes_its_summary(tmp_path):
    spec = HistorySpec(runs=4, change_at=2, outlier_at=None)
    runs = write_hcibench_history(HCIBENCH_FIO_CASE, tmp_path, spec)
    template = HCIBENCH_FIO_CASE.with_name(HCIBENCH_FIO_CASE.name.removesuffix("-res.txt"))
    original = template / "hci-fio-datastore-2004-0-1.json"
    for run in runs:
        # the case is named by the run's start (HCIBench's epoch), beside its folder
        epoch = int(run.ended_at.timestamp())
        assert run.path.name.endswith(f"-{epoch}-res.txt")
        folder = run.path.with_name(run.path.name.removesuffix("-res.txt"))
        copied = documents((folder / original.name).read_text())
        dumps = documents(original.read_text())
        assert len(copied) == len(dumps)
        # every dump moved by one offset, its IOPS scaled, its latency kept
        offsets = {
            c["timestamp"] - d["timestamp"] for (_, c), (_, d) in zip(copied, dumps, strict=True)
        }
        assert len(offsets) == 1
        last, before = copied[-1][1]["jobs"][0]["read"], dumps[-1][1]["jobs"][0]["read"]
        assert last["iops"] == pytest.approx(before["iops"] * run.factor)
        assert last["lat_ns"] == before["lat_ns"]
        assert (folder / "fio.cfg").read_bytes() == (template / "fio.cfg").read_bytes()
        # the summary's IOPS: the sum over VMs of their final dumps, as HCIBench prints it
        vm_iops = sum(
            sum(final_fio_dump(f.read_text())["jobs"][0][d]["iops"] for d in ("read", "write"))
            for f in folder.glob("*.json")
        )
        summary = run.path.read_text()
        assert f"IOPS\t\t= {vm_iops:.2f} IO/S" in summary
        assert summary.endswith(HCIBENCH_FIO_CASE.read_text().split("Resource Usage:\n")[1])
    assert len({run.path.read_bytes() for run in runs}) == 4


def test_history_command_takes_an_hcibench_case(tmp_path, capsys):
    assert synth_main(["history", str(HCIBENCH_FIO_CASE), str(tmp_path), "--runs", "8"]) == 0
    assert len(list(tmp_path.rglob("*-res.txt"))) == 8
