"""Run in a subprocess by test_hostile_input.py: one huge input through detect + parse.

Usage: python -m tests.reliability._huge_input KIND MEGABYTES
Prints JSON: the outcome and the peak RSS (MB) before and after, measured by the kernel
(ru_maxrss), so the parent can bound the memory a huge file costs.
"""

from __future__ import annotations

import json
import resource
import sys
import time

from benchmarks.fuzz_parsers import run_case

HEADS = {
    # A single 200 MB line that no format claims: read, detected as nothing, skipped.
    "plain": (b"", b""),
    # fio JSON with one enormous string value.
    "fio_json": (b'{"fio version": "fio-3.36", "jobs": [{"jobname": "', b'"}]}'),
    # fio normal output whose job line never ends.
    "fio_normal": (b"job0: (groupid=0, jobs=1): err= 0: pid=1: ", b"\n"),
    # An HCIBench settings file with one enormous value.
    "hcibench_cfg": (b"vc: a\ndatacenter_name: b\ncluster_name: c\nvm_prefix: ", b"\n"),
    # HCIBench parameter files and vsan.cfg with one enormous line.
    "hcibench_fio_params": (b"; Auto generated FIO parameter file\n[global]\nx=", b"\n"),
    "hcibench_vsan_cfg": (b"Local vSAN Datastore Name: ", b"\n"),
    "hcibench_res_txt": (b"Datastore: vsanDatastore\nJOB_NAME = job0\nVMs = ", b"\n"),
    # An esxtop capture whose header line never ends.
    "esxtop": (b'"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Memory\\Free MBytes', b'"\r\n'),
    # A vdbench flatfile whose column line never ends.
    "vdbench": (b"* Vdbench flatfile\ntod run interval reqrate rate MB/sec ", b"\n"),
}


def main() -> None:
    kind, megabytes = sys.argv[1], int(sys.argv[2])
    head, tail = HEADS[kind]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    data = head + b"A" * (megabytes * 1024 * 1024) + tail
    started = time.monotonic()
    fmt, crash = run_case(data, f"huge.{kind}", timeout_s=60)
    elapsed = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "format": fmt,
                "crash": crash.error if crash else None,
                "input_mb": len(data) / 2**20,
                "rss_before_mb": round(before),
                "rss_peak_mb": round(peak),
                "seconds": round(elapsed, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
