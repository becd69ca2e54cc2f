"""HCIBench's configuration files: `hcibench.cfg` / `perf-conf.yaml` (the test settings, with
credentials never stored) and `vsan.cfg` (the datastores under test and the cluster's hosts)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

from ingest.parsers._common import hcibench_case_name, line_error
from ingest.parsers.hcibench.records import (
    HcibenchClusterHost,
    HcibenchSetting,
    HcibenchVsanDatastore,
)
from ingest.parsers.hcibench.values import int_or_none, numbered_lines
from ingest.records import Parsed, ParseError, SourceFile
from ingest.redaction import is_secret_key, redact_mapping, redact_text


def _leaves(value: Any, prefix: str) -> Iterator[tuple[str, Any, bool]]:
    """(dotted key, value, is redacted) for every leaf, by `ingest.redaction`'s rule.

    A secret key hides its whole subtree (value None). Any other leaf is stored with the
    secrets inside it hidden (a password in a list of host maps, a URL's user info) and
    flagged redacted when anything was hidden."""
    if isinstance(value, dict):
        for key, child in value.items():
            name = redact_text(str(key))
            path = f"{prefix}.{name}" if prefix else name
            if is_secret_key(str(key)):
                yield path, None, True
            else:
                yield from _leaves(child, path)
    else:
        clean = redact_mapping(value)
        yield prefix, clean, clean != value


def _json(value: Any) -> str:
    return json.dumps(value, default=str)


# hcibench.cfg / perf-conf.yaml are a few KiB; PyYAML reads ~3 MB/s, so a huge "settings"
# file would hang a load for minutes: beyond this it is not HCIBench's configuration.
_MAX_SETTINGS_BYTES = 1024 * 1024


def parse_settings(text: str, source: SourceFile, parsed: Parsed) -> None:
    if len(text) > _MAX_SETTINGS_BYTES:
        raise ParseError(
            source.path,
            f"byte {_MAX_SETTINGS_BYTES}",
            f"over {_MAX_SETTINGS_BYTES:,} bytes: too large for an HCIBench settings file",
        )
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        location = f"line {mark.line + 1}" if mark else "end of file"
        # Never echo the offending text: it may be a credential.
        raise ParseError(source.path, location, "hcibench.cfg is not valid YAML") from None
    if not isinstance(document, dict):
        raise ParseError(source.path, "line 1", "hcibench.cfg is not a YAML mapping")
    case = hcibench_case_name(source)
    rows = [
        HcibenchSetting(case, key, None if value is None and hidden else _json(value), hidden)
        for key, value, hidden in _leaves(document, "")
    ]
    parsed.add("hcibench_settings", rows)


_FTM = re.compile(r"RAID-?(1|5/6|5|6)", re.IGNORECASE)


def parse_vsan_cfg(text: str, source: SourceFile, parsed: Parsed) -> None:
    case = hcibench_case_name(source)
    stores: list[dict[str, Any]] = []
    hosts: list[HcibenchClusterHost] = []
    in_hosts_map = False
    cluster: str | None = None
    for line_no, line in numbered_lines(text):
        stripped = line.strip()
        if not stripped or stripped == "---":
            continue
        if stripped.startswith("====="):
            continue
        if stripped == "Cluster Hosts Map":
            in_hosts_map = True
            continue
        if in_hosts_map:
            if stripped.startswith("- "):
                if cluster is None:
                    raise line_error(source, line_no, "host listed before any cluster name")
                hosts.append(HcibenchClusterHost(case, cluster, stripped[2:].strip().strip("'\"")))
            elif stripped.endswith(":"):
                cluster = stripped[:-1].strip().strip("'\"")
            else:
                raise line_error(
                    source, line_no, f"unexpected line in Cluster Hosts Map: {stripped[:40]!r}"
                )
            continue
        name = re.match(r"^(Local|Remote) vSAN Datastore Name:\s*(.*)$", stripped)
        if name:
            stores.append(
                {"datastore_name": name.group(2).strip(), "is_local": name.group(1) == "Local"}
            )
            continue
        key, sep, value = stripped.partition(":")
        if not sep:
            raise line_error(source, line_no, f"expected 'Key: value', found {stripped[:40]!r}")
        if not stores:
            raise line_error(source, line_no, "setting before the 'vSAN Datastore Name' line")
        stores[-1][key.strip()] = value.strip()
    if not stores:
        raise ParseError(source.path, "end of file", "no 'vSAN Datastore Name' line")
    parsed.add("hcibench_vsan_datastores", [_vsan_row(case, s, source) for s in stores])
    parsed.add("hcibench_cluster_hosts", hosts)


def _gb(text: str | None) -> float | None:
    if not text:
        return None
    match = re.fullmatch(r"([\d.]+)\s*GB", text.strip("'\" "))
    return float(match.group(1)) if match else None


def _vsan_row(case: str | None, facts: dict[str, Any], source: SourceFile) -> HcibenchVsanDatastore:
    efficiency = facts.get("Space Efficiency")
    dedupe = compression = None
    if efficiency:
        lower = efficiency.lower()
        dedupe = "dedup" in lower
        compression = "compression" in lower
    ftm_text = facts.get("Fault Tolerance Preference")
    ftm_match = _FTM.search(ftm_text or "")
    ftm = f"RAID-{ftm_match.group(1)}" if ftm_match else None
    checksum_disabled = facts.get("Checksum Disabled")
    return HcibenchVsanDatastore(
        case_name=case,
        datastore_name=facts["datastore_name"],
        is_local=facts["is_local"],
        vsan_type=facts.get("vSAN Type"),
        host_count=int_or_none(facts.get("Number of Hosts")),
        disk_groups_per_host=int_or_none(facts.get("Disk Groups per Host")),
        total_cache_disk_size_gb=_gb(facts.get("Total Cache Disk Size")),
        capacity_disks_per_disk_group=int_or_none(facts.get("Capacity Disk per Disk Group")),
        space_efficiency=efficiency,
        dedupe_enabled=dedupe,
        compression_enabled=compression,
        fault_tolerance_text=ftm_text,
        ftm=ftm,
        ftt=int_or_none(facts.get("Host Primary Fault Tolerance")),
        secondary_ftt=int_or_none(facts.get("Host Secondary Fault Tolerance")),
        checksum_enabled=None if checksum_disabled is None else checksum_disabled.lower() != "true",
        capacity_gb=_gb(facts.get("Capacity")),
        free_space_gb=_gb(facts.get("Freespace")),
    )
