"""Load raw performance-tool outputs (fio, HCIBench, esxtop, vSAN) into DuckDB."""
