"""Mutation fuzzing of every parser: `python -m benchmarks.fuzz_parsers --seconds N [--seed S]`.

Seeds are the real samples (`../shared/samples`) and the golden fixtures
(`tests/fixtures/*/valid`, `tests/fixtures/*/results`). Each case mutates one seed (flip,
insert or delete bytes, truncate, duplicate or drop lines, splice two seeds), then does
what the loader does: `detect_format` on the first 64 KiB, then that parser's `parse`.
The only allowed failures are the product's own clear rejections: `ParseError`, and
`RecursionError` from a structure nested too deeply for the JSON/YAML readers, which the
loader rejects explicitly as "structure nested too deeply" (ingest/triage.py). Anything else is
a crash (the loader would report "parser failed unexpectedly"), and so is a call that takes
longer than `--timeout` seconds. Prints cases run and crashes, each
crash with the exception and the file it came from; `--save DIR` keeps crashing inputs.

Exit status: 0 when no crash was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ingest.records import ParseError
from ingest.registry import HEAD_BYTES, PARSERS, detect_format
from ingest.sources import source_for

REPO = Path(__file__).resolve().parent.parent

SAMPLES = REPO.parent / "shared" / "samples"
FIXTURES = REPO / "tests" / "fixtures"
# Seeds bigger than this are cut: mutating 1.6 MB esxtop captures thousands of times buys
# little over their first 256 KiB and would make each case slow.
MAX_SEED_BYTES = 256 * 1024


class CaseTimeout(Exception):
    """A detect or parse call ran past the per-case time limit."""


@dataclass(frozen=True, slots=True)
class Crash:
    seed: str
    fmt: str | None
    stage: str  # detect | parse
    error: str


def seed_files() -> list[Path]:
    """Real samples and valid fixtures, in a stable order."""
    roots = [SAMPLES, *sorted(FIXTURES.glob("*/valid")), *sorted(FIXTURES.glob("*/results"))]
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files.extend(p for p in sorted(root.rglob("*")) if p.is_file())
    return [p for p in files if not p.name.endswith((".expected.json", ".md", ".py"))]


def load_seeds() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()[:MAX_SEED_BYTES]) for p in seed_files()]


# --- mutations --------------------------------------------------------------------------------

_INTERESTING = [
    b"0",
    b"-1",
    b"nan",
    b"1e309",
    b"\x00",
    b"\xff",
    b'"',
    b",",
    b";",
    b"\n",
    b"{",
    b"[",
]


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _insert(rng: random.Random, data: bytes) -> bytes:
    i = rng.randint(0, len(data))
    blob = rng.choice(_INTERESTING) * rng.randint(1, 64)
    return data[:i] + blob + data[i:]


def _delete(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 256) :]


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randint(0, len(data))]


def _lines(rng: random.Random, data: bytes, op: str) -> bytes:
    lines = data.splitlines(keepends=True)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    if op == "dup":
        lines[i:i] = [lines[i]] * rng.randint(1, 5)
    elif op == "drop":
        del lines[i]
    else:  # swap two lines
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _replace_number(rng: random.Random, data: bytes) -> bytes:
    digits = [i for i in range(min(len(data), 65536)) if 48 <= data[i] <= 57]
    if not digits:
        return data
    i = rng.choice(digits)
    return data[:i] + rng.choice([b"-", b"9999999999999999999999", b"1e400", b"x", b""]) + data[i:]


def mutate(rng: random.Random, data: bytes, other: bytes) -> bytes:
    """One to three random mutations of `data` (`other` is a second seed for splicing)."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        if op == 0:
            data = _flip(rng, data)
        elif op == 1:
            data = _insert(rng, data)
        elif op == 2:
            data = _delete(rng, data)
        elif op == 3:
            data = _truncate(rng, data)
        elif op in (4, 5, 6):
            data = _lines(rng, data, ("dup", "drop", "swap")[op - 4])
        elif op == 7:
            data = _replace_number(rng, data)
        else:
            cut = rng.randint(0, len(data))
            data = data[:cut] + other[rng.randint(0, len(other)) :]
    return data


# --- one case ---------------------------------------------------------------------------------


def _on_alarm(signum, frame):
    raise CaseTimeout


def run_case(data: bytes, name: str, timeout_s: float = 5.0) -> tuple[str | None, Crash | None]:
    """Detect and parse `data` like the loader does: (format, crash or None)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    stage, fmt = "detect", None
    try:
        fmt = detect_format(data[:HEAD_BYTES], name)
        if fmt is None:
            return None, None
        stage = "parse"
        source = source_for(f"/fuzz/{name}", data, labels={"result_per": "file"})
        PARSERS[fmt].parse(data, source)
        return fmt, None
    except (ParseError, RecursionError):
        return fmt, None
    except CaseTimeout:
        return fmt, Crash(name, fmt, stage, f"no answer within {timeout_s:g} s")
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        return fmt, Crash(name, fmt, stage, f"{type(exc).__name__} at {where}: {exc}"[:300])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fuzz(seconds: float, seed: int, timeout_s: float, save: Path | None) -> int:
    seeds = load_seeds()
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    cases = 0
    by_format: Counter[str] = Counter()
    crashes: dict[tuple[str | None, str, str], Crash] = {}
    while time.monotonic() < deadline:
        name, data = rng.choice(seeds)
        _, other = rng.choice(seeds)
        mutated = mutate(rng, data, other)
        fmt, crash = run_case(mutated, name, timeout_s)
        cases += 1
        by_format[fmt or "(not detected)"] += 1
        if crash:
            key = (crash.fmt, crash.stage, crash.error.split(":")[0])
            if key not in crashes:
                crashes[key] = crash
                print(f"CRASH {crash.fmt} {crash.stage} seed={crash.seed}: {crash.error}")
                if save:
                    save.mkdir(parents=True, exist_ok=True)
                    (save / f"crash-{len(crashes)}-{crash.seed}").write_bytes(mutated)
    per_format = ", ".join(f"{k} {v}" for k, v in sorted(by_format.items()))
    print(f"seeds {len(seeds)}; cases per detected format: {per_format}")
    print(f"cases run: {cases}; distinct crashes: {len(crashes)}")
    return 1 if crashes else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per case")
    parser.add_argument("--save", type=Path, help="keep crashing inputs in this folder")
    args = parser.parse_args(argv)
    return fuzz(args.seconds, args.seed, args.timeout, args.save)


if __name__ == "__main__":
    sys.exit(main())
