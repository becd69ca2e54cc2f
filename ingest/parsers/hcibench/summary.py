"""HCIBench's `<case>-res.txt` summaries: fio and Vdbench layouts of HCIBench 2.0-2.5 and 2.8+,
one block per datastore x fio job / Vdbench run definition, the VMs left out, and the resource
section. The numbers are kept as printed (see the package docstring for their units)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.parsers._common import (
    hcibench_case_name,
    line_error,
    printed_decimals,
    unterminated_last_line,
)
from ingest.parsers.hcibench.case_name import CaseName, epoch_at, parse_case_name
from ingest.parsers.hcibench.records import (
    HcibenchCase,
    HcibenchResourceUsage,
    HcibenchSummaryBlock,
    HcibenchUnfinishedVm,
)
from ingest.parsers.hcibench.resources import usage_values, utilization_table_rows
from ingest.parsers.hcibench.values import numbered_lines
from ingest.records import LatencyKind, Parsed, ParseError, SourceFile

_KV = re.compile(
    r"^(?P<key>JOB_NAME|VMs|IOPS|THROUGHPUT|LATENCY|R_LATENCY|W_LATENCY|"
    r"95%tile_R_LAT|95%tile_W_LAT|95%tile_LAT)\s*=\s*(?P<value>.*?)\s*$"
)
_VALUE_UNIT = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>\S+)?$")
_DATASTORE = re.compile(r"^Datastore\s*(?P<sep>=|:)\s*(?P<name>.*?)\s*$")
_VERSION = re.compile(r"^Version:\s*(?P<v>\S+)\s*$")
_RUN_DEF = re.compile(r"^Run Def:\s*(?P<rd>.*?)\s*$")
_EARLY = re.compile(r"^There are (\d+) VMs finished testing early")
_DONE = re.compile(r"^Testing is done, (\d+) out of (\d+) VMs finished test successfully")
_USAGE_LINE = re.compile(r"^(?P<key>CPU USAGE|RAM USAGE|vSAN PCPU USAGE)\s*=\s*(?P<value>.*?)\s*$")
_USAGE_FIELDS = {
    "CPU USAGE": "cpu_usage_pct",
    "RAM USAGE": "mem_usage_pct",
    "vSAN PCPU USAGE": "vsan_pcpu_usage_pct",
}
_EXPECTED_UNITS = {"IOPS": ("IO/S", "IO/s"), "THROUGHPUT": ("MB/s",)}
_LATENCY_KEYS = {
    "LATENCY",
    "R_LATENCY",
    "W_LATENCY",
    "95%tile_R_LAT",
    "95%tile_W_LAT",
    "95%tile_LAT",
}
# A value cut before its end: a number with nothing or only part of its unit after it
# (`4` of `47.82%`, `199.00 MB` of `199.00 MB/s`) or one that stops at its decimal point.
_CUT_VALUE = re.compile(r"^(?P<num>\d+(?:\.\d*)?)\s*(?P<unit>\S*)$")
_REQUIRED = ("VMs", "IOPS", "THROUGHPUT")
# The lines RVC prints under the Resource Utilization table (FORMATS.md 2.3); HCIBench may end
# the file with the second one without a line terminator, as it ends resource_util.info.
_TABLE_FOOTNOTES = (
    "cpu.usage - Provides statistics for logical CPUs. This is based on CPU Hyperthreading.",
    "cpu.utilization - Provides statistics for physical CPUs.",
)
# Every value HCIBench prints in a block of each layout (FORMATS.md 2.3).
_FIO_KEYS = (*_REQUIRED, "R_LATENCY", "W_LATENCY", "95%tile_R_LAT", "95%tile_W_LAT")
_VDBENCH_KEYS = (*_REQUIRED, "LATENCY", "R_LATENCY", "W_LATENCY", "95%tile_LAT")
_TABLE = "resource_utilization_table"
_USAGE_LINES = "cpu_usage_lines"


@dataclass(slots=True)
class _Block:
    index: int
    datastore: str | None
    start_line: int
    values: dict[str, Any]
    early: int = 0
    decimals: int | None = None
    missing: list[str] = field(default_factory=list)  # values its layout prints, not read


def _vm_name(listed: str) -> str:
    return posixpath.splitext(posixpath.basename(listed.strip()))[0]


@dataclass(slots=True)
class _Summary:
    """What has been read of a summary so far, line by line."""

    source: SourceFile
    case: str
    notes: list[str]
    blocks: list[_Block] = field(default_factory=list)
    unfinished: list[HcibenchUnfinishedVm] = field(default_factory=list)
    datastores: list[str] = field(default_factory=list)
    layout: str | None = None
    section: str = "blocks"  # blocks | bad_files | early_files | resource | tail
    pending_early: int = 0
    all_early: bool = False
    perf_url: str | None = None
    has_diag: bool = False
    resource_kind: str | None = None
    table_lines: list[tuple[int, str]] = field(default_factory=list)
    usage_lines: dict[str | None, dict[str, float]] = field(default_factory=dict)
    cut_line: int | None = None
    cut_block: int | None = None  # index of the block the cut line belonged to

    def cut(self, line_no: int, stripped: str) -> None:
        """The incomplete last line: nothing of it is stored, the summary is partial."""
        self.cut_line = line_no
        # Within the blocks, even a cut rule line may hide the block's `Testing is done` count.
        if self.blocks and self.section == "blocks":
            self.cut_block = self.blocks[-1].index
        self.notes.append(
            f"line {line_no}: {stripped[:60]!r} is incomplete (the file ends inside it): "
            "not stored; the summary is partial"
        )

    def read(self, line_no: int, stripped: str) -> None:
        if (
            self.section == "resource"
            and self.resource_kind != _USAGE_LINES
            and stripped.startswith(("+", "|"))
        ):
            self.resource_kind = _TABLE
            self.table_lines.append((line_no, stripped))
        elif not (
            self._read_layout_line(line_no, stripped)
            or self._read_listed_file(stripped)
            or self._read_usage_line(line_no, stripped)
            or self._read_block_line(line_no, stripped)
        ):
            self.notes.append(f"line {line_no}: ignored {stripped[:60]!r}")

    def _read_layout_line(self, line_no: int, stripped: str) -> bool:
        """Blank and rule lines, datastores, early-finish counts and section headers."""
        if not stripped:
            if self.section in ("bad_files", "early_files"):
                self.section = "blocks" if self.section == "bad_files" else "tail"
        elif stripped.startswith("=" * 10):
            if self.section == "bad_files":
                self.section = "blocks"
        elif datastore := _DATASTORE.match(stripped):
            self.datastores.append(datastore["name"])
            if datastore["sep"] == ":":
                self.layout = "vdbench_bash"
            self.section = "blocks"
        elif stripped.startswith("All the VMs finished testing early"):
            self.all_early = True
        elif early := _EARLY.match(stripped):
            self.pending_early = int(early.group(1))
        elif stripped.startswith("Check the following results files that finished testing early"):
            self.section = "early_files"
        elif stripped == "Resource Usage:":
            self.section = "resource"
        elif stripped.startswith("vSAN Performance Stats Graph:"):
            self.perf_url = stripped.partition(":")[2].strip() or None
        elif "performance_diag_result.html" in stripped:
            self.has_diag = True
        elif done := _DONE.match(stripped):
            ok, total = int(done.group(1)), int(done.group(2))
            self._current(line_no).early = total - ok
            self.section = "bad_files"
        else:
            return False
        return True

    def _read_listed_file(self, stripped: str) -> bool:
        """A file listed under `Testing is done` (Vdbench) or `finished testing early` (fio)."""
        if self.section == "bad_files":
            block = self.blocks[-1]
            self.unfinished.append(
                HcibenchUnfinishedVm(
                    self.case,
                    block.datastore,
                    block.index,
                    _vm_name(stripped),
                    stripped,
                    "no_avg_line",
                )
            )
        elif self.section == "early_files":
            self.unfinished.append(
                HcibenchUnfinishedVm(
                    self.case, None, None, _vm_name(stripped), stripped, "finished_early"
                )
            )
        else:
            return False
        return True

    def _read_usage_line(self, line_no: int, stripped: str) -> bool:
        """HCIBench <= 2.5 `CPU USAGE = ...` lines of the resource section."""
        if self.section != "resource":
            return False
        usage = _USAGE_LINE.match(stripped)
        if usage:
            self.resource_kind = _USAGE_LINES
            if usage["value"]:
                for cluster, value in usage_values(usage["value"], self.source, line_no):
                    self.usage_lines.setdefault(cluster, {})[_USAGE_FIELDS[usage["key"]]] = value
            return True
        return stripped.startswith(("cpu.usage - ", "cpu.utilization - "))

    def _read_block_line(self, line_no: int, stripped: str) -> bool:
        """`Version:` and `Run Def:` (Vdbench) and `KEY = value` lines of a summary block."""
        if version := _VERSION.match(stripped):
            self.layout = self.layout or "vdbench_ruby"
            self._new_block(line_no).values["Version"] = version["v"]
        elif run_def := _RUN_DEF.match(stripped):
            self.layout = self.layout or "vdbench_ruby"
            last = self.blocks[-1] if self.blocks else None
            fresh = last and "Run Def" not in last.values and "IOPS" not in last.values
            (last if fresh else self._new_block(line_no)).values["Run Def"] = run_def["rd"]
        elif kv := _KV.match(stripped):
            self._read_value(line_no, kv["key"], kv["value"])
        else:
            return False
        return True

    def _read_value(self, line_no: int, key: str, value: str) -> None:
        if key == "JOB_NAME":
            self.layout = self.layout or "fio"
            self._new_block(line_no).values["JOB_NAME"] = value
            return
        block = self._current(line_no)
        if key in block.values:
            raise line_error(self.source, line_no, f"{key} appears twice in one summary block")
        if key == "VMs":
            if not value.isdigit():
                raise line_error(self.source, line_no, f"VMs: {value!r} is not a count")
            block.values[key] = int(value)
            return
        number = _VALUE_UNIT.match(value)
        if not number:
            raise line_error(self.source, line_no, f"{key}: {value!r} is not a number with a unit")
        unit = number["unit"]
        expected = _EXPECTED_UNITS.get(key, ("ms",))
        if unit not in expected:
            raise line_error(
                self.source, line_no, f"{key}: unit {unit!r}, expected {expected[0]!r}"
            )
        block.values[key] = float(number["num"])
        if key in _LATENCY_KEYS:
            block.decimals = max(block.decimals or 0, printed_decimals(number["num"]))

    def _current(self, line_no: int) -> _Block:
        if not self.blocks:
            raise line_error(
                self.source, line_no, "summary value before any JOB_NAME / Version line"
            )
        return self.blocks[-1]

    def _new_block(self, line_no: int) -> _Block:
        datastore = self.datastores[-1] if self.datastores else None
        block = _Block(len(self.blocks), datastore, line_no, {}, early=self.pending_early)
        self.pending_early = 0
        self.blocks.append(block)
        return block

    def resource_rows(self) -> list[HcibenchResourceUsage]:
        # One row per cluster for the <= 2.5 lines (CPU, RAM and vSAN PCPU of one cluster).
        rows = [
            HcibenchResourceUsage(
                case_name=self.case,
                origin="res_txt",
                cluster_name=cluster,
                host_name=None,
                is_average=True,
                **values,
            )
            for cluster, values in self.usage_lines.items()
        ]
        if self.resource_kind == _TABLE:
            rows.extend(utilization_table_rows(self.table_lines, self.source, self.case, "res_txt"))
        return rows

    def check_complete(self) -> None:
        path = self.source.path
        if not self.datastores:
            raise ParseError(path, "line 1", "no 'Datastore' line: not an HCIBench summary")
        self._drop_block_cut_before_iops()
        if not self.blocks and not self.all_early:
            raise ParseError(path, "end of file", "no summary block (JOB_NAME or Version)")
        for block in self.blocks:
            # Values after the cut of a partial block are missing, not wrong: kept as None.
            required = ("VMs", "IOPS") if block.index == self.cut_block else _REQUIRED
            missing = [k for k in _REQUIRED if k in required and k not in block.values]
            if missing:
                raise line_error(
                    self.source,
                    block.start_line,
                    f"summary block lacks {', '.join(missing)} (file cut short?)",
                )
            self._note_missing(block)

    def _note_missing(self, block: _Block) -> None:
        """A block without all of its layout's values is partial (a file cut at a line end)."""
        keys = _FIO_KEYS if "JOB_NAME" in block.values else _VDBENCH_KEYS
        block.missing = [k for k in keys if k not in block.values]
        if block.missing:
            self.notes.append(
                f"line {block.start_line}: summary block {block.index} lacks "
                f"{', '.join(block.missing)} (file cut short?): kept as None, block partial"
            )

    def _drop_block_cut_before_iops(self) -> None:
        """A block cut before its IOPS holds no measurement: dropped with a note, unless it is
        the only one (then the file is rejected by `check_complete`)."""
        last = self.blocks[-1] if self.blocks else None
        if last is None or last.index != self.cut_block or "IOPS" in last.values:
            return
        if len(self.blocks) > 1:
            self.blocks.pop()
            self.notes.append(
                f"line {last.start_line}: summary block {last.index} dropped: "
                "the file is cut before its IOPS"
            )


