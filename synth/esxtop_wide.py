r"""Write large, realistic esxtop batch captures for tests and benchmarks.

The header comes from a real capture in the shared samples (17,427 counters of one ESXi host).
It is scaled to the wanted width by replicating the per-entity groups (VMs, worlds, vCPUs,
devices, paths, ports) under new names: numeric ids are offset and the first name part gets a
`_r<n>` suffix, so `Group Cpu(1423953:poseidon)` becomes `Group Cpu(2423956:poseidon_r1)`.
Host-wide groups (Memory, Physical Cpu, Power, PCPU Power State...) are written once per host.

Values follow the real sample: a counter constant over the real rows stays constant (as ~87 %
of esxtop counters are, most of them 0), the others vary around their real mean; percentages
stay within 0-100; integer counters stay integers; cells are written as esxtop writes them
(`"12.34"`, the unquoted space-padded `    73.1` without a comma in PCPU Power State).

The header cells, the PDH first cell and the sample stamps come from `synth.esxtop_csv`, the
writer of the small reference captures, so both write the same esxtop format.

Never commit generated files: write them under a temp dir or `benchmarks/out/` (git-ignored).

    python -m synth esxtop benchmarks/out/w20k.csv --columns 20000 --rows 720
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synth.esxtop_csv import PDH_HEADER, SAMPLE_TIME_FORMAT, counter_path
from warehouse import REPO_ROOT

SHARED = Path(os.environ.get("PERF_SHARED_DIR", REPO_ROOT.parent / "shared")).resolve()
TEMPLATE = SHARED / "samples" / "esxtop" / "rach-sharp_esxtopd__esxtop-data.csv"

# Groups with one block per VM, world, vCPU, device, path or port: these scale with a host.
REPLICATED_GROUPS = frozenset(
    {
        "Group Cpu",
        "Vcpu",
        "Group Memory",
        "Virtual Disk",
        "Network Port",
        "Physical Disk",
        "Physical Disk Adapter",
        "Physical Disk SCSI Device",
        "Physical Disk Path",
        "Physical Disk Per-Device-Per-World",
        "Physical Disk Partition",
        "Interrupt Cookie",
    }
)
DIALECTS = ("quoted", "excel", "semicolon")
QUIRKS = frozenset(
    {"trailing_comma", "truncated_last_row", "cr_line_ends", "empty_cells", "malformed_cells"}
)
_ID_OFFSET = 1_000_003


@dataclass(frozen=True, slots=True)
class Column:
    host: str
    group: str | None
    instance: str | None
    counter: str
    padded: bool  # written unquoted and space-padded with no comma after (PCPU Power State)
    base: float
    varies: bool
    is_int: bool

    def header(self) -> str:
        if self.padded:
            return "   " + self.counter
        return counter_path(self.host, self.group, self.instance, self.counter)


@dataclass(frozen=True, slots=True)
class Generated:
    """What was written, so a test can check that a parser kept all of it."""

    path: Path
    columns: int
    rows: int  # complete sample rows (a truncated last row is not counted)
    empty_cells: int
    malformed_cells: int
    hosts: tuple[str, ...]
    size_bytes: int


# A header cell `\\host\Group(instance)\Counter` (the instance part is optional).
_HEADER_NAME = re.compile(
    r"^\\\\(?P<host>[^\\]*)\\(?P<group>[^\\(]*?)(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]*)$"
)
# esxtop's unquoted, space-padded PCPU Power State cells lack the comma after them.
_MISSING_COMMA = re.compile(rb'(", +[^",]*)(?=")')


def _cells(line: bytes) -> list[str]:
    return next(csv.reader([_MISSING_COMMA.sub(rb"\1,", line).decode()]))


def _value(cell: str) -> float:
    try:
        return float(cell)
    except ValueError:
        return math.nan  # empty or malformed: not a value


def _names(header: list[str]) -> list[tuple[str, str | None, str | None, str, bool]]:
    r"""(host, group, instance, counter, padded) per header cell. A padded cell (`   -` after
    each PCPU Power State block) is not `\\host\...`: it takes the host, group and instance of
    the column before it, and its own text as the counter."""
    names: list[tuple[str, str | None, str | None, str, bool]] = []
    for cell in header:
        match = _HEADER_NAME.match(cell)
        if match is None:
            host, group, instance = names[-1][:3] if names else ("", None, None)
            names.append((host, group, instance, cell.strip(), True))
        else:
            host, group, instance, counter = match.group("host", "group", "instance", "counter")
            names.append((host, group, instance, counter, False))
    return names


def template_columns(path: Path = TEMPLATE) -> list[Column]:
    """The counters of a real capture with their real mean and whether they vary.

    Read here, not with the product's parser (synth writes inputs for `ingest`, it does not
    depend on it); tests/synth checks that both read the template's counters alike. Rows that
    are cut short (a capture stopped mid-row) are left out, as the parser leaves them out."""
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    header = _cells(lines[0])[1:]
    rows = [cells[1:] for cells in map(_cells, lines[1:]) if len(cells) == len(header) + 1]
    values = np.array([[_value(cell) for cell in row] for row in rows])
    means = np.nanmean(values, axis=0)
    varies = np.nanmax(values, axis=0) != np.nanmin(values, axis=0)
    # Integer counters are written without decimals ("8083"), the others as "0.00".
    is_int = ["." not in cell for cell in rows[0]]
    return [
        Column(
            host=host,
            group=group,
            instance=instance,
            counter=counter,
            padded=padded,
            base=float(means[i]),
            varies=bool(varies[i]),
            is_int=is_int[i],
        )
        for i, (host, group, instance, counter, padded) in enumerate(_names(header))
    ]


def _renamed(instance: str | None, replica: int) -> str | None:
    if instance is None or replica == 0:
        return instance
    parts = instance.split(":")
    renamed, named = [], False
    for part in parts:
        if part.isdigit():
            renamed.append(str(int(part) + replica * _ID_OFFSET))
        elif not named:
            renamed.append(f"{part}_r{replica}")
            named = True
        else:
            renamed.append(part)
    return ":".join(renamed)


def scaled_columns(template: list[Column], columns: int, host: str) -> list[Column]:
    """`columns` counters for one host: host-wide groups once, entity groups replicated."""
    fixed = [c for c in template if c.group not in REPLICATED_GROUPS]
    per_entity = [c for c in template if c.group in REPLICATED_GROUPS]
    wanted = columns - len(fixed)
    if wanted < 0:
        return [_on_host(c, host, 0) for c in fixed[:columns]]
    replicas = max(1, math.ceil(wanted / len(per_entity)))
    chosen = [(r, i) for r in range(replicas) for i in range(len(per_entity))][:wanted]
    # esxtop writes each group as one block: keep replicas inside their group's block.
    group_rank = {g: k for k, g in enumerate(dict.fromkeys(c.group for c in per_entity))}
    chosen.sort(key=lambda ri: (group_rank[per_entity[ri[1]].group], ri[0], ri[1]))
    scaled = [_on_host(per_entity[i], host, r) for r, i in chosen]
    # Host-wide groups lead, as in the real header, except PCPU Power State which ends a row.
    head = [_on_host(c, host, 0) for c in fixed if c.group != "PCPU Power State"]
    tail = [_on_host(c, host, 0) for c in fixed if c.group == "PCPU Power State"]
    return head + scaled + tail


def _on_host(column: Column, host: str, replica: int) -> Column:
    return Column(
        host=host,
        group=column.group,
        instance=_renamed(column.instance, replica),
        counter=column.counter,
        padded=column.padded,
        base=column.base,
        varies=column.varies,
        is_int=column.is_int,
    )


def generate(
    path: Path,
    *,
    columns: int = 20_000,
    rows: int = 720,
    hosts: int = 1,
    interval_s: int = 5,
    dialect: str = "quoted",
    quirks: Iterable[str] = (),
    seed: int = 0,
    start: dt.datetime = dt.datetime(2026, 1, 5, 9, 0, 0),
    template: list[Column] | None = None,
) -> Generated:
    """Write a capture of about `columns` counters (split over `hosts`) x `rows` samples."""
    quirk_set = frozenset(quirks)
    if unknown := quirk_set - QUIRKS:
        raise ValueError(f"unknown quirks {sorted(unknown)}; known: {sorted(QUIRKS)}")
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}")
    template = template or template_columns()
    if dialect != "quoted":
        # The padded PCPU Power State cells exist only in esxtop's own (quoted) output.
        template = [c for c in template if not c.padded]
    host_names = tuple(f"esx{h + 1:02d}.lab.example.com" for h in range(hosts))
    per_host = [columns // hosts + (1 if h < columns % hosts else 0) for h in range(hosts)]
    cols = [
        c for h, n in zip(host_names, per_host, strict=True) for c in scaled_columns(template, n, h)
    ]
    rng = np.random.default_rng(seed)
    writer = _Writer(cols, dialect, quirk_set)
    empty = malformed = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    newline = b"\r" if "cr_line_ends" in quirk_set else b"\r\n" if dialect == "excel" else b"\n"
    with path.open("wb") as out:
        out.write(writer.header() + newline)
        for r in range(rows):
            stamp = start + dt.timedelta(seconds=r * interval_s)
            line, n_empty, n_bad = writer.row(stamp, rng)
            empty += n_empty
            malformed += n_bad
            if r == rows - 1 and "truncated_last_row" in quirk_set:
                out.write(line[: len(line) // 2])  # the capture was cut mid-row
                empty -= n_empty
                malformed -= n_bad
                continue
            out.write(line + newline)
    complete = rows - (1 if "truncated_last_row" in quirk_set else 0)
    return Generated(path, len(cols), complete, empty, malformed, host_names, path.stat().st_size)


class _Writer:
    """Formats cells the way esxtop (or Excel, or a locale copy) writes them."""

    def __init__(self, cols: list[Column], dialect: str, quirks: frozenset[str]) -> None:
        self.cols = cols
        self.dialect = dialect
        self.quirks = quirks
        self.delimiter = b";" if dialect == "semicolon" else b","
        self.quote = b"" if dialect == "excel" else b'"'
        self.base = np.array([c.base for c in cols])
        self.varies = np.flatnonzero([c.varies for c in cols])
        self.is_int = np.array([c.is_int for c in cols])
        self.is_pct = np.array([c.counter.startswith("%") for c in cols])
        self.padded = np.array([c.padded for c in cols], dtype=bool)
        self.plain = np.flatnonzero(~self.padded)
        # A padded cell has no delimiter after it: rows are joined in segments ending there.
        ends = [int(k) + 1 for k in np.flatnonzero(self.padded)]
        self.segments = list(zip([0, *ends], [*ends, len(cols)], strict=True))
        self.constant = self._format(np.arange(len(cols)), self.base)

    def header(self) -> bytes:
        cells = [
            c.header().encode() if c.padded else self._quoted(c.header().encode())
            for c in self.cols
        ]
        return self._joined(self._quoted(PDH_HEADER.encode()), cells)

    def stamp(self, when: dt.datetime) -> bytes:
        if self.dialect == "excel":
            text = f"{when.month}/{when.day}/{when.year} {when.hour}:{when.minute:02d}"
        else:
            text = when.strftime(SAMPLE_TIME_FORMAT)
        return self._quoted(text.encode())

    def row(self, when: dt.datetime, rng: np.random.Generator) -> tuple[bytes, int, int]:
        cells = self.constant.copy()
        idx = self.varies
        noise = rng.lognormal(0.0, 0.35, size=len(idx))
        values = self.base[idx] * noise
        values = np.where(self.is_pct[idx], np.clip(values, 0.0, 100.0), values)
        cells[idx] = self._format(idx, values)
        n_empty = n_bad = 0
        # Holes and bad cells go in quoted cells only: a padded cell has no delimiter after it.
        if "empty_cells" in self.quirks:
            holes = rng.choice(self.plain, size=max(1, len(cells) // 1000), replace=False)
            cells[holes] = self._quoted(b"")
            n_empty = len(holes)
        if "malformed_cells" in self.quirks:
            spot = int(rng.choice(np.setdiff1d(self.plain, holes if n_empty else [])))
            cells[spot] = self._quoted(b"n/a")
            n_bad = 1
        return self._joined(self.stamp(when), cells.tolist()), n_empty, n_bad

    def _format(self, idx: np.ndarray, values: np.ndarray) -> np.ndarray:
        text = np.where(
            self.is_int[idx],
            np.char.mod("%d", np.round(values).astype(np.int64)),
            np.char.mod("%.2f", values),
        )
        if self.dialect == "semicolon":
            text = np.char.replace(text, ".", ",")
        raw = np.char.encode(text, "ascii")
        padded = self.padded[idx]
        # esxtop writes these cells right-aligned in 8 characters, unquoted.
        out = np.char.add(np.char.add(self.quote, raw), self.quote).astype(object)
        if padded.any():
            out[padded] = np.char.rjust(raw[padded], 8).astype(object)
        return out

    def _quoted(self, text: bytes) -> bytes:
        return self.quote + text + self.quote

    def _joined(self, first: bytes, cells: list[bytes]) -> bytes:
        delim = self.delimiter
        line = first + delim + b"".join(delim.join(cells[a:b]) for a, b in self.segments)
        if "trailing_comma" in self.quirks:
            line += delim
        return line
