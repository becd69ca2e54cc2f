"""A new user adds a result from the browser and sees it on the RA page (issue 30).

GIVEN no warehouse yet, and one real fio 3.33 JSON made here with Debian's fio
WHEN `streamlit run app/server.py -- --warehouse <new file>` serves the dashboard and headless
  chromium opens Add results, puts the file in the uploader (DevTools' DOM.setFileInputFiles,
  as a person choosing it in the file dialog), types the testbed and profile labels and presses
  the button
THEN the page shows the load's summary, then says the new results are being served, and the
  RA comparison page's chart draws the IOPS fio printed for that run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.chromium import CHROMIUM, Chromium
from tests.app.conftest import serve
from tests.app.fio_runs import make_fio_json

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK),
        reason=f"no chromium at {CHROMIUM} (scripts/setup.sh installs Debian's chromium)",
    ),
]

TESTBED = "browser-upload-lab"
SERVED = "The new results are being served"
# Every number the page's charts draw (x, y and the text of each trace).
CHART_NUMBERS_JS = """JSON.stringify([...document.querySelectorAll('.js-plotly-plot')].flatMap(
  (d) => (d.data || []).flatMap((t) => [...(t.x || []), ...(t.y || [])])
    .filter((v) => typeof v === 'number')))"""


@pytest.fixture()
def new_user_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """The dashboard on a warehouse that does not exist yet, chosen with `--warehouse`
    (PERF_DUCKDB_PATH names another file)."""
    main = tmp_path / "mine" / "warehouse.duckdb"
    monkeypatch.delenv("PERF_WAREHOUSE", raising=False)
    monkeypatch.delenv("PERF_UPLOAD_DIR", raising=False)
    env = {
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_TARGET_PATH": str(tmp_path / "target"),  # another build may use dbt_project/target
        "DBT_LOG_PATH": str(tmp_path / "logs"),
    }
    log = tmp_path / "streamlit.log"
    other = tmp_path / "not-this-one.duckdb"
    with serve(other, log, env=env, script_args=("--warehouse", str(main))) as url:
        yield url, main


def type_into(browser: Chromium, selector: str, text: str) -> None:
    browser.click(selector)
    browser.call("Input.insertText", {"text": text})


def choose_file(browser: Chromium, path: Path) -> None:
    root = browser.call("DOM.getDocument", {"depth": -1, "pierce": True})["root"]["nodeId"]
    node = browser.call(
        "DOM.querySelector", {"nodeId": root, "selector": '[data-testid="stFileUploader"] input'}
    )["nodeId"]
    browser.call("DOM.setFileInputFiles", {"nodeId": node, "files": [str(path)]})


def test_an_uploaded_fio_file_is_served_and_drawn(
    new_user_app: tuple[str, Path], tmp_path: Path
) -> None:
    url, main = new_user_app
    fio_json = make_fio_json(tmp_path, "browser-upload")
    expected_iops = json.loads(fio_json.read_text())["jobs"][0]["read"]["iops"]
    with Chromium() as browser:
        view = browser.open(f"{url}/add_results")
        # the caption names the warehouse of `--warehouse`, not PERF_DUCKDB_PATH's
        assert "Add results · warehouse" in view.text and str(main.parent) in view.text
        choose_file(browser, fio_json)
        browser.wait_for(f"document.body.innerText.includes({json.dumps(fio_json.name)})")
        type_into(browser, 'input[aria-label="testbed"]', TESTBED)
        type_into(browser, 'input[aria-label="profile"]', "baseline")
        browser.click('[data-testid="stFormSubmitButton"] button')
        summary = "Summary: 1 loaded, 0 already loaded (unchanged), 0 skipped, 0 rejected"
        browser.wait_for(f"document.body.innerText.includes({json.dumps(summary)})", 300)
        text = browser.wait_for(
            f"document.body.innerText.includes({json.dumps(SERVED)}) && document.body.innerText",
            900,
        )
        assert "Validation failed" not in text
        ra = browser.open(f"{url}/")
        assert TESTBED in ra.text
        drawn = json.loads(browser.evaluate(CHART_NUMBERS_JS))
        assert any(abs(v - expected_iops) < 0.5 for v in drawn), (expected_iops, drawn[:50])
