"""One module per `python -m ingest` command; `ingest.__main__` parses and dispatches."""

USAGE_ERROR = 2