def parse_res_txt(text: str, source: SourceFile, parsed: Parsed) -> None:
    case = hcibench_case_name(source) or source.name.removesuffix("-res.txt")
    summary = _Summary(source, case, parsed.notes)
    cut_line = incomplete_last_line(text)
    for line_no, line in numbered_lines(text):
        if line_no == cut_line:
            summary.cut(line_no, line.strip())
        else:
            summary.read(line_no, line.strip())
    resource = summary.resource_rows()
    summary.check_complete()
    name = parse_case_name(case)
    blocks = [
        _block_row(case, b, name, b.index == summary.cut_block or bool(b.missing))
        for b in summary.blocks
    ]
    parsed.add("hcibench_summary_blocks", blocks)
    parsed.add("hcibench_unfinished_vms", summary.unfinished)
    parsed.add("hcibench_resource_usage", resource)
    parsed.add("hcibench_cases", [_case_row(summary, name)])
    if not summary.blocks:
        # HCIBench printed `All the VMs finished testing early`: the case has no summary figures.
        parsed.no_result_reason = (
            "HCIBench summarized no results: all the VMs finished testing early"
        )
    early_total = sum(b.early for b in summary.blocks)
    if early_total:
        parsed.notes.append(
            f"{early_total} VM result(s) left out of the summary (finished early "
            "or unfinished): the summary covers part of the VMs"
        )


