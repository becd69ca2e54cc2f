"""Throw-away infrastructure that the tests and the benchmarks both start: a PostgreSQL cluster
for team mode (`pg_cluster`) and a headless Chromium driven over the DevTools protocol
(`chromium`). Nothing of the product imports it."""
