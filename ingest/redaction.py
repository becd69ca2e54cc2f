"""The one rule for what is a secret, applied wherever ingest stores or prints free text.

Tool outputs and their configuration files carry credentials: HCIBench's `hcibench.cfg` /
`perf-conf.yaml` (vCenter and ESXi user names and passwords), fio job options (`http_pass`,
an `exec_prerun` command line, a `description` with a URL), run labels (`--label
api_token=...`). Nothing of that may reach the warehouse, whose text the SQL console shows.

A **secret key** is a key whose name, split into word parts (`host_pwd`, `vcPassword`,
`sso-login`, `Authorization`), has a part that
- contains `pass`, `pwd`, `secret`, `token`, `credential`, `cookie`, `bearer` (so `password`,
  `passwd`, `vcpass`, `api_token`, `hosts_credential`) - except the plain words `bypass`,
  `passthrough`, `passthru`, `passed`, `passes`, `compass`;
- is one of `pw`, `auth`/`authn`/`authz`/`authorization`/`authentication`, `sso`, `login`,
  `logon`, `session`/`sessionid`, `private`, `cred`/`creds`, `jwt`, `otp`;
- is `user`/`username`/`users`/`userid`/`login`: a user name is half a credential and
  HCIBench stores it next to the password, so it is hidden too (a label named `user` is
  hidden as well: rename it, e.g. `operator`, to keep it);
- is the last part and is `key`/`keys` or ends in `apikey`/`sshkey`/`privatekey`/
  `accesskey`/`secretkey` (`api_key`, `ssh_key`, fio's `http_s3_key`), while `key` elsewhere
  is a plain word (`key_size`, `key_count` are kept).
The rule errs on hiding: a false positive costs a setting's value, a false negative a secret.

Its value (whatever it holds: text, number, list, map) becomes `REDACTED`. Besides keys,
text is scrubbed of URL user info (`https://admin:pw@host` -> `https://***@host`),
`Bearer <token>` / `Basic <base64>` values, and `key=value` / `key: value` pairs with a
secret key (`--password=x`, `"vc_pw": "x"`, `Authorization: Basic x`). Every function is pure
and idempotent: redacting redacted text changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

REDACTED = "***"

_SUBSTRINGS = ("pass", "pwd", "secret", "token", "credential", "cookie", "bearer")
_PLAIN_WORDS = frozenset({"bypass", "passthrough", "passthru", "passed", "passes", "compass"})
_WHOLE_PARTS = frozenset(
    {
        "pw",
        "auth",
        "authn",
        "authz",
        "authorization",
        "authentication",
        "sso",
        "login",
        "logon",
        "session",
        "sessionid",
        "private",
        "cred",
        "creds",
        "jwt",
        "otp",
        "user",
        "username",
        "users",
        "userid",
    }
)
_KEY_WORDS = frozenset({"key", "keys"})
_KEY_COMPOUNDS = ("apikey", "sshkey", "privatekey", "accesskey", "secretkey")


def _word_parts(key: str) -> list[str]:
    """`vcPassword` -> [vc, password]; `APIKey` -> [api, key]; `host_pwd` -> [host, pwd]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [part for part in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if part]


@lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """Whether a setting, option or label of this name holds a secret (module docstring)."""
    parts = _word_parts(key)
    for part in parts:
        if part in _PLAIN_WORDS:
            continue
        if part in _WHOLE_PARTS or any(s in part for s in _SUBSTRINGS):
            return True
    return bool(parts) and (parts[-1] in _KEY_WORDS or parts[-1].endswith(_KEY_COMPOUNDS))


# `scheme://userinfo@`: the user info (user, user:password or a token) is dropped whole.
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@?#\"'<>]+@")
# An HTTP credential scheme and its token; `Basic` only with a base64-looking token (it is
# also a plain English word: "Basic test").
_AUTH_SCHEME = re.compile(
    r"(?P<scheme>\bBearer\s+)(?!\*\*\*)[A-Za-z0-9._~+/=:-]+"
    r"|(?P<basic>\bBasic\s+)(?!\*\*\*)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{6,}={0,2}",
    re.IGNORECASE,
)
# `key=value`, `key: value`, `"key": "value"`, `--key=value`, `--key value` (a space parts
# only a command-line option from its value); the value is a quoted string,
# or a credential scheme and its token, or one word up to a space or separator. The value is
# a lookahead: a pair whose key is plain consumes only `key=`, so a secret pair quoted inside
# its value (`line: 'vc_pw: x'`) is still found.
_PAIR = re.compile(
    r"""(?<![\w.-])(?P<key>["']?-{0,2}[A-Za-z_][\w.-]*["']?)"""
    r"""(?P<sep>[ \t]*[:=][ \t]*|[ \t]+(?=[^\s-]))"""
    r"""(?=(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'"""
    r"""|(?:(?:Bearer|Basic|Digest|Negotiate|Token)[ \t]+)?[^\s,;&'"{}\[\]]+))""",
    re.IGNORECASE,
)
# Every redaction needs an `@` (URL user info) or a word of a secret key or scheme: text
# without any (numbers, times, host and metric names: most stored text) is returned at once.
_MAYBE = re.compile(
    r"@|pass|pw|secret|token|credential|cookie|bearer|basic|auth|sso|log[io]n|session"
    r"|private|cred|jwt|otp|user|key",
    re.IGNORECASE,
)


