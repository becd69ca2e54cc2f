"""The console's allow-list now lives in `warehouse.sql_policy`, shared with `ingest query`
(which must not import the app); this name stays for existing imports."""

from warehouse.sql_policy import (
    ALLOWED_SCHEMAS,
    EXCLUDED_FUNCTIONS,
    MAX_SQL_CHARS,
    TABLE_FUNCTIONS,
    QueryRejected,
    allowed_functions,
    validate,
)

__all__ = [
    "ALLOWED_SCHEMAS",
    "EXCLUDED_FUNCTIONS",
    "MAX_SQL_CHARS",
    "TABLE_FUNCTIONS",
    "QueryRejected",
    "allowed_functions",
    "validate",
]
