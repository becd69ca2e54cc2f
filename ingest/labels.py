"""Run labels: what cluster and configuration a tool output measured.

Tool outputs do not say which testbed, policy or transport they measured, so
users write a `run.yaml` (or `run.yml`) in the folder of the outputs or in any
parent folder. A nearer file overrides a farther one key by key (the
`workload` map is merged key by key too) and `--label KEY=VALUE` overrides
both. Known keys are type-checked here so a typo in a label fails the load
with the file and key named, instead of silently splitting a testbed in two;
unknown keys are kept as free-form labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

LABEL_FILE_NAMES = ("run.yaml", "run.yml")


def is_label_file(path: str) -> bool:
    """Whether a (logical) path names a run.yaml, whatever folder or archive holds it."""
    return path.rsplit("/", 1)[-1] in LABEL_FILE_NAMES


class LabelError(ValueError):
    """A label file or `--label` argument that is not valid."""

    def __init__(self, origin: str, reason: str) -> None:
        super().__init__(f"{origin}: {reason}")
        self.origin = origin
        self.reason = reason


def _text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("must be text")
    return str(value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _choice(*allowed: str):
    canonical = {a.lower(): a for a in allowed}

    def check(value: Any) -> str:
        text = _text(value)
        if text.lower() not in canonical:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return canonical[text.lower()]

    return check


def _text_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a non-empty list of names")
    return [_text(v) for v in value]


def _block_size(value: Any) -> str | int:
    # `4k`, `64K`, `1m` or a number of bytes; kept as written, parsed by dbt.
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = _text(value).strip().lower()
    if not text.rstrip("kmb").replace(".", "", 1).isdigit():
        raise ValueError("must be a size such as 4k, 64k, 1m or a number of bytes")
    return text


_WORKLOAD_KEYS = {
    "read_pct": _int,
    "random_pct": _int,
    "block_size": _block_size,
    "outstanding_io": _int,
}


def _workload(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError("must be a map of read_pct, random_pct, block_size, outstanding_io")
    checked = {}
    for key, item in value.items():
        if key not in _WORKLOAD_KEYS:
            raise ValueError(f"unknown workload key {key!r}; known: {', '.join(_WORKLOAD_KEYS)}")
        try:
            checked[key] = _WORKLOAD_KEYS[key](item)
        except ValueError as exc:
            raise ValueError(f"workload.{key} {exc}") from None
    for pct in ("read_pct", "random_pct"):
        if pct in checked and not 0 <= checked[pct] <= 100:
            raise ValueError(f"workload.{pct} must be between 0 and 100")
    return checked


KNOWN_LABELS = {
    "testbed": _text,
    "nodes": _int,
    "vsan_version": _text,
    "architecture": _choice("OSA", "ESA"),
    "profile": _text,
    "profile_order": _text_list,
    "ftm": _choice("RAID-1", "RAID-5", "RAID-6"),
    "ftt": _int,
    "checksum": _bool,
    "dedupe": _bool,
    "compression": _bool,
    "stripe_width": _int,
    "osr_pct": _int,
    "disk_groups": _int,
    "transport": _choice("tcp", "rdma"),
    "working_set": _choice("cache", "capacity"),
    "storage": _text,
    "result_per": _choice("file", "folder"),
    "workload": _workload,
}


def validate(labels: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Type-check known keys; keep unknown keys as they are."""
    checked: dict[str, Any] = {}
    for key, value in labels.items():
        if not isinstance(key, str):
            raise LabelError(origin, f"label name {key!r} must be text")
        if key in KNOWN_LABELS and value is not None:
            try:
                checked[key] = KNOWN_LABELS[key](value)
            except ValueError as exc:
                raise LabelError(origin, f"label {key!r} {exc} (got {value!r})") from None
        else:
            checked[key] = value
    return checked


def check_merged(labels: Mapping[str, Any], origin: str) -> None:
    """Rules across keys, checked once every layer is merged."""
    order = labels.get("profile_order")
    if labels.get("profile") and order and labels["profile"] not in order:
        raise LabelError(origin, f"profile {labels['profile']!r} is not in profile_order {order}")


def parse_label_file(text: str, origin: str) -> dict[str, Any]:
    """Labels from the text of a run.yaml."""
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise LabelError(origin, f"{where}not valid YAML ({problem})") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise LabelError(origin, "must be a map of label: value")
    return validate(loaded, origin)


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
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
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
            if key == "workload" and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged
