"""What the SQL console may run: an allow-list over DuckDB's own parse tree.

A name block-list is always one spelling behind (`"read_blob"(...)`, `"query"(...)`, a view
such as `duckdb_databases` read without parentheses). So the console accepts a statement only
when everything in it is on a list:

- exactly one statement, of DuckDB statement type SELECT, whose text starts with SELECT or WITH
  (DuckDB turns PRAGMA into a SELECT, and json_serialize_sql refuses everything else);
- every function call (scalar, aggregate, window, operator) names a function of
  `allowed_functions()`, unqualified or in schema `main`;
- every table function is one of `TABLE_FUNCTIONS` (row generators, no catalog or file access);
- every table is `marts.<name>` or `data_quality.<name>` (optionally in catalog `warehouse`,
  or `lake` in team mode), or a CTE name visible at that point, with DuckDB's scoping (a CTE
  sees the CTEs before it and, only if it is recursive, itself; a CTE that names itself
  otherwise reads the outer object of that name, e.g. the system view `duckdb_databases`);
- every FROM item is of a known kind (tables, table functions, joins, subqueries, VALUES, PIVOT).

The allow-list of functions (see `allowed_functions`) is DuckDB's own `duckdb_functions()` of a
plain in-memory database, schema `main`, kinds scalar/aggregate/macro, minus the families that
touch files, settings, the session or the catalog, the network, logging, extensions, secrets,
SQL text or the clock of the process (sleep). New DuckDB built-ins arrive allowed only if they
match none of those families; review `EXCLUDED_FUNCTIONS` when upgrading DuckDB.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import duckdb

MAX_SQL_CHARS = 20_000
ALLOWED_SCHEMAS = frozenset({"marts", "data_quality"})
# The catalogs the console's connection attaches the warehouse as (warehouse.readers): a file
# as `warehouse`, a lake as `lake` (its fixed alias).
WAREHOUSE_CATALOG = "warehouse"
WAREHOUSE_CATALOGS = frozenset({"", WAREHOUSE_CATALOG, "lake"})
# Row generators an analyst uses for calendars and list expansion; nothing else in FROM.
TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})
# Families excluded from duckdb_functions(), by name (the rule documented above).
EXCLUDED_FUNCTIONS = re.compile(
    r"""^(?:
        current_(?!date$|localtime$|localtimestamp$).*   # settings, session, catalog, query
        | getvariable | get_block_size | version | user | session_user | in_search_path
        | txid_current | nextval | currval                # sequences live in the catalog
        | pg_.* | has_.*_privilege | .*_description       # catalog views of pg_catalog
        | .*_sql | .*sql_.*                              # SQL text run or (de)serialised
        | write_log | parse_duckdb_log_message | .*logging.* | .*profil.*
        | read_.* | .*_scan | glob | parquet_.* | sniff_.* | .*file.*   # files
        | .*extension.* | load_.* | install_.* | .*secret.*
        | http.* | .*_url | url_.*                        # network (if an extension adds it)
        | sleep.* | .*checkpoint.*
        | duckdb_.* | pragma_.*
    )$""",
    re.VERBOSE,
)
_KINDS = ("scalar", "aggregate", "macro")
# FROM items: everything else (SHOW, column data, ...) is refused.
_TABLE_REF_TYPES = frozenset(
    {"BASE_TABLE", "TABLE_FUNCTION", "JOIN", "SUBQUERY", "EMPTY", "EXPRESSION_LIST", "PIVOT"}
)
# Prefixes that shadow system objects if a CTE were allowed to take them.
_SYSTEM_PREFIXES = ("duckdb_", "pg_", "sqlite_", "pragma_", "information_schema")
_LEADING = re.compile(r"^[\s(]*(\w+)", re.IGNORECASE)
_PARSER_LOCK = threading.Lock()


class QueryRejected(ValueError):
    """The statement is not allowed in the console (reason in the message)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """One name the statement uses: a function, table function or table."""

    kind: str  # "function" | "table function" | "table"
    name: str
    schema: str
    catalog: str


@cache
def allowed_functions() -> frozenset[str]:
    """DuckDB's built-in scalar, aggregate and macro functions minus the excluded families."""
    con = duckdb.connect(":memory:", config={"autoload_known_extensions": False})
    try:
        rows = con.execute(
            "select distinct function_name from duckdb_functions() "
            "where schema_name = 'main' and function_type in (?, ?, ?)",
            list(_KINDS),
        ).fetchall()
    finally:
        con.close()
    return frozenset(name for (name,) in rows if not EXCLUDED_FUNCTIONS.match(name))


