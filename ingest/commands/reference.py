"""`python -m ingest reference DIR`: an alias of `python -m synth reference DIR`.

The reference dataset (the five source studies) is written by the `synth` package; this
command stays so existing scripts keep working. Imported lazily: loading files never needs
the generators.
"""

from __future__ import annotations

import argparse

from rich.console import Console


def run(args: argparse.Namespace, console: Console) -> int:
    from synth.dataset import write_reference_dataset

    written = write_reference_dataset(args.dir)
    console.print(f"wrote {len(written)} files of the reference dataset into {args.dir}")
    return 0
