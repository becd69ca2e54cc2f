"""`python -m expectations [--db FILE] [--failures-only]`: validate the warehouse."""

import sys

from expectations.cli import main

if __name__ == "__main__":
    sys.exit(main())
