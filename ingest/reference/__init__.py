"""Writers of real tool-output formats, for the reference dataset and benchmarks."""
