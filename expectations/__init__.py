"""Data-quality suites (great-expectations 1.x) for the warehouse's `raw` and `marts` tables.

`python -m expectations [--db FILE]` validates, prints a report and appends the run to
`data_quality.validation_results`; see `expectations.cli`. One job per module: `suites/` (what
is expected), `context` (GX context and batches), `runner` (suites -> `Outcome` records),
`describe` (GX results in words), `report` (the console table), `store` (the append), `cli`.
"""

import os

# Before any module imports great_expectations: no usage statistics leave the machine.
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
