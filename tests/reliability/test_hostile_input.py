"""Hostile input through every parser, as the loader calls them (detect on 64 KiB, then parse).

Only the product's own clear rejections may come out: `ParseError`, or for structures nested
too deeply for the JSON/YAML readers the loader's explicit "structure nested too deeply"
rejection. Any other exception is a parser crash and fails the test; so does a call that
runs over 5 s (benchmarks/fuzz_parsers.py runs the same cases for as long as you like).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.fuzz_parsers import load_seeds, mutate, run_case
from ingest.label_resolver import LabelResolver
from ingest.registry import PARSERS
from ingest.triage import load_member
from ingest.walk import Member
from tests.conftest import REPO

SEEDS = load_seeds()
# Each parser's signature: the first line of a real seed it detects.
SIGNATURES = {}
for _name, _data in SEEDS:
    SIGNATURES.setdefault(run_case(_data, _name)[0], _data.split(b"\n", 1)[0][:4096] + b"\n")
NAMES = sorted({name for name, _ in SEEDS} | {"hcibench.cfg", "perf-conf.yaml", "x.json"})
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


def _assert_clean(data: bytes, name: str) -> None:
    _, crash = run_case(data, name, timeout_s=5.0)
    assert crash is None, (
        f"{crash.fmt} {crash.stage} crashed on a mutation of {name}: {crash.error}"
    )


def test_seeds_cover_every_parser() -> None:
    assert set(PARSERS) <= set(SIGNATURES)


@FUZZ
@given(data=st.binary(max_size=8192), name=st.sampled_from(NAMES))
def test_random_bytes(data: bytes, name: str) -> None:
    _assert_clean(data, name)


@FUZZ
@given(
    data=st.binary(max_size=4096),
    module=st.sampled_from(sorted(PARSERS)),
    name=st.sampled_from(NAMES),
)
def test_random_bytes_behind_each_parsers_own_signature(
    data: bytes, module: str, name: str
) -> None:
    # Random bytes rarely pass a detector: prefix each with a real seed's first line so
    # every parser's body, not only its detector, sees garbage.
    _assert_clean(SIGNATURES[module] + data, name)


@FUZZ
@given(index=st.integers(0, len(SEEDS) - 1), other=st.integers(0, len(SEEDS) - 1), rnd=st.randoms())
def test_mutated_real_samples(index: int, other: int, rnd: random.Random) -> None:
    name, data = SEEDS[index]
    _assert_clean(mutate(rnd, data, SEEDS[other][1]), name)


DEPTH = 100_000
DEEP = [
    pytest.param(
        "fio.json", b'{"fio version": "fio-3.36", "jobs": ' + b"[" * DEPTH, id="fio-arrays"
    ),
    pytest.param(
        "fio.json", b'{"fio version": "fio-3.36", "jobs": [' + b'{"a":' * DEPTH, id="fio-objects"
    ),
    pytest.param(
        "observer.json", b'{"stats": {"times": [], "avgs": [], "x": ' + b"[" * DEPTH, id="observer"
    ),
    pytest.param(
        "hcibench.cfg", b"vc: a\ndatacenter_name: b\ncluster_name: c\nx: " + b"[" * DEPTH, id="yaml"
    ),
]


@pytest.mark.parametrize(("name", "data"), DEEP)
def test_deep_nesting_is_a_clean_rejection(tmp_path: Path, name: str, data: bytes) -> None:
    # GIVEN 100k levels of nesting behind a real format's signature, WHEN loaded
    data = data + b"]" * DEPTH + b"}"
    _assert_clean(data, name)
    outcome = load_member(
        _NullWriter(), Member(f"/deep/{name}", len(data), lambda: data), LabelResolver({}), set()
    )
    # THEN the loader rejects it with its own reason, not "parser failed unexpectedly"
    assert outcome.status == "rejected"
    assert "unexpectedly" not in outcome.reason
    assert outcome.reason


class _NullWriter:
    """Enough of the raw writer for a file that never reaches the write."""

    def find_same_content(self, sha256: str, case: str | None) -> list:
        return []

    def find_by_path(self, path: str) -> list:
        return []


# Peak memory of one huge input, in a subprocess so the kernel measures it (ru_maxrss).
# Measured on this machine for 200 MB inputs: plain 272 MB, fio JSON 672 MB, fio normal
# 672 MB, esxtop 672 MB, vdbench 472 MB, HCIBench settings 472 MB, parameter files 872 MB,
# -res.txt 1272 MB: the bytes, their text and one split copy; never more than ~6x the input.
MEMORY_FACTOR = 7


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "megabytes"),
    [
        pytest.param("plain", 200, id="plain-200MB"),
        pytest.param("hcibench_cfg", 200, id="hcibench-settings-200MB"),
        pytest.param("fio_json", 64, id="fio-json-64MB"),
        pytest.param("fio_normal", 64, id="fio-normal-64MB"),
        pytest.param("esxtop", 64, id="esxtop-64MB"),
        pytest.param("vdbench", 64, id="vdbench-64MB"),
        pytest.param("hcibench_fio_params", 64, id="hcibench-params-64MB"),
        pytest.param("hcibench_res_txt", 64, id="hcibench-res-64MB"),
    ],
)
def test_one_huge_line_has_bounded_time_and_memory(kind: str, megabytes: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability._huge_input", kind, str(megabytes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["crash"] is None, result
    grown = result["rss_peak_mb"] - result["rss_before_mb"]
    assert grown <= MEMORY_FACTOR * megabytes, result
