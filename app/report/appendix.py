"""The report's appendices: provenance (every result's source files relative to the folder
given to `ingest load`, with sha256, the tools and parsers that read them, where each label came
from) and the data-quality summary of the version. Pure, as app.report.content."""

from __future__ import annotations

import os

import polars as pl

from app.report import tables
from app.report.data import ReportData
from app.report.section import WORKLOAD_COLUMNS, Block, Section
from app.report.tables import Listing


def _root(paths: list[str]) -> str:
    try:
        return os.path.commonpath(paths) if paths else ""
    except ValueError:
        return ""


def _paths_in_roots(files: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """`files` with `source_path` relative to the `ingest load` root each was loaded from
    (`path_in_root`), and the sentence that says so; files loaded before loads recorded
    their root keep their absolute path, and the sentence says that too."""
    if "path_in_root" not in files.columns:
        files = files.with_columns(
            load_root=pl.lit(None, pl.String), path_in_root=pl.lit(None, pl.String)
        )
    roots = sorted(files["load_root"].drop_nulls().unique().to_list())
    unrooted = files.filter(pl.col("path_in_root").is_null())["source_path"].n_unique()
    parts = []
    if roots:
        parts.append(
            "Source paths are relative to the folder given to `ingest load` they were loaded "
            "from (" + ", ".join(f"…/{os.path.basename(r.rstrip('/')) or r}" for r in roots) + ")."
        )
    if unrooted:
        parts.append(
            f"{unrooted:,} file{'s' if unrooted != 1 else ''} loaded before loads recorded "
            "their root show their absolute path."
        )
    shown = files.with_columns(
        full_path=pl.col("source_path"),
        source_path=pl.coalesce("path_in_root", "source_path"),
    )
    return shown, " ".join(parts)


def _file_listing(files: pl.DataFrame) -> Listing:
    """The source files of each result: one block per result headed by its id and folder, a
    line per file (role, sha256, name within the folder), then the formats, parser and tool
    versions the files were read with."""
    groups = []
    for (result_id,), part in files.group_by(["result_id"], maintain_order=True):
        paths = part["source_path"].to_list()
        folder = os.path.dirname(_root(paths)) if len(paths) == 1 else _root(paths)
        cut = len(folder) + 1 if folder else 0
        lines = [f"{row['file_role']:<9} {row['sha256']}  {row['source_path'][cut:]}"
                 for row in part.iter_rows(named=True)]  # fmt: skip
        readers = part.select("source_format", "parser_version", "tool_version").unique(
            maintain_order=True
        )
        lines.append(
            "read with: "
            + "; ".join(
                f"{fmt} parser {parser}" + (f" ({tool})" if tool else "")
                for fmt, parser, tool in readers.iter_rows()
            )
        )
        groups.append((f"{result_id} · {folder or '.'}", tuple(lines)))
    columns = [
        "result_id", "file_role", "source_path", "sha256", "source_format", "parser_version",
        "tool_version", "load_root",
    ]  # fmt: skip
    return Listing(
        "source_files",
        "Source files of each result: role, sha256 and name within the result's folder, then "
        "the formats, parser and tool versions they were read with.",
        tuple(groups),
        tables.csv_text(files.select([c for c in columns if c in files.columns])),
    )


def provenance(data: ReportData) -> Section:
    results = data.get("fct_workload_results")
    files = data.get("fct_result_source_files")
    origins = data.get("fct_result_label_origins")
    blocks: list[Block] = [
        tables.table(
            "results",
            "Every workload result of the report: id (its first 12 characters; the CSV and "
            "the listing below give it whole), tool, workload and run window.",
            results,
            [
                "result_id", "source_tool", "profile", "working_set", *WORKLOAD_COLUMNS,
                "started_at", "ended_at",
            ],
        )
    ]  # fmt: skip
    intro = ""
    if not files.is_empty():
        files, intro = _paths_in_roots(files)
        blocks.append(_file_listing(files))
    if not origins.is_empty():
        root = _root(origins["origin_detail"].drop_nulls().unique().to_list())
        grouped = (
            origins.group_by("label_key", "origin")
            .agg(
                label_value=pl.col("label_value").drop_nulls().unique().sort().str.join(", "),
                results=pl.col("result_id").n_unique(),
            )
            .sort("label_key", "origin", nulls_last=True)
        )
        blocks.append(
            tables.table(
                "label_origins",
                "Where the results' labels came from (run.yaml, --label, the tool's output): "
                "each label, its origin, its values and how many results it holds for; the "
                "CSV names the run.yaml of every result.",
                grouped,
                ["label_key", "origin", "label_value", "results"],
                csv_frame=origins.with_columns(
                    origin_detail=pl.col("origin_detail").str.replace_all(
                        root + "/", "", literal=True
                    )
                )
                if root
                else origins,
            )
        )
    return Section("provenance", "Appendix A: provenance", intro, tuple(blocks), appendix=True)


def data_quality(data: ReportData) -> Section:
    dq = data.get("data_quality_results")
    if dq.is_empty():
        return Section("data_quality", "", "")
    summary = (
        dq.group_by("severity", "success")
        .agg(count=pl.len())
        .sort("severity", "success", nulls_last=True)
    )
    failed = dq.filter(pl.col("success").not_())
    blocks: list[Block] = [
        tables.table(
            "data_quality_summary",
            "Expectations of the validation run of this version, by severity and outcome.",
            summary,
            ["severity", "success", "count"],
        )
    ]
    if not failed.is_empty():
        blocks.append(
            tables.table(
                "data_quality_failures",
                "Expectations that did not hold (alerts report; constraints block a publish).",
                failed,
                ["severity", "suite", "table_name", "expectation", "unexpected_count", "notes"],
            )
        )
    run_at = tables.cell(dq["run_at"].max())
    intro = f"Validation run of {run_at} UTC: {dq.height:,} expectations."
    return Section("data_quality", "Appendix B: data quality", intro, tuple(blocks), appendix=True)
