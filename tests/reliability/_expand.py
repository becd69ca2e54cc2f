"""Run in a subprocess by test_archives.py: expand one PATH as `ingest load` would.

Usage: python -m tests.reliability._expand PATH
Prints JSON: members (logical path, size), refusals (path, reason) and the peak RSS in MB
(ru_maxrss), so the parent can bound what an archive bomb costs under the limits it sets
through PERF_MAX_FILE_BYTES / PERF_MAX_ARCHIVE_BYTES.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from ingest.triage import collect
from ingest.walk import Refused


def main() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    items = collect([Path(sys.argv[1])])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "members": [[i.path, i.size_bytes] for i in items if not isinstance(i, Refused)],
                "refused": [[i.path, i.reason] for i in items if isinstance(i, Refused)],
                "rss_before_mb": round(before),
                "rss_peak_mb": round(peak),
            }
        )
    )


if __name__ == "__main__":
    main()