def incomplete_last_line(text: str) -> int | None:
    """The number of the last line when it is incomplete, else None.

    HCIBench ends every line it writes; a summary copied while HCIBench was still writing it,
    or cut by a full disk, ends mid-line: `CPU USAGE = 4` of `CPU USAGE = 47.82%`. The last
    line is incomplete when it has no line terminator, or when it is a value line whose value
    stops before its end (a number without its unit, `47.`, a table row without its closing
    `|`): such a value is a prefix of the real one, never stored.
    """
    unterminated = unterminated_last_line(text)
    lines = text.rstrip().splitlines()
    if unterminated is not None:
        # RVC's table footnotes are fixed sentences: one that is whole ends nothing early.
        return None if lines[-1].strip() in _TABLE_FOOTNOTES else unterminated
    return len(lines) if lines and _value_is_cut(lines[-1].strip()) else None


def _value_is_cut(line: str) -> bool:
    """A value line whose value is a prefix of a complete one (see `incomplete_last_line`)."""
    if line.startswith("|"):
        return not line.endswith("|")
    kv = _KV.match(line) or _USAGE_LINE.match(line)
    if kv is None or kv["key"] == "JOB_NAME":
        return False
    value = kv["value"]
    if kv["key"] in _USAGE_FIELDS:
        # `45.3%` or `cluster1: 45.3%; cluster2: 12.0%; `: a cut stops in the last part. An
        # empty value is how HCIBench writes a metric it could not read.
        parts = [part for part in value.split(";") if part.strip()]
        if not parts:
            return False
        value, units = parts[-1].rpartition(":")[2].strip(), ("%",)
    else:
        units = _EXPECTED_UNITS.get(kv["key"], ("ms",) if kv["key"] != "VMs" else ("",))
    cut = _CUT_VALUE.match(value)
    if not value or cut is None:
        return not value
    unit = cut["unit"]
    return cut["num"].endswith(".") or any(u != unit and u.startswith(unit) for u in units)


