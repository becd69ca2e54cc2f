"""Run in a subprocess by test_concurrency.py: query the warehouse like the dashboard does.

Usage: python -m tests.reliability._reader STOP_FILE
Until STOP_FILE exists, opens a fresh read-only connection through `app.lib.db` (which picks
the serving snapshot), runs one query, closes. Prints JSON: reads, failures (first few
messages), and the distinct source-file counts seen (the snapshot must advance).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from app.lib import db

QUERY = (
    "select (select count(*) from raw.source_files) as files, "
    "(select count(*) from information_schema.tables where table_schema = 'marts') as marts"
)


def main() -> None:
    stop = Path(sys.argv[1])
    reads, failures, seen = 0, [], set()
    while not stop.exists():
        try:
            frame = db.read(db.reading_path(), QUERY)
            seen.add((int(frame["files"][0]), int(frame["marts"][0])))
            reads += 1
        except Exception as exc:  # every failure counts; the test wants zero
            failures.append(f"{type(exc).__name__}: {exc}"[:300])
        time.sleep(0.02)
    print(
        json.dumps(
            {
                "reads": reads,
                "failures": failures[:5],
                "failed": len(failures),
                "seen": sorted(seen),
            }
        )
    )


if __name__ == "__main__":
    main()