def _redact_pairs(text: str) -> str:
    out: list[str] = []
    done = 0  # text[:done] is written; a match inside a redacted value is skipped
    for match in _PAIR.finditer(text):
        key, value = match.group("key"), match.group("value")
        if match.start() < done or not is_secret_key(key.strip("\"'-")):
            continue
        if not match.group("sep").strip() and not key.startswith("-"):
            continue  # `user admin` is prose; `--user admin` is an option
        if value in ("null", REDACTED):
            continue  # nothing to hide (JSON's empty value), or hidden already
        quote = value[0] if value[:1] in ("'", '"') else ""
        if not quote and len(key) > 1 and key[0] == key[-1] == '"':
            quote = '"'  # `"pin": 1234` in JSON text stays JSON: `"pin": "***"`
        out.append(text[done : match.start()])
        out.append(f"{key}{match.group('sep')}{quote}{REDACTED}{quote}")
        done = match.end() + len(value)
    out.append(text[done:])
    return "".join(out)


def _redact_scheme(match: re.Match[str]) -> str:
    return (match.group("scheme") or match.group("basic")) + REDACTED


@lru_cache(maxsize=65536)
def redact_text(text: str) -> str:
    """Text with URL user info, credential-scheme tokens and secret `key=value` pairs hidden.

    Cached: the same short texts (host, metric, direction names) recur in every row."""
    if not _MAYBE.search(text):
        return text
    text = _URL_USERINFO.sub(rf"\g<scheme>{REDACTED}@", text)
    text = _redact_pairs(text)
    return _AUTH_SCHEME.sub(_redact_scheme, text)


# Arrow compiles its regex on every call (about 0.2 ms, 14 % of loading 2,000 small files when
# paid per column of each file); below this many values `redact_text` on each value (its
# cache answers the recurring ones) is the cheaper of the two.
VECTOR_MIN_VALUES = 512


def redact_strings(array: pa.Array) -> pa.Array:
    """A string column with `redact_text` applied to each value.

    A long column: Arrow's vectorised regex picks the few values that may hold a secret (about
    0.1 us a value), so a column of a million sample times costs no Python call per value. A
    short one: `redact_text` on each value, without the regex's fixed cost."""
    if len(array) < VECTOR_MIN_VALUES:
        values = array.to_pylist()
        redacted = [None if v is None else redact_text(v) for v in values]
        return array if redacted == values else pa.array(redacted, type=array.type)
    maybe = pc.match_substring_regex(array, _MAYBE.pattern, ignore_case=True)
    if not pc.any(maybe).as_py():
        return array
    values = array.to_pylist()
    flags = maybe.to_pylist()
    return pa.array(
        [redact_text(v) if flag else v for v, flag in zip(values, flags, strict=True)],
        type=array.type,
    )


def redact_table(table: pa.Table) -> pa.Table:
    """A table a parser built itself (esxtop) with `redact_strings` on every text column."""
    for index, field in enumerate(table.schema):
        if pa.types.is_string(field.type):
            column = pa.chunked_array(
                [redact_strings(chunk) for chunk in table.column(index).chunks], field.type
            )
            table = table.set_column(index, field, column)
    return table


def redact_mapping(obj: Any) -> Any:
    """A copy of a parsed document (maps, lists, scalars) with every secret hidden.

    The value of a secret key becomes `REDACTED` whatever it holds (a map or list under
    `credentials` goes whole); texts elsewhere, map keys included, go through `redact_text`;
    lists and maps are followed to any depth. An empty secret (None) stays None: it hides
    nothing and says the setting was empty."""
    if isinstance(obj, Mapping):
        return {
            _redact_key(key): (
                REDACTED if value is not None and is_secret_key(str(key)) else redact_mapping(value)
            )
            for key, value in obj.items()
        }
    if isinstance(obj, list | tuple):
        return [redact_mapping(item) for item in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj


def _redact_key(key: Any) -> Any:
    return redact_text(key) if isinstance(key, str) else key