def _case_row(summary: _Summary, name: CaseName | None) -> HcibenchCase:
    layout = summary.layout or "fio"
    return HcibenchCase(
        case_name=summary.case,
        param_name=name.param_name if name else None,
        tool=name.tool if name else ("fio" if layout == "fio" else "vdbench"),
        user_prefix=name.user_prefix if name else None,
        group_index=name.group_index if name else None,
        name_suffix=name.name_suffix if name else None,
        disks_per_vm=name.disks_per_vm if name else None,
        working_set_pct=name.working_set_pct if name else None,
        block_size_bytes=name.block_size_bytes if name else None,
        read_pct=name.read_pct if name else None,
        random_pct=name.random_pct if name else None,
        threads_per_disk=name.threads_per_disk if name else None,
        started_at=epoch_at(summary.case),
        summary_layout=layout,
        hcibench_release_hint=_release_hint(layout, summary.blocks, summary.resource_kind),
        datastore_count=len(summary.datastores),
        block_count=len(summary.blocks),
        all_vms_finished_early=summary.all_early,
        resource_section=summary.resource_kind,
        perf_stats_graph_url=summary.perf_url,
        has_performance_diag=summary.has_diag,
        is_partial=summary.cut_line is not None,
        cut_line=summary.cut_line,
    )


