"""Data-quality suites (great-expectations 1.x) for the warehouse's `raw` and `marts` tables.

`python -m expectations [--db FILE]` validates, prints a report and writes
`marts.data_quality_results`; see `expectations.run`.
"""

import os

# Before any module imports great_expectations: no usage statistics leave the machine.
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
