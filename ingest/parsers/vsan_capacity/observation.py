"""`capacity.yaml`: a hand-entered capacity observation, for results that exist only as a
screenshot of the vSphere capacity view or a figure in a paper.

capacity.yaml schema
--------------------
A YAML mapping with exactly these keys (anything else is rejected, naming the key and its line):

    used_before: 28.58          # required, number > 0, "used before" as printed
    used_after: 3.48            # required, number > 0, "used after" as printed
    unit: TB                    # required, the unit label as printed: B KB MB GB TB PB
                                #   (or KiB MiB GiB TiB PiB)
    ratio_reported: 8.21        # required, number > 0, or a string like "8.21x"
    captured_at: 2019-05-01     # required, YAML date or timestamp (no zone = UTC)
    testbed: micron-vsan67      # optional text
    ftm: RAID-1                 # optional, RAID-1 | RAID-5 | RAID-6
    ftt: 1                      # optional int 0..3
    source_document: "Micron RA, Appendix C"   # optional text
    notes: "capacity test, OSR 0%"             # optional text

Unit convention: vSphere (Client and PowerCLI) prints binary multiples with decimal-looking labels,
so `TB` here means TiB (1024**4 bytes), `GB` GiB, and so on; `KiB`..`PiB` mean the same. The label
is kept as printed. The ratio does not depend on the unit.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from ingest.parsers._common import half_unit_of_last_digit
from ingest.parsers.vsan_capacity.records import CapacitySnapshot
from ingest.records import Parsed, ParseError, SourceFile

# vSphere labels binary multiples with SI-looking names; see the module docstring.
UNIT_BYTES: dict[str, int] = {
    "B": 1,
    "KB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
    "PB": 1024**5,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "PiB": 1024**5,
}

_FTMS = ("RAID-1", "RAID-5", "RAID-6")
_RATIO_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[xX]?\s*$")
# Float noise allowance on top of the printed-digit tolerance (8.2126 vs 8.21 +- 0.005 is exact
# arithmetic in decimal, not in binary floating point).
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class _Field:
    required: bool
    check: Callable[[yaml.Node, Any], Any]  # returns the typed value or raises ValueError


def _positive_number(node: yaml.Node, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"expected a number > 0, got {node.value!r}")
    return float(value)


def _ratio(node: yaml.Node, value: Any) -> tuple[float, str]:
    # Keep the text as written: its number of decimals sets the rounding tolerance.
    text = str(node.value) if isinstance(node, yaml.ScalarNode) else ""
    match = _RATIO_TEXT.match(text)
    if isinstance(value, bool) or not match or float(match.group(1)) <= 0:
        raise ValueError(f'expected a ratio > 0 such as 8.21 or "8.21x", got {text!r}')
    return float(match.group(1)), match.group(1)


def _unit(node: yaml.Node, value: Any) -> str:
    if not isinstance(value, str) or value not in UNIT_BYTES:
        raise ValueError(f"expected one of {', '.join(UNIT_BYTES)}, got {value!r}")
    return value


def _timestamp(node: yaml.Node, value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    raise ValueError(f"expected a date or timestamp (2019-05-01T10:00:00Z), got {value!r}")


def _text(node: yaml.Node, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected text, got {value!r}")
    return value


def _ftm(node: yaml.Node, value: Any) -> str:
    if value not in _FTMS:
        raise ValueError(f"expected one of {', '.join(_FTMS)}, got {value!r}")
    return value


def _ftt(node: yaml.Node, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ValueError(f"expected an integer 0..3, got {value!r}")
    return value


_SCHEMA: dict[str, _Field] = {
    "used_before": _Field(True, _positive_number),
    "used_after": _Field(True, _positive_number),
    "unit": _Field(True, _unit),
    "ratio_reported": _Field(True, _ratio),
    "captured_at": _Field(True, _timestamp),
    "testbed": _Field(False, _text),
    "ftm": _Field(False, _ftm),
    "ftt": _Field(False, _ftt),
    "source_document": _Field(False, _text),
    "notes": _Field(False, _text),
}


def _yaml_mapping(text: str, source: SourceFile) -> yaml.MappingNode:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "end of file"
        raise ParseError(source.path, where, f"invalid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ParseError(source.path, "line 1", f"invalid YAML: {exc}") from None
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 1 if node is not None else 1
        raise ParseError(source.path, f"line {line}", "a capacity observation must be a mapping")
    return node


def _read_observation(text: str, source: SourceFile) -> dict[str, Any]:
    node = _yaml_mapping(text, source)
    constructor = SafeConstructor()
    values: dict[str, Any] = {}
    for key_node, value_node in node.value:
        line = f"line {key_node.start_mark.line + 1}"
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in _SCHEMA:
            known = ", ".join(_SCHEMA)
            raise ParseError(source.path, line, f"unknown key {key!r} (known: {known})")
        if key in values:
            raise ParseError(source.path, line, f"duplicate key {key!r}")
        try:
            raw = constructor.construct_object(value_node, deep=True)
            values[key] = _SCHEMA[key].check(value_node, raw)
        except (ValueError, ConstructorError) as exc:
            raise ParseError(source.path, line, f"{key}: {exc}") from None
    missing = [k for k, spec in _SCHEMA.items() if spec.required and k not in values]
    if missing:
        where = f"line {node.start_mark.line + 1}"
        raise ParseError(source.path, where, f"missing required key(s): {', '.join(missing)}")
    return values


def from_observation(text: str, source: SourceFile) -> Parsed:
    obs = _read_observation(text, source)
    before, after, unit = obs["used_before"], obs["used_after"], obs["unit"]
    reported, reported_text = obs["ratio_reported"]
    unit_bytes = UNIT_BYTES[unit]
    computed = before / after
    tolerance = half_unit_of_last_digit(reported_text)
    snapshot = CapacitySnapshot(
        source_kind="hand_entered",
        captured_at=obs["captured_at"],
        testbed=obs.get("testbed"),
        ftm=obs.get("ftm"),
        ftt=obs.get("ftt"),
        source_document=obs.get("source_document"),
        notes=obs.get("notes"),
        logical_used_bytes=round(before * unit_bytes),
        physical_used_bytes=round(after * unit_bytes),
        has_efficient_capacity=True,
        used_before_value=before,
        used_after_value=after,
        unit_label=unit,
        unit_bytes=unit_bytes,
        ratio_computed=computed,
        ratio_reported=reported,
        ratio_reported_source="hand_entered",
        ratio_reported_text=reported_text,
        ratio_tolerance=tolerance,
        ratio_matches_reported=abs(computed - reported) <= tolerance + _EPSILON,
    )
    parsed = Parsed()
    parsed.add("vsan_capacity_snapshots", [snapshot])
    if not snapshot.ratio_matches_reported:
        parsed.notes.append(
            f"ratio {before}/{after} = {computed:.4f} differs from the reported "
            f"{reported_text} by more than {tolerance}"
        )
    return parsed
