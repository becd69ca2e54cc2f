"""`python -m synth ...`: see synth.cli."""

from synth.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