def _strip_comments_and_strings(sql: str) -> str:
    """The SQL with comments removed and string/quoted-identifier contents blanked, so that
    a keyword in a comment cannot hide the statement's real first word."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end == -1 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end == -1 else end + 2
            out.append(" ")
        elif ch in "'\"":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # doubled quote escapes itself
                        end += 2
                        continue
                    break
                end += 1
            out.append(ch + " " * (end - i - 1) + ch)
            i = end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _parse_tree(con: duckdb.DuckDBPyConnection, statement: str) -> dict:
    text = con.execute("select json_serialize_sql(?)", [statement]).fetchone()[0]
    tree = json.loads(text)
    if tree.get("error"):
        raise QueryRejected(f"The query is not a plain SELECT: {tree.get('error_message')}")
    if len(tree["statements"]) != 1:
        raise QueryRejected("Exactly one statement is allowed.")
    return tree["statements"][0]["node"]


def _cte_entries(node: dict) -> list[tuple[str, dict]]:
    cte_map = node.get("cte_map") or {}
    return [(entry["key"].lower(), entry["value"]) for entry in cte_map.get("map", [])]


def _walk(item: object, scope: frozenset[str]) -> Iterator[Reference | str]:
    """Every function, table function and table `item` uses (a str: a refused construct).

    `scope` holds the CTE names visible here; a table reference to one of them is a CTE."""
    if isinstance(item, list):
        for child in item:
            yield from _walk(child, scope)
        return
    if not isinstance(item, dict):
        return
    entries = _cte_entries(item)
    if entries:
        yield from _walk_ctes(item, entries, scope)
        return
    kind = item.get("type")
    if "sample" in item and "alias" in item and kind not in _TABLE_REF_TYPES:
        yield f"FROM items of kind {kind}"
        return
    if kind == "BASE_TABLE":
        name = item["table_name"].lower()
        if not (item["schema_name"] == "" and item["catalog_name"] == "" and name in scope):
            yield Reference("table", name, item["schema_name"].lower(), item["catalog_name"])
    elif kind == "TABLE_FUNCTION":
        function = item["function"]
        yield Reference(
            "table function",
            function["function_name"].lower(),
            function.get("schema", ""),
            function.get("catalog", ""),
        )
        yield from _walk(function.get("children", []), scope)
        return
    elif "function_name" in item:
        yield Reference(
            "function",
            item["function_name"].lower(),
            item.get("schema", ""),
            item.get("catalog", ""),
        )
    for value in item.values():
        if isinstance(value, dict | list):
            yield from _walk(value, scope)


def _walk_ctes(
    node: dict, entries: list[tuple[str, dict]], scope: frozenset[str]
) -> Iterator[Reference | str]:
    """DuckDB's CTE scoping: each CTE sees the ones before it (and itself if recursive)."""
    visible = set(scope)
    for name, cte in entries:
        if name.startswith(_SYSTEM_PREFIXES):
            yield f"a CTE named {name!r} (the name of a system object)"
        query = cte.get("query", {})
        recursive = query.get("node", {}).get("type") == "RECURSIVE_CTE_NODE"
        yield from _walk(query, frozenset(visible | ({name} if recursive else set())))
        visible.add(name)
    rest = {k: v for k, v in node.items() if k != "cte_map"}
    yield from _walk(rest, frozenset(visible))


def _refusal(ref: Reference) -> str | None:
    """Why `ref` is not allowed, or None."""
    if ref.kind == "table":
        if ref.schema in ALLOWED_SCHEMAS and ref.catalog in WAREHOUSE_CATALOGS:
            return None
        where = ".".join(p for p in (ref.catalog, ref.schema, ref.name) if p)
        if any(mark in ref.name for mark in "/\\:."):  # a path or URL, not a table name
            return f"reading a file or URL by name (FROM '<path>'): {where}"
        return f"table {where} (only marts.<table> and data_quality.<table> can be read)"
    if ref.schema not in ("", "main") or ref.catalog not in ("", "system"):
        return f"{ref.kind} {ref.catalog}.{ref.schema}.{ref.name}"
    if ref.kind == "table function":
        return None if ref.name in TABLE_FUNCTIONS else f"table function {ref.name}()"
    return None if ref.name in allowed_functions() else f"function {ref.name}()"


def validate(sql: str) -> str:
    """The statement to run, or QueryRejected saying why not."""
    if not sql or not sql.strip():
        raise QueryRejected("The query is empty.")
    if len(sql) > MAX_SQL_CHARS:
        raise QueryRejected(f"The query is longer than {MAX_SQL_CHARS:,} characters.")
    leading = _LEADING.match(_strip_comments_and_strings(sql))
    first = leading.group(1).lower() if leading else ""
    if first not in {"select", "with"}:
        raise QueryRejected(
            f"Only a single SELECT or WITH query is allowed (this one starts with {first!r})."
        )
    try:
        with _PARSER_LOCK:
            return _parse_and_check(_parser(), sql)
    except RecursionError:  # json.loads and _walk recurse once per level of the parse tree
        raise QueryRejected("The query is nested too deeply to check.") from None


@cache
def _parser() -> duckdb.DuckDBPyConnection:
    """One in-memory connection that only parses (never runs) console SQL; used under
    _PARSER_LOCK, since a DuckDB connection is not for concurrent use."""
    return duckdb.connect(":memory:", config={"autoload_known_extensions": False})


def _parse_and_check(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The one SELECT statement of `sql` once its parse tree passes the allow-list."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryRejected(f"The query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise QueryRejected(f"Exactly one statement is allowed ({len(statements)} given).")
    if statements[0].type != duckdb.StatementType.SELECT:
        raise QueryRejected(f"Only SELECT is allowed (this is {statements[0].type.name}).")
    # The relation API takes the statement without its trailing semicolon.
    statement = statements[0].query.strip().rstrip(";").strip()
    tree = _parse_tree(con, statement)
    refused = sorted(
        {r if isinstance(r, str) else (_refusal(r) or "") for r in _walk(tree, frozenset())} - {""}
    )
    if refused:
        raise QueryRejected("Not allowed in the console (refused): " + "; ".join(refused) + ".")
    return statement
