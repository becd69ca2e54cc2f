"""Helpers of the dashboard: connections, queries, chart builders, the SQL console."""
