"""The parsers the ingest command knows, in detection order.

Every parser module exposes:

- `FORMAT: str`            name stored in `raw.source_files.format`
- `PARSER_VERSION: str`    bumped when the rows it produces change
- `TABLES: dict[str, type | pyarrow.Schema]`  raw table name -> row dataclass
  (or Arrow schema for parsers that build Arrow tables directly)
- `detect(head: bytes, name: str) -> bool`  True when the first bytes (up to
  `HEAD_BYTES`) look like this format; the name is a hint only
- `parse(data: bytes, source: SourceFile) -> Parsed`  pure; raises `ParseError`

Detection runs in the order below, so a specific format (an HCIBench summary,
an esxtop capture) is tried before a general one (fio, whose text output can
start with almost anything).
"""

from __future__ import annotations

from types import ModuleType

from ingest.parsers import (
    esxtop,
    fio,
    hcibench,
    vdbench,
    vsan_capacity,
    vsan_observer,
    vsan_perfsvc,
)

HEAD_BYTES = 64 * 1024

_REQUIRED = ("FORMAT", "PARSER_VERSION", "TABLES", "detect", "parse")

_ORDERED: tuple[ModuleType, ...] = (
    esxtop,
    hcibench,
    vdbench,
    vsan_observer,
    vsan_perfsvc,
    vsan_capacity,
    fio,
)


def _checked(module: ModuleType) -> ModuleType:
    missing = [name for name in _REQUIRED if not hasattr(module, name)]
    if missing:
        raise TypeError(f"parser {module.__name__} lacks {', '.join(missing)}")
    return module


PARSERS: dict[str, ModuleType] = {m.FORMAT: _checked(m) for m in _ORDERED}


def get_parser(fmt: str) -> ModuleType:
    try:
        return PARSERS[fmt]
    except KeyError:
        raise KeyError(f"no parser for format {fmt!r}; known: {', '.join(PARSERS)}") from None


def detect_format(head: bytes, name: str) -> str | None:
    """The first format whose `detect` accepts the file, or None."""
    for fmt, module in PARSERS.items():
        if module.detect(head, name):
            return fmt
    return None
