"""vSAN Observer (vSAN 6.x, RVC `vsan.observer`): bundle jsonstats and raw JSON-lines captures.

Usage
-----
    # as every parser (ingest.parsers):
    vsan_observer.parse(data, source_for(path, data)).tables["vsan_observer_samples"]

Example
-------
Trimmed to two of its series from the golden case
`vsan_observer/valid__vsan-observer-2024-06-08.10-00-00__jsonstats__dom__domobj-client-
esx01.lab.local.json`, a static-bundle file in the Observer's layout (no public capture exists:
synth/fixtures/vsan_observer.py builds the fixture); minified in the bundle, lines broken here.
The first row shows every field, the others some:

    $ cat jsonstats/dom/domobj-client-esx01.lab.local.json
    {"uuid":"client-esx01.lab.local","stats":{
     "readCount":{"avgs":[0,1000.0,1100.0,1050.0],
                  "times":[1717840800.5,1717840860.5,1717840920.5,1717840980.5]},
     "readLatency":{"avgs":[0,800,820,790],
                    "times":[1717840800.5,1717840860.5,1717840920.5,1717840980.5]}}}

    vsan_observer_samples: 6 rows
      {"capture": "bundle", "stats_group": "dom", "entity_type": "dom_client",
       "host": "esx01.lab.local", "entity": null, "observer_metric": "readCount",
       "metric": "read_iops", "sampled_at": "2024-06-08T10:01:00.500000+00:00", "value": 1000.0,
       "unit": "IO/s"}
      {"metric": "read_iops", "sampled_at": "2024-06-08T10:02:00.500000+00:00", "value": 1100.0}
      {"metric": "read_iops", "sampled_at": "2024-06-08T10:03:00.500000+00:00", "value": 1050.0}
      {"metric": "read_latency_us", "sampled_at": "2024-06-08T10:01:00.500000+00:00", "value": 800}
      {"metric": "read_latency_us", "sampled_at": "2024-06-08T10:02:00.500000+00:00", "value": 820}
      {"metric": "read_latency_us", "sampled_at": "2024-06-08T10:03:00.500000+00:00", "value": 790}

Two inputs, one table, one vocabulary:

* **Static bundle** (`--generate-html-bundle`, `vsan.observer_process_statsfile`, HCIBench <= 2.5
  `iotest-*` folders, or members of `vsan-observer-*.tar.gz`): every `jsonstats/<group>/<file>.json`
  is a separate source file. Its series are Observer `InventoryStat` dumps, `{"times": [epoch s],
  "avgs": [...], ...}`; `avgs` are per-second rates for counters and per-IO means for latencies.
  Group, entity type, host and entity come from the file's path and content (`uuid`, `hostname`,
  `host`, `dev`, `wdt`). `<file>_thumb.json` files are down-sampled copies: `detect` refuses them
  so they are reported as skipped, never mixed with the full files.
* **Raw capture** (`--filename F` / `--forever`: `observer.json`, gunzipped by the loader): JSON
  lines `{"type": "inventory-snapshot", "snapshot": {"vsi": {<host>: {...}}}, ...}` of cumulative
  ESXi counters. The same series the bundle holds are rebuilt here with the Observer's own rules
  (delta of a cumulative counter over the interval, or over the IO-count delta for latencies and
  congestion; a counter that goes backwards gives 0), for DOM client/owner/component manager, LSOM
  host totals, cache-disk write-buffer fill and congestion, physical disks, PCPUs, vSAN worlds and
  system memory. Unlike the Observer (Ruby integer division) means are kept as floats. Lines that
  are not valid JSON or whose counters have the wrong type are skipped, as `vsan.observer` does,
  and counted in the notes; a file with no usable line is rejected.

The first point of every series has no previous counter value and is 0 by construction: it is
dropped (for gauges such as write-buffer fill or memory it is a real reading; dropping it anyway
keeps every series on the same time axis). Null points are skipped and counted in the notes.

Modules: `bundle` (jsonstats files), `capture` (raw JSON lines), `groups` (the raw counter
groups, one reader each), `series` (the Observer's averaging), `metrics` (series names and
units), `records` (the row).

Table `vsan_observer_samples` (one row per series point):
    capture           `bundle` | `raw`
    stats_group       jsonstats group (`dom`, `lsom`, `pcpu`, `mem`, `misc`, `nfs`, `vm`, ...)
    entity_type       `dom_client`, `dom_owner`, `dom_compmgr` (per host), `dom_object`,
                      `dom_client_cluster`, `dom_owner_cluster`, `dom_compmgr_cluster`,
                      `dom_vm_home_cluster`, `dom_vm_disks_cluster`, `lsom_host`, `lsom_cluster`,
                      `lsom_component`, `physdisk`, `physdisk_cache_cluster`,
                      `physdisk_capacity_cluster`, `ssd`, `ssd_cluster`, `lsom_congestion`, `pcpu`,
                      `vsan_worlds` (all vSAN worlds of a host), `vsan_world`, `helper_worlds`,
                      `helper_world`, `system_mem`, `vscsi_host`, `vscsi_cluster`, `vm_vscsi`,
                      `pnic`, `vmknic`, `nfs_mount`, `nfs_cluster`; other files get their name's
                      prefix
    host              ESXi host name as the Observer knows it; None for cluster sums
    entity            disk device / disk or object UUID / pcpu / world / NIC; None when the row is
                      about the host or cluster itself
    observer_metric   the Observer's series name (`readLatency`, `wbFillPct`, `usedPct`)
    metric            warehouse name with its unit: `read_iops`, `read_bytes_per_s`,
                      `read_latency_us`, `read_latency_sq_us2`, `read_congestion`,
                      `read_sectors_per_s` (physical disk, 512-byte sectors),
                      `write_buffer_fill_pct`,
                      `used_pct`, `run_time_s_per_s` (CPU seconds per second = cores busy),
                      `mem_used_pct`, ...; unknown series get a snake_case name
    sampled_at        UTC, from the series' `times` (epoch seconds)
    value             the `avgs` point as the Observer computed it (no unit conversion)
    unit              `IO/s`, `B/s`, `us`, `us^2`, `512B-sectors/s`, `%`, `s/s`, `MiB`, `count`,
                      `number`, `1/s`; None for series whose unit is not documented
"""

