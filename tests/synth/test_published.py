"""The studies' published numbers come from the seed, by figure id."""

from __future__ import annotations

import pytest

from synth.published import figure, figures, step


def test_figure_is_the_seed_value() -> None:
    assert figure("micron67-fig10-baseline-cache-r100-iops") == 486_099
    assert figure("samsung-table3-read-rdma-latency") == 0.35
    assert figures()["micron67-fig4-baseline-cache-r0-iops"].value_as_printed == "121K"


def test_step_is_the_typed_decimal_factor() -> None:
    # -7 % must give 0.93 exactly as written, not 1 + -7 / 100 = 0.9299999999999999
    assert step("micron67-fig14-balanced-capacity-r70-iops-vs-prev") == 0.93
    assert step("lenovo-text-run4-latency-delta") == 1.25


def test_unknown_figure_is_an_error() -> None:
    with pytest.raises(KeyError):
        figure("no-such-figure")
