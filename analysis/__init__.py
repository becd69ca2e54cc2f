"""Analyses over the warehouse's results that are Python, not SQL: pure functions on plain
records, called by dbt Python models (dbt_project/models/marts/history/) and unit-tested alone.

- `change_points`: a series' outlier guard (GESD) and its change points (E-Divisive means, as
  Apache Otava computes them), with the before/after means and their 95 % intervals.
"""