from __future__ import annotations

import re

from ingest.parsers._common import is_document
from ingest.parsers.vsan_observer.bundle import parse_bundle_file
from ingest.parsers.vsan_observer.capture import parse_capture
from ingest.parsers.vsan_observer.metrics import metric_name
from ingest.parsers.vsan_observer.records import ObserverSample
from ingest.records import Parsed, ParseError, SourceFile

__all__ = ["FORMAT", "PARSER_VERSION", "TABLES", "ObserverSample", "detect", "metric_name", "parse"]

FORMAT = "vsan_observer"
PARSER_VERSION = "1"

TABLES = {"vsan_observer_samples": ObserverSample}

_JSONL_START = re.compile(rb'^\s*\{\s*"type"\s*:\s*"inventory-snapshot"')


def detect(head: bytes, name: str) -> bool:
    if is_document(head, name):
        return False
    if _JSONL_START.match(head):
        return True
    if name.endswith("_thumb.json"):
        return False  # down-sampled copy of a full file: skipped on purpose
    start = head.lstrip()[:1]
    return start == b"{" and b'"stats"' in head and b'"times"' in head and b'"avgs"' in head


def parse(data: bytes, source: SourceFile) -> Parsed:
    if _JSONL_START.match(data[:4096]):
        parsed = parse_capture(data, source)
        # Rates are differences of counters: one snapshot (per host) gives none.
        empty = "no samples: the capture needs two inventory snapshots of a host to give rates"
    elif source.name.endswith("_thumb.json"):
        raise ParseError(source.path, "file name", "a _thumb.json file is down-sampled: not loaded")
    else:
        parsed = parse_bundle_file(data, source)
        empty = "no samples: every series of the file is empty"
    if parsed.row_count() == 0:
        parsed.no_result_reason = empty
    return parsed
