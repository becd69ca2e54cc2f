"""The Add results page (issue 30), in AppTest on a copy of the reference warehouse.

GIVEN a copy of the built reference warehouse (its uploads folder is the copy's)
WHEN real tool outputs from ../shared/samples are uploaded through the page's file uploader,
  with labels typed in its form
THEN the page shows `ingest load`'s own summary lines (a rejected file with its place and
  reason, a file already loaded), a refused label with its name and allowed values, and with
  PERF_UPLOADS=off no uploader at all. The uploads here store nothing new, so no build runs:
  tests/app/test_upload_job.py and the browser test build and publish.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.lib import upload_job
from tests.conftest import SAMPLES
from warehouse.label_seed import LABEL_SEED

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
PAGE = "app_pages/add_results.py"
FIO_LOADED = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"  # in the reference set
FIO_BROKEN = SAMPLES / "fio" / "fioplot__no_json_only_errors__randread-1-1.json"


@pytest.fixture()
def warehouse_copy(warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference warehouse and its published version, copied: uploads go beside it."""
    for name in ("warehouse.duckdb", "warehouse.serving.duckdb", "warehouse.validation.json"):
        if (warehouse.parent / name).exists():
            shutil.copy2(warehouse.parent / name, tmp_path / name)
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(tmp_path / "warehouse.duckdb"))
    monkeypatch.delenv("PERF_WAREHOUSE", raising=False)
    monkeypatch.delenv("PERF_UPLOAD_DIR", raising=False)
    return tmp_path / "warehouse.duckdb"


def open_page() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def submit(at: AppTest, files: list[Path], extra_labels: str = "") -> upload_job.UploadJob:
    """Upload `files` with the form, press its button, wait for the job, show its end."""
    at.file_uploader(key="upload_files").set_value(
        [(f.name, f.read_bytes(), "application/json") for f in files]
    )
    at.text_area(key="label_extra").set_value(extra_labels)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    job = upload_job.job(at.session_state["upload_job_id"])
    assert job is not None
    assert job.finished.wait(120), f"the upload job did not end: {job.step} {job.live[-3:]}"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return job


def code_text(at: AppTest) -> str:
    return "\n".join(block.value for block in at.code)


def seed_rows() -> list[dict[str, str]]:
    with LABEL_SEED.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_form_has_a_field_per_label_definition(warehouse_copy: Path) -> None:
    at = open_page()
    for row in seed_rows():
        key = f"label_{row['key']}"
        if row["type"] == "choice":
            assert at.selectbox(key=key).options == ["", *row["allowed_values"].split("|")]
        elif row["type"] == "int":
            field = at.number_input(key=key)
            assert (field.min, field.max) == (int(row["min_value"]), int(row["max_value"]))
        elif row["type"] == "bool":
            assert at.selectbox(key=key).options == ["", "true", "false"]
        else:
            assert at.text_input(key=key).value == ""


def test_a_real_fio_file_and_a_rejected_one_show_the_load_summary(warehouse_copy: Path) -> None:
    at = open_page()
    job = submit(at, [FIO_LOADED, FIO_BROKEN])
    # THEN the upload is kept under the warehouse's folder, named for its first file
    assert job.folder.parent == warehouse_copy.parent / "uploads"
    assert job.folder.name.endswith(FIO_LOADED.name)
    assert sorted(p.name for p in job.folder.iterdir()) == sorted(
        [FIO_LOADED.name, FIO_BROKEN.name]
    )
    # and the page shows the CLI's lines: the rejected file with its place and reason
    shown = code_text(at)
    rejected = f"rejected {job.folder.name}/{FIO_BROKEN.name}: line 1: no fio results"
    assert rejected in shown
    assert "fio: engine libaio not loadable" in shown
    # the fio sample's bytes, unlabelled, are the reference set's: already loaded, so there
    # is nothing to build and the page says so
    summary = "Summary: 0 loaded, 1 already loaded (unchanged), 0 skipped, 1 rejected"
    assert summary in shown
    assert job.state is upload_job.State.NOTHING_NEW
    assert [s.name for s in job.done] == ["load"]
    assert any("nothing new to build" in i.value for i in at.info)


def test_a_refused_label_is_named_with_its_allowed_values(warehouse_copy: Path) -> None:
    at = open_page()
    at.text_input(key="label_testbed").set_value("my-lab")
    job = submit(at, [FIO_LOADED], extra_labels="ftm=RAID-9")
    assert job.state is upload_job.State.LABELS_REFUSED
    allowed = next(r["allowed_values"] for r in seed_rows() if r["key"] == "ftm")
    shown = "\n".join(e.value for e in at.error)
    assert "A label was refused" in shown
    assert "'ftm'" in shown and ", ".join(allowed.split("|")) in shown and "RAID-9" in shown
    assert not job.folder.exists()  # nothing of it was loaded: the upload is not kept


def test_uploads_turned_off_show_no_uploader(
    warehouse_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_UPLOADS", "off")
    at = open_page()
    assert len(at.file_uploader) == 0
    assert any("Uploads are turned off" in i.value for i in at.info)
