"""Run labels: what cluster and configuration a tool output measured.

Tool outputs do not say which testbed, policy or transport they measured, so
users write a `run.yaml` (or `run.yml`) in the folder of the outputs or in any
parent folder. A nearer file overrides a farther one key by key (the
`workload` map is merged key by key too) and `--label KEY=VALUE` overrides
both. Known keys are checked against their one definition
(`ingest.label_definitions`, the table dbt casts with) so a typo or an
impossible value fails the load with the file and key named, instead of
silently splitting a testbed in two or breaking `dbt build`; unknown keys are
kept as free-form labels.

A run.yaml is a small hand-written map, and it is read defensively: no YAML
aliases at all (`*name`: an alias saves nothing in a label file, and nested
aliases expand exponentially when the labels are serialised, the "billion
laughs"), no duplicate keys (PyYAML would silently keep the last), dates kept
as the text written, and caps on the file size, the number of keys, the
nesting depth and the length of every text. A run.yaml that breaks a rule is
rejected and so is every file under it: a file never loads with half-known
labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from ingest.label_definitions import MAX_TEXT_CHARS, top_level, workload_keys

LABEL_FILE_NAMES = ("run.yaml", "run.yml")
MAX_FILE_BYTES = 64 * 1024
MAX_KEYS = 200  # map entries over the whole file, nested maps included
MAX_DEPTH = 4  # containers: the top map, `workload`, and two more in a free-form label
# A free-form text may be a note, longer than a name; still not a document.
MAX_FREE_TEXT_CHARS = 4 * MAX_TEXT_CHARS
# Label names become JSON paths in the models (`$.workload.read_pct`): a name is a plain word.
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_INT64 = 2**63


def is_label_file(path: str) -> bool:
    """Whether a (logical) path names a run.yaml, whatever folder or archive holds it."""
    return path.rsplit("/", 1)[-1] in LABEL_FILE_NAMES


class LabelError(ValueError):
    """A label file or `--label` argument that is not valid."""

    def __init__(self, origin: str, reason: str) -> None:
        super().__init__(f"{origin}: {reason}")
        self.origin = origin
        self.reason = reason


class _Refused(yaml.MarkedYAMLError):
    """Valid YAML that a label file may not use (an alias, a duplicate key, deep nesting)."""


class _LabelLoader(yaml.SafeLoader):
    """SafeLoader without aliases, duplicate keys, timestamps, or deep nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _Refused(None, None, "YAML aliases (*name) are not allowed", event.start_mark)
        # scalars count as a level too: MAX_DEPTH containers hold scalars at MAX_DEPTH + 1
        if self._depth > MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise _Refused(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    raise _Refused(
                        None, None, f"duplicate key {key_node.value!r}", key_node.start_mark
                    )
                seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


# Dates stay the text written (`captured_at: 2024-01-02`): a label is text, and a datetime
# object cannot be stored as JSON.
_LabelLoader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _load_yaml(text: str) -> Any:
    loader = _LabelLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


class _Shape:
    """Walks a free-form value: counts keys, checks names, lengths and value types."""

    def __init__(self) -> None:
        self.keys = 0

    def check(self, value: Any, where: str) -> None:
        if isinstance(value, dict):
            self.keys += len(value)
            if self.keys > MAX_KEYS:
                raise ValueError(f"more than {MAX_KEYS} labels")
            for key, item in value.items():
                self.check(item, f"{where}.{check_key(key)}" if where else check_key(key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.check(item, f"{where}[{i}]")
        else:
            _check_scalar(value, where)


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(
            f"label name {key!r} must be a word of letters, digits, _ or - (at most 64)"
        )
    return key


def _check_scalar(value: Any, where: str) -> None:
    problem = None
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        problem = None if -_INT64 <= value < _INT64 else "is a whole number past 2^63"
    elif isinstance(value, float):
        problem = None if math.isfinite(value) else "must be a finite number"
    elif isinstance(value, str):
        problem = _text_problem(value)
    else:
        problem = f"is not a label value ({type(value).__name__})"
    if problem:
        raise ValueError(f"label {where!r} {problem}")


# C0 control characters but tab and line breaks: a NUL in a label (`testbed: "a\0b"`) is no
# name anyone typed, truncates the label in C tools and reads as two values in others.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _text_problem(value: str) -> str | None:
    if len(value) > MAX_FREE_TEXT_CHARS:
        return f"is longer than {MAX_FREE_TEXT_CHARS} characters"
    control = _CONTROL.search(value)
    if control is not None:
        return f"holds the control character {control.group()!r} at position {control.start()}"
    return None


def _checked_value(key: str, value: Any) -> Any:
    """A known label's value by its definition; ValueError names the key (`workload.x`)."""
    if value is None:
        return None
    if key == "workload":
        return _workload(value)
    try:
        return top_level()[key].check(value)
    except ValueError as exc:
        raise ValueError(f"label {key!r} {exc} (got {value!r})") from None


def _workload(value: Any) -> dict[str, Any]:
    known = workload_keys()
    if not isinstance(value, dict):
        raise ValueError(f"label 'workload' must be a map of {', '.join(known)} (got {value!r})")
    checked = {}
    for key, item in value.items():
        if key not in known:
            raise ValueError(f"label 'workload.{key}' is unknown; known: {', '.join(known)}")
        try:
            checked[key] = None if item is None else known[key].check(item)
        except ValueError as exc:
            raise ValueError(f"label 'workload.{key}' {exc} (got {item!r})") from None
    return checked


def validate(labels: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Check known keys against their definition, the shape of every key; raise LabelError."""
    known = top_level()
    try:
        _Shape().check(dict(labels), "")
        return {
            key: _checked_value(key, value) if key in known or key == "workload" else value
            for key, value in labels.items()
        }
    except ValueError as exc:
        raise LabelError(origin, str(exc)) from None


def check_merged(labels: Mapping[str, Any], origin: str) -> None:
    """Rules across keys, checked once every layer is merged."""
    order = labels.get("profile_order")
    if labels.get("profile") and order and labels["profile"] not in order:
        raise LabelError(origin, f"profile {labels['profile']!r} is not in profile_order {order}")


def decode_label_file(data: bytes, origin: str) -> str:
    """The text of a run.yaml: at most MAX_FILE_BYTES of UTF-8 (a BOM is allowed)."""
    if len(data) > MAX_FILE_BYTES:
        reason = f"is {len(data)} bytes; a label file may hold at most {MAX_FILE_BYTES}"
        raise LabelError(origin, reason)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LabelError(origin, f"byte {exc.start}: not UTF-8 text") from None


def parse_label_file(text: str, origin: str) -> dict[str, Any]:
    """Labels from the text of a run.yaml."""
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise LabelError(origin, f"a label file may hold at most {MAX_FILE_BYTES} bytes")
    try:
        loaded = _load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        reason = problem if isinstance(exc, _Refused) else f"not valid YAML ({problem})"
        raise LabelError(origin, where + reason) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise LabelError(origin, "must be a map of label: value")
    return validate(loaded, origin)


def _arg_value(raw: str) -> Any:
    # Read as a YAML scalar (`nodes=4` is a number, `checksum=true` a boolean); anything
    # the label loader refuses (an alias, a broken flow list) stays the text typed.
    if not raw.strip():
        return ""
    try:
        return _load_yaml(raw)
    except yaml.YAMLError:
        return raw


def parse_label_args(args: Iterable[str]) -> dict[str, Any]:
    """Labels from `--label KEY=VALUE` arguments; values are read as YAML
    scalars so `nodes=4` is a number and `checksum=true` a boolean.
    `workload.read_pct=70` sets one key of the workload map."""
    labels: dict[str, Any] = {}
    for arg in args:
        key, sep, raw = arg.partition("=")
        key = key.strip()
        if not sep or not key:
            raise LabelError(f"--label {arg}", "expected KEY=VALUE")
        value = _arg_value(raw)
        if key.startswith("workload."):
            labels.setdefault("workload", {})[key.removeprefix("workload.")] = value
        else:
            labels[key] = value
    return validate(labels, "--label")


def merge(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Later layers win key by key; the workload map merges key by key."""
    merged: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if key == "workload" and isinstance(merged.get(key), dict) and isinstance(value, dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged
