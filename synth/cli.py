"""`python -m synth reference DIR | fixtures [NAME ...] | esxtop PATH [options] | history ...`.

- `reference DIR`: the reference dataset (the five studies), the same files as
  `python -m ingest reference DIR`.
- `fixtures [NAME ...]`: rewrite the committed test fixtures under `tests/fixtures/` (all makers,
  or the named ones); `--into DIR` writes them elsewhere, e.g. to diff against the committed ones,
  and `--replay-fio` reuses the committed fio outputs instead of running fio (real fio numbers
  differ on every run; everything else must then come out byte for byte).
- `esxtop PATH`: a wide esxtop capture scaled from a real one, for benchmarks (never commit it).
- `history FIO_JSON|HCIBENCH_RES_TXT DIR`: a run history of one configuration from one real
  fio JSON report or one HCIBench fio test case (its `-res.txt`, the case folder beside it),
  re-dated over weeks, with a step after an "upgrade" (vsan_version 8.0u2 -> 8.0u3) and one
  outlier run (synth/history.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from warehouse import REPO_ROOT

FIXTURES_ROOT = REPO_ROOT / "tests" / "fixtures"


def reference(args: argparse.Namespace, console: Console | None = None) -> int:
    """`reference DIR` (also `python -m ingest reference DIR`): the reference dataset."""
    from synth.dataset import write_reference_dataset

    written = write_reference_dataset(args.dir)
    (console or Console(highlight=False)).print(
        f"wrote {len(written)} files of the reference dataset into {escape(str(args.dir))}"
    )
    return 0


def _fixtures(args: argparse.Namespace) -> int:
    from synth.fixtures import MAKERS, hcibench

    if unknown := set(args.names) - set(MAKERS):
        raise SystemExit(f"unknown fixtures {sorted(unknown)}; known: {sorted(MAKERS)}")
    for name in args.names or list(MAKERS):
        folder = args.into / name
        if name == "hcibench" and args.replay_fio:
            hcibench.write(folder, replay_fio_from=FIXTURES_ROOT / "hcibench")
        else:
            MAKERS[name](folder)
        print(f"wrote the {name} fixtures into {folder}")
    return 0


def _esxtop(args: argparse.Namespace) -> int:
    from synth.esxtop_wide import generate

    made = generate(
        args.path,
        columns=args.columns,
        rows=args.rows,
        hosts=args.hosts,
        interval_s=args.interval,
        dialect=args.dialect,
        quirks=args.quirk,
        seed=args.seed,
    )
    print(
        f"wrote {made.path}: {made.columns} columns x {made.rows} rows, "
        f"{made.size_bytes / 1e6:.1f} MB"
    )
    return 0


def _history(args: argparse.Namespace) -> int:
    from synth.history import HistorySpec, write_fio_history, write_hcibench_history

    spec = HistorySpec(
        runs=args.runs,
        change_at=args.change_at,
        step_factor=1.0 + args.step_pct / 100.0,
        outlier_at=None if args.outlier_at < 0 else args.outlier_at,
        seed=args.seed,
    )
    # an HCIBench test case is named by its summary; anything else is a fio JSON report
    hcibench = args.template.name.endswith("-res.txt")
    write = write_hcibench_history if hcibench else write_fio_history
    runs = write(args.template, args.dir, spec)
    print(
        f"wrote {len(runs)} runs into {args.dir}: {args.step_pct:+g} % from run {spec.change_at}"
        f" (after-upgrade/), outlier run {spec.outlier_at}"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    from synth.esxtop_wide import DIALECTS, QUIRKS

    parser = argparse.ArgumentParser(prog="python -m synth", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    reference = commands.add_parser("reference", help="write the reference dataset")
    reference.add_argument("dir", type=Path)
    reference.set_defaults(run=reference)
    fixtures = commands.add_parser("fixtures", help="rewrite the committed test fixtures")
    fixtures.add_argument("names", nargs="*", metavar="NAME", help="hcibench, vsan_observer")
    fixtures.add_argument("--into", type=Path, default=FIXTURES_ROOT, help="fixtures root")
    fixtures.add_argument(
        "--replay-fio", action="store_true", help="reuse the committed fio outputs"
    )
    fixtures.set_defaults(run=_fixtures)
    esxtop = commands.add_parser("esxtop", help="write a wide esxtop capture for benchmarks")
    esxtop.add_argument("path", type=Path, help="file to write (keep it out of git)")
    esxtop.add_argument("--columns", type=int, default=20_000)
    esxtop.add_argument("--rows", type=int, default=720)
    esxtop.add_argument("--hosts", type=int, default=1)
    esxtop.add_argument("--interval", type=int, default=5, help="seconds between samples")
    esxtop.add_argument("--dialect", choices=DIALECTS, default="quoted")
    esxtop.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS))
    esxtop.add_argument("--seed", type=int, default=0)
    esxtop.set_defaults(run=_esxtop)
    history = commands.add_parser(
        "history", help="write a fio or HCIBench run history with a step change"
    )
    history.add_argument(
        "template",
        type=Path,
        metavar="FIO_JSON|HCIBENCH_RES_TXT",
        help="a real fio JSON report, or an HCIBench fio test case's -res.txt (its case folder"
        " beside it), to copy",
    )
    history.add_argument("dir", type=Path, help="folder to write (keep it out of git)")
    history.add_argument("--runs", type=int, default=24)
    history.add_argument("--change-at", type=int, default=14, help="first run after the upgrade")
    history.add_argument("--step-pct", type=float, default=-8.0, help="IOPS change, percent")
    history.add_argument("--outlier-at", type=int, default=6, help="-1: no outlier run")
    history.add_argument("--seed", type=int, default=31)
    history.set_defaults(run=_history)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return args.run(args)
