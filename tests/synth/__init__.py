"""Fixture paths of the synth tests."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# an HCIBench 2.5 fio test case (real format): the template of an HCIBench history
HCIBENCH_FIO_CASE = (
    FIXTURES
    / "hcibench"
    / "results"
    / "hcib25-fio"
    / "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000-res.txt"
)
