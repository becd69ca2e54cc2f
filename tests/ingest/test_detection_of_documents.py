"""Detectors claim outputs, not documents about them (issue 27).

A Markdown document that quotes a tool's lines (../shared/samples/PROVENANCE.md names the
vSAN dump header, capacity field names and fio error lines in its tables; a README pastes an
output in a code block) is none of the formats: loading a folder that holds one must skip it,
not reject it. The quoted lines are real: the first lines of every input a parser reads in its
golden cases, pasted into a README the way people paste them. Every real input is still
detected by its own parser (the golden cases' `detected` and the registry check in
test_golden.py hold that).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.registry import HEAD_BYTES, PARSERS, detect_format, unsupported_reason
from tests.conftest import REPO, SAMPLES
from tests.ingest.test_golden import GOLDEN, input_path

QUOTED_LINES = 40


def _detected_inputs(parser: str) -> list[Path]:
    """The inputs `parser` detects in its golden cases."""
    paths = []
    for expected_file in sorted(GOLDEN.glob(f"{parser}/*.expected.json")):
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
        if expected["detected"]:
            paths.append(input_path(expected["input"]))
    return paths


def _claimed_by(head: bytes, name: str) -> list[str]:
    return [fmt for fmt, module in PARSERS.items() if module.detect(head[:HEAD_BYTES], name)]


def _readme(quoted: bytes, fence: bool) -> bytes:
    """A README that pastes an output's first lines, in a fenced or an indented code block."""
    lines = quoted.decode("utf-8", errors="replace").splitlines()[:QUOTED_LINES]
    lines = [line[:2000] for line in lines]
    if fence:
        block = "```\n" + "\n".join(lines) + "\n```\n"
    else:
        block = "\n".join("    " + line for line in lines) + "\n"
    return f"# Benchmark notes\n\nThe run printed this:\n\n{block}\nThat was all.\n".encode()


def test_provenance_notes_are_no_format_and_are_skipped():
    path = SAMPLES / "PROVENANCE.md"
    head = path.read_bytes()[:HEAD_BYTES]
    assert _claimed_by(head, path.name) == []
    assert detect_format(head, path.name) is None
    assert unsupported_reason(head, path.name).startswith("not a supported format")


@pytest.mark.parametrize(
    "path",
    [
        *sorted((REPO / "docs").glob("*.md")),
        *sorted(SAMPLES.glob("*/*.md")),
        *sorted(REPO.glob("tests/fixtures/*/README.md")),
        REPO / "tests" / "ingest" / "golden" / "README.md",
    ],
    ids=lambda p: p.relative_to(p.parents[1]).as_posix(),
)
def test_markdown_documents_in_the_repository_and_samples_are_no_format(path):
    assert _claimed_by(path.read_bytes(), path.name) == []


@pytest.mark.parametrize("parser", sorted(PARSERS))
@pytest.mark.parametrize(
    ("name", "fence"),
    [("README.md", True), ("README.md", False), ("notes.txt", True)],
    ids=["fenced-readme", "indented-readme", "fenced-text-file"],
)
def test_no_detector_claims_a_readme_quoting_a_real_output(parser, name, fence):
    # GIVEN each real input this parser reads, its first lines pasted into a README
    inputs = _detected_inputs(parser)
    assert inputs, parser
    for path in inputs:
        # THEN no parser claims the README (while the input itself is still this parser's)
        assert detect_format(path.read_bytes()[:HEAD_BYTES], path.name) == parser, path
        readme = _readme(path.read_bytes(), fence)
        assert _claimed_by(readme, name) == [], (path.name, name)


def test_plain_notes_that_mention_format_markers_mid_line_are_no_format():
    # GIVEN the provenance notes' lines about vSAN files without their Markdown table, as a
    # .txt: sentences that name the dump header and capacity fields mid-line
    lines = (SAMPLES / "PROVENANCE.md").read_text(encoding="utf-8").splitlines()
    plain = "\n".join(
        line.replace("|", " ").strip() for line in lines if "vsan_" in line and "`" in line
    ).encode()
    assert b"--------------SOAP stats dump--------------" in plain
    assert b"totalCapacityB" in plain and b"VsanSpaceUsage" in plain
    # THEN no detector takes a mention for the thing itself
    assert _claimed_by(plain, "provenance.txt") == []
