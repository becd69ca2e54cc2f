"""Recognise files that belong to an HCIBench test case from their paths.

HCIBench writes one folder per test case, `<paramfile>-<epoch>/` (VM groups in
2.8: `group<i>-<paramfile>-<epoch>/`), beside its summary
`<paramfile>-<epoch>-res.txt`. Files inside the folder (per-VM outputs,
parameter files, Observer data) and the summary beside it all describe that
one test case; the loader records the case folder so they can be joined, and
per-VM outputs are aggregated per case (`result_per: folder` by default).
"""

from __future__ import annotations

import re

_EPOCH_SUFFIX = re.compile(r"^(?P<case>.+-\d{10})$")
_SUMMARY = re.compile(r"^(?P<case>.+-\d{10})-res\.txt$")
# Names HCIBench generates for its own parameter files: `fio-8vmdk-100ws-...`.
_GENERATED_NAME = re.compile(r"\d+vmdk-\d+ws-", re.IGNORECASE)
_CASE_FILES = ("fio.cfg", "vdbench.cfg", "hcibench.cfg", "vsan.cfg")


def _looks_like_case(folder: str, known_paths: set[str]) -> bool:
    name = folder.rsplit("/", 1)[-1]
    if not _EPOCH_SUFFIX.match(name):
        return False
    if _GENERATED_NAME.search(name):
        return True
    # A user-named parameter file: trust the folder when HCIBench's own files
    # or the summary beside it are there.
    siblings = [f"{folder}/{f}" for f in _CASE_FILES] + [f"{folder}-res.txt"]
    return any(s in known_paths for s in siblings)


def hcibench_case_of(logical_path: str, known_paths: set[str]) -> str | None:
    """The logical path of the test-case folder `logical_path` belongs to.

    `known_paths` are the logical paths of all files in the same load; they
    confirm folders whose names HCIBench did not generate.
    """
    folder, _, name = logical_path.rpartition("/")
    summary = _SUMMARY.match(name)
    if summary:
        case = f"{folder}/{summary['case']}"
        if _looks_like_case(case, known_paths) or any(
            p.startswith(case + "/") for p in known_paths
        ):
            return case
        return None
    # Walk up the folders (through archive boundaries): innermost case wins.
    while folder:
        if _looks_like_case(folder.removesuffix("!"), known_paths):
            return folder.removesuffix("!")
        folder = folder.rpartition("/")[0]
    return None
