"""One module per source format; see `ingest.registry` for the contract."""
