"""Run in a subprocess by test_archives.py: expand one PATH as `ingest load` would.

Usage: python -m tests.reliability._expand PATH...
Prints JSON: members (logical path, size), refusals (path, reason) and the peak RSS in MB
(ru_maxrss), so the parent can bound what an archive bomb costs under the limits it sets
through PERF_MAX_FILE_BYTES / PERF_MAX_ARCHIVE_BYTES. Members are consumed one at a time,
as the loader does (each read once, then dropped). Several PATHs share one walk (and one
decompression budget), as in `ingest load A B`.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from ingest.walk import Refused, Walk


def main() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    members, refused = [], []
    for item in Walk([Path(arg) for arg in sys.argv[1:]]):
        if isinstance(item, Refused):
            refused.append([item.path, item.reason])
        else:
            members.append([item.path, len(item.read())])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "members": members,
                "refused": refused,
                "rss_before_mb": round(before),
                "rss_peak_mb": round(peak),
            }
        )
    )


if __name__ == "__main__":
    main()
