"""The one redaction rule (`ingest.redaction`): which keys are secret, what text loses, and
that documents are followed into lists and maps at any depth."""

from __future__ import annotations

import pyarrow as pa
import pytest

from ingest import tables
from ingest.outcomes import Outcome
from ingest.parsers.hcibench.records import HcibenchSetting
from ingest.redaction import (
    REDACTED,
    is_secret_key,
    redact_mapping,
    redact_strings,
    redact_table,
    redact_text,
)


@pytest.mark.parametrize(
    "key",
    [
        "host_pwd",
        "vc_pw",
        "auth_header",
        "sso_login",
        "vc_password",
        "vcPassword",
        "passwd",
        "host_username",
        "user",
        "api_token",
        "APIToken",
        "ssh_key",
        "APIKey",
        "http_s3_key",
        "hosts_credential",
        "client_secret",
        "Cookie",
        "session",
        "private",
        "Authorization",
        "--http-pass",
        "bearer",
    ],
)
def test_secret_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    [
        "key_size",
        "monkey",
        "block_size",
        "author",
        "bypass",
        "passthrough",
        "testbed",
        "working_set",
        "vm_prefix",
        "http_s3_keyid",
        "datastore_name",
        "description",
        "exec_prerun",
    ],
)
def test_plain_keys(key: str) -> None:
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://admin:pw@vc.local/sdk", "see https://***@vc.local/sdk"),
        ("ssh://git@host:22/x", "ssh://***@host:22/x"),
        ("Authorization: Bearer abc.def-1", "Authorization: ***"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: ***"),
        ("sent Bearer eyJhbGciOi.x.y to it", "sent Bearer *** to it"),
        ("Basic dXNlcjpwYXNz= was sent", "Basic *** was sent"),
        ("Basic test of the cluster", "Basic test of the cluster"),
        ("echo password=hunter2 --vc_pw 'a b' x", "echo password=*** --vc_pw '***' x"),
        ("fio --http-pass s3cr3t --name=j", "fio --http-pass *** --name=j"),
        ("the user admin logged in", "the user admin logged in"),
        ("--key-size 4096 -p x", "--key-size 4096 -p x"),
        ('{"sso_login": "bob", "n": 1}', '{"sso_login": "***", "n": 1}'),
        ('{"pin_pw": 1234, "pw": null}', '{"pin_pw": "***", "pw": null}'),  # still JSON
        ("ignored 'host_pwd: s3cr3t'", "ignored 'host_pwd: ***'"),
        ('curl -H "Cookie: sid=abc" x', 'curl -H "Cookie: ***" x'),
        ("https://h/x?token=abc&page=2", "https://h/x?token=***&page=2"),
        ("RD=rd1; I/O rate: 100; elapsed=5", "RD=rd1; I/O rate: 100; elapsed=5"),
        ("12:00:01.003", "12:00:01.003"),
        ("key_size=4096 block_size: 4k", "key_size=4096 block_size: 4k"),
    ],
)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact_text(expected) == expected  # idempotent: stored text redacts to itself


def test_redact_mapping_follows_lists_and_maps() -> None:
    document = {
        "hosts": [{"name": "esx1", "password": "p1"}, "--pass=p2"],
        "deep": {"a": {"credentials": {"user": "u", "pw": "p3"}, "n": 3}},
        "host_pwd": None,
        "vc_pw": 1234,
        "https://u:p4@h": "ok",
        "url": "https://admin:p5@vc",
    }
    assert redact_mapping(document) == {
        "hosts": [{"name": "esx1", "password": REDACTED}, "--pass=***"],
        "deep": {"a": {"credentials": REDACTED, "n": 3}},
        "host_pwd": None,  # an empty secret hides nothing
        "vc_pw": REDACTED,
        "https://***@h": "ok",
        "url": "https://***@vc",
    }
    assert document["hosts"][0]["password"] == "p1"  # pure: the input is not changed


def test_every_stored_text_passes_the_rule() -> None:
    """`tables.to_arrow` is where every parser row becomes stored text."""
    row = HcibenchSetting("c", "url", '"https://admin:p6@vc"', False)
    table = tables.to_arrow(HcibenchSetting, [row])
    assert table.column("value_json").to_pylist() == ['"https://***@vc"']


def test_rejection_reasons_are_redacted() -> None:
    outcome = Outcome.rejected("/x/vsan.cfg", "line 3", "unexpected line: 'vc_pw: p7'")
    assert outcome.reason == "unexpected line: 'vc_pw: ***'"
    outcome.reject("line 4", "found 'token=p8'")
    assert outcome.reason == "found 'token=***'"


def test_tables_a_parser_built_itself_are_redacted() -> None:
    """esxtop builds its Arrow tables itself; the writer redacts them (`redact_table`)."""
    table = pa.table(
        {
            "header": [r"\\esx1\Group(vm1)\Reads/sec", "https://root:p9@esx1/sdk"],
            "n": [1, 2],
        }
    )
    redacted = redact_table(table)
    assert redacted.column("header").to_pylist() == [
        r"\\esx1\Group(vm1)\Reads/sec",
        "https://***@esx1/sdk",
    ]
    assert redacted.column("n").to_pylist() == [1, 2]


def test_a_column_without_candidates_is_returned_as_is() -> None:
    """Millions of sample times or metric names cost one vectorised scan, no Python call."""
    times = pa.array([f"12:00:{s:02d}.000" for s in range(60)])
    assert redact_strings(times) is times
