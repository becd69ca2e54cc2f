"""The published figures the studies are rebuilt from, read from the dbt seed by figure id.

`dbt_project/seeds/published_results.csv` is the one place a published number is written down
(it is also what `marts.published_results` and the reference checks compare against), so the
study modules look their numbers up here instead of copying them. A number a study needs that
the seed does not hold is a reconstruction choice and stays a named constant in the study.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from warehouse import REPO_ROOT

SEED_CSV = REPO_ROOT / "dbt_project" / "seeds" / "published_results.csv"


@dataclass(frozen=True, slots=True)
class Figure:
    """One row of the seed: a number as a study printed it, and how to read it."""

    figure_id: str
    source_document: str
    value: float
    unit: str
    value_as_printed: str
    qualifier: str  # exact, approx, more_than, less_than, abs_less_than
    derivation: str  # published, or derived from other published numbers


@functools.cache
def figures(path: Path = SEED_CSV) -> dict[str, Figure]:
    """Every figure of the seed by id."""
    with path.open(newline="", encoding="utf-8") as handle:
        return {
            row["figure_id"]: Figure(
                figure_id=row["figure_id"],
                source_document=row["source_document"],
                value=float(row["value"]),
                unit=row["unit"],
                value_as_printed=row["value_as_printed"],
                qualifier=row["qualifier"],
                derivation=row["derivation"],
            )
            for row in csv.DictReader(handle)
        }


def figure(figure_id: str) -> float:
    """The value of one published figure (a KeyError names an id the seed does not hold)."""
    return figures()[figure_id].value


def step(figure_id: str) -> float:
    """A published change in percent as a factor: -7 (%) -> 0.93.

    `(100 + d) / 100` is the double nearest the decimal factor, as if it had been typed
    (`1 + d / 100` gives 0.9299999999999999 for -7).
    """
    return (100 + figure(figure_id)) / 100