def _release_hint(layout: str, blocks: list[_Block], resource_kind: str | None) -> str | None:
    if resource_kind == _TABLE:
        return "2.8+"
    if layout == "vdbench_bash" or resource_kind == _USAGE_LINES:
        return "<=2.5"
    if layout == "fio" and blocks and blocks[0].decimals is not None:
        return "2.8+" if blocks[0].decimals >= 4 else "<=2.5"
    return None


def _block_row(
    case: str, block: _Block, name: CaseName | None, is_cut: bool
) -> HcibenchSummaryBlock:
    values = block.values
    read_pct = name.read_pct if name else None
    r_lat, w_lat, lat = values.get("R_LATENCY"), values.get("W_LATENCY"), values.get("LATENCY")
    if lat is not None:
        mixed = lat
    elif read_pct is not None and r_lat is not None and w_lat is not None:
        mixed = (read_pct * r_lat + (100 - read_pct) * w_lat) / 100
    else:
        mixed = None
    run_def = values.get("Run Def")
    rd_name = None
    if run_def:
        match = re.match(r"RD=([^;]+)", run_def)
        rd_name = match.group(1).strip() if match else None
    return HcibenchSummaryBlock(
        case_name=case,
        block_index=block.index,
        datastore_name=block.datastore,
        job_name=values.get("JOB_NAME"),
        vdbench_version=values.get("Version"),
        run_def_text=run_def,
        rd_name=rd_name,
        vm_count=values.get("VMs"),
        vms_finished_early=block.early,
        is_partial=block.early > 0 or is_cut,
        iops=values.get("IOPS"),
        throughput_mib_per_s=values.get("THROUGHPUT"),
        latency_ms_vm_avg=lat,
        read_latency_ms_vm_avg=r_lat,
        write_latency_ms_vm_avg=w_lat,
        p95_read_latency_ms_vm_avg=values.get("95%tile_R_LAT"),
        p95_write_latency_ms_vm_avg=values.get("95%tile_W_LAT"),
        p95_latency_ms_normal_estimate=values.get("95%tile_LAT"),
        latency_decimals=block.decimals,
        read_pct_from_name=read_pct,
        mixed_latency_ms_summary_derived=mixed,
        latency_kind=LatencyKind.total if _has_latency(values) else None,
    )


def _has_latency(values: dict) -> bool:
    return any(values.get(key) is not None for key in _LATENCY_KEYS)
