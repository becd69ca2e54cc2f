"""The one definition of every known run label: key, type, range, allowed values, unit.

The table is `dbt_project/seeds/label_definitions.csv` (a dbt seed, so analysts read it as
`marts.label_definitions`). Two readers use it and nothing else: the loader checks each label
against it (`LabelDefinition.check`, via `ingest.labels`) and the staging model casts with it
through `dbt_project/macros/label_definitions.sql`, which is generated from the same table
(`python -m ingest.label_definitions`; tests/ingest/test_labels.py fails when the
generated file is not current). So the loader never accepts a value the models cannot hold:
`nodes: 10**23` broke `dbt build` when the two kept their own rules.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ingest.parsers._common import parse_size_bytes
from warehouse import REPO_ROOT
from warehouse.label_seed import LABEL_SEED, LabelRow, read_label_rows

MACRO_PATH = REPO_ROOT / "dbt_project" / "macros" / "label_definitions.sql"
# A text label is a name (testbed, profile, version), not a document.
MAX_TEXT_CHARS = 256
MAX_LIST_ITEMS = 64
# A label is one size; fio's list/range separators and a sign are not part of one.
_NOT_ONE_SIZE = re.compile(r"[,:/\-+]")


@dataclass(frozen=True, slots=True)
class LabelDefinition(LabelRow):
    """One row of label_definitions.csv, with the loader's check of a value."""

    def check(self, value: Any) -> Any:
        """The value as stored (canonical choice, bytes for a size); ValueError says why not."""
        checked = _CHECKS[self.type](self, value)
        if self.type in ("int", "size"):
            self._check_range(checked)
        return checked

    def _check_range(self, number: int) -> None:
        low, high = self.min_value, self.max_value
        if (low is not None and number < low) or (high is not None and number > high):
            unit = f" {self.unit}" if self.unit else ""
            raise ValueError(f"must be between {low} and {high}{unit}")


def _text(_: LabelDefinition | None, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("must be text")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be text")
    text = str(value)
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"is longer than {MAX_TEXT_CHARS} characters")
    return text


def _int(_: LabelDefinition, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number")
    return value


def _bool(_: LabelDefinition, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _choice(definition: LabelDefinition, value: Any) -> str:
    canonical = {a.lower(): a for a in definition.allowed}
    text = _text(definition, value)
    if text.lower() not in canonical:
        raise ValueError(f"must be one of {', '.join(definition.allowed)}")
    return canonical[text.lower()]


def _text_list(definition: LabelDefinition, value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a non-empty list of names")
    if len(value) > MAX_LIST_ITEMS:
        raise ValueError(f"has more than {MAX_LIST_ITEMS} names")
    return [_text(definition, v) for v in value]


def size_label_bytes(value: Any) -> int | None:
    """A size label in bytes, None when it is not one size.

    fio's grammar (`parse_size_bytes`), but every prefix is binary: people write `4k`, `4KB`
    and `4KiB` for the same 4096-byte block. fio's default kb_base=1024 reads `KiB` as 1000
    ("opposite" units), and kb_base=1000 reads the IEC prefixes as 1024, so a value written
    with an IEC prefix (the only sizes holding an `i`) is read with kb_base=1000.
    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    if not text or _NOT_ONE_SIZE.search(text):
        return None
    return parse_size_bytes(text, kb_base=1000 if "i" in text.lower() else 1024)


def _size(_: LabelDefinition, value: Any) -> int:
    size = size_label_bytes(value)
    if size is None:
        raise ValueError("must be one size such as 4k, 64KiB, 1m or a number of bytes")
    return size


_CHECKS = {
    "text": _text,
    "int": _int,
    "bool": _bool,
    "choice": _choice,
    "text_list": _text_list,
    "size": _size,
}


def read_definitions(path: Path = LABEL_SEED) -> dict[str, LabelDefinition]:
    return {d.key: d for d in read_label_rows(path, LabelDefinition)}


@cache
def definitions() -> dict[str, LabelDefinition]:
    """Every known label by key (`workload.*` keys are the workload map's)."""
    return read_definitions()


def top_level() -> dict[str, LabelDefinition]:
    return {k: d for k, d in definitions().items() if "." not in k}


def workload_keys() -> dict[str, LabelDefinition]:
    return {k.removeprefix("workload."): d for k, d in definitions().items() if "." in k}


def render_macro(defs: dict[str, LabelDefinition]) -> str:
    """The dbt macro file: the same table as a Jinja map, read by `label_value`."""
    lines = [
        "{#- Generated from seeds/label_definitions.csv by",
        "    `python -m ingest.label_definitions`: do not edit; change the seed",
        "    and regenerate. `label_value` (labels.sql) casts every label of",
        "    stg_ingest__source_files with it. -#}",
        "",
        "{% macro label_definitions() -%}",
        "    {{ return({",
    ]
    for key, d in defs.items():
        entry = {"type": d.type, "allowed": list(d.allowed)}
        if d.min_value is not None:
            entry["min"] = d.min_value
        if d.max_value is not None:
            entry["max"] = d.max_value
        lines.append(f"        {json.dumps(key)}: {json.dumps(entry)},")
    lines += ["    }) }}", "{%- endmacro %}", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Write the dbt macro file from the seed (or `--check`: exit 1 when it is stale)."""
    text = render_macro(read_definitions())
    current = MACRO_PATH.read_text(encoding="utf-8") if MACRO_PATH.exists() else ""
    if "--check" in argv:
        return 0 if current == text else 1
    MACRO_PATH.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
