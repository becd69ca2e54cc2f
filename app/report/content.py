"""What a report says, in a reference architecture's order: the cover, then one section per
topic with its figures and tables. A section with nothing to show is left out.

Pure: `ReportData` (app.report.data) in, `Cover` and `Section`s out; figures are built here (the
dashboard's chart builders through app.report.figures) and exported later, all in one batch.
"""

from __future__ import annotations

import polars as pl

from app.lib import charts
from app.lib.charts import studies as study_charts
from app.lib.charts.common import PROFILE_ORDER, ordered
from app.lib.views import scaling as scaling_view
from app.report import figures, tables
from app.report.appendix import data_quality, provenance
from app.report.data import ReportData
from app.report.figures import Figure
from app.report.section import WORKLOAD_COLUMNS, Block, Cover, Section
from app.report.tables import Listing

# What a storage-policy profile sets, as the results' labels say it.
PROFILE_SETTINGS = [
    "ftm", "ftt", "is_checksum", "is_dedupe", "is_compression", "stripe_width", "osr_pct",
    "disk_groups", "transport",
]  # fmt: skip


def _distinct(frame: pl.DataFrame, column: str) -> str:
    if column not in frame.columns:
        return charts.MISSING
    values = frame[column].drop_nulls().unique().sort().to_list()
    return ", ".join(tables.cell(v) for v in values) if values else charts.MISSING


# --- the cover ----------------------------------------------------------------------------


def cover(data: ReportData, version_facts: list[tuple[str, str]]) -> Cover:
    results = data.get("fct_workload_results")
    testbed = data.get("dim_testbeds")
    origins = data.get("testbed_data_origins")
    facts = [("Testbed", data.testbed)]
    for column, name in (
        ("nodes", "Nodes"),
        ("vsan_version", "vSAN version"),
        ("architecture", "Architecture"),
        ("storage", "Storage"),
    ):
        value = _distinct(testbed, column) if not testbed.is_empty() else charts.MISSING
        if value == charts.MISSING:
            value = _distinct(results, column)
        if value != charts.MISSING:
            facts.append((name, value))
    first, last = results["started_at"].min(), results["ended_at"].max()
    facts.append(("Runs", f"{results.height:,} workload results"))
    if first is None and last is None:
        facts.append(("Run dates (UTC)", "not recorded in the tool outputs"))
    else:
        facts.append(("Run dates (UTC)", f"{tables.cell(first)} to {tables.cell(last)}"))
    facts.append(("Data origin", _distinct(origins, "data_origin")))
    if data.document:
        facts.append(("Published figures of", data.document))
    facts += version_facts
    notes = []
    if not origins.is_empty() and bool(origins["is_reconstructed"].any()):
        notes.append(
            "Reconstructed data: these results were rebuilt from the document's published "
            "figures (the reference dataset), not measured on hardware."
        )
    title = f"Performance report: {data.testbed}"
    return Cover(title, tuple(facts), tuple(notes))


# --- sections ----------------------------------------------------------------------------


def configuration(data: ReportData) -> Section:
    results = data.get("fct_workload_results")
    labels = data.get("fct_result_labels")
    blocks: list[Block] = []
    if not labels.is_empty():
        summary = (
            labels.group_by("label_key")
            .agg(
                values=pl.col("label_value").drop_nulls().unique().sort().str.join(", "),
                results=pl.col("result_id").n_unique(),
            )
            .sort("label_key")
        )
        blocks.append(
            tables.table(
                "run_labels",
                "Every label of the runs: its values and how many results carry it.",
                summary,
                ["label_key", "values", "results"],
            )
        )
    if "profile" in results.columns and results["profile"].drop_nulls().len():
        settings = [c for c in PROFILE_SETTINGS if c in results.columns]
        profiles = results.filter(pl.col("profile").is_not_null())
        grouped = profiles.group_by("profile").agg(
            [pl.col(c).drop_nulls().unique().sort() for c in settings], results=pl.len()
        )
        order = ordered(grouped["profile"].to_list(), PROFILE_ORDER)
        grouped = grouped.with_columns(
            _o=pl.col("profile").map_elements(order.index, return_dtype=pl.Int64)
        ).sort("_o")
        policies = data.get("dim_storage_policies")
        if not policies.is_empty() and {"ftm", "ftt"} <= set(settings):
            mult = policies.select("ftm", "ftt", "capacity_multiplier").unique(
                ["ftm", "ftt"], keep="first", maintain_order=True
            )
            grouped = grouped.with_columns(
                ftm_one=pl.col("ftm").list.first(), ftt_one=pl.col("ftt").list.first()
            ).join(mult, left_on=["ftm_one", "ftt_one"], right_on=["ftm", "ftt"], how="left")
        blocks.append(
            tables.table(
                "profiles",
                "Storage-policy profiles and what each sets (the labels of its results; "
                "capacity multiplier from the storage-policy rules).",
                grouped,
                ["profile", "results", *settings, "capacity_multiplier"],
            )
        )
    policies = data.get("dim_storage_policies")
    if not policies.is_empty():
        blocks.append(
            tables.table(
                "storage_policies",
                "Storage policies on this cluster: valid ones and those the results used "
                "(dim_storage_policies, from seeds/storage_policy_rules.csv).",
                policies,
                [
                    "nodes", "ftm", "ftt", "layout", "copies", "min_hosts", "capacity_multiplier",
                    "is_valid_on_cluster", "is_used_by_results", "result_count",
                ],
            )
        )  # fmt: skip
    return Section("configuration", "Testbed and configuration", "", tuple(blocks))


def ra_comparison(data: ReportData) -> Section:
    points = data.get("ra_comparison_points")
    if points.is_empty():
        return Section("ra", "", "")
    measured = points.filter(pl.col("origin") == "measured")
    published = points.filter(pl.col("origin") == "published")
    profiles = ordered(points["profile"].fill_null("unspecified").unique().to_list(), PROFILE_ORDER)
    blocks: list[Block] = []
    for profile in profiles:
        rows = points.filter(pl.col("profile").fill_null("unspecified") == profile)
        if not rows.filter(pl.col("origin") == "measured").height and not data.document:
            continue
        title = f"IOPS and latency by read mix: {profile} profile"
        origin_text = "measured" if rows["origin"].n_unique() == 1 else "measured and published"
        caption = (
            f"{data.testbed}, {profile} profile: IOPS (bars) and average latency (lines) per "
            f"read mix, one panel per working set, {origin_text}"
            + (f" (figures printed in {data.document})." if data.document else ".")
        )
        blocks.append(
            figures.make(
                f"ra_{profile}",
                caption,
                rows,
                lambda df, t=title: charts.ra_comparison(df, title=t),
                skip=("read_pct", "working_set", "profile"),
            )
        )
    intro = (
        f"{measured.height:,} measured points"
        + (f" and {published.height:,} printed figures of {data.document}" if data.document else "")
        + ". Published figures are only drawn as printed; a measured point is never averaged."
    )
    return Section("ra", "Measured and published: IOPS and latency", intro, tuple(blocks))


def per_node(data: ReportData) -> Section:
    rows = data.get("scaling_points")
    if rows.is_empty():
        return Section("per_node", "", "")
    table = tables.table(
        "per_node_iops",
        "IOPS per node of each result (hosts' spread where per-host data exists).",
        rows.sort("nodes", "profile", "working_set", "read_pct", nulls_last=True),
        [
            "nodes", "profile", "working_set", *WORKLOAD_COLUMNS, "iops", "iops_per_node",
            "host_iops_min", "host_iops_max", "host_imbalance_pct",
        ],
    )  # fmt: skip
    blocks: list[Block] = [table]
    if rows["nodes"].n_unique() > 1:  # bars by node count say something only across counts
        bars = scaling_view.per_node(rows, data.testbed)
        blocks.insert(
            0,
            figures.make(
                "per_node_iops",
                "IOPS per node by the number of nodes, one bar per result; whiskers span the "
                "least to the busiest host where per-host data exists.",
                bars.rows,
                lambda r: study_charts.per_node_bars(
                    r, title="IOPS per node by nodes", legend_title=bars.title
                ),
                skip=("nodes",),
            ),
        )
    return Section("per_node", "Per-node IOPS", "", tuple(blocks))


def deltas(data: ReportData) -> Section:
    profile = data.get("profile_latency_deltas")
    config = data.get("config_deltas")
    blocks: list[Block] = []
    if not profile.is_empty():
        blocks += _profile_delta_blocks(profile)
    if not config.is_empty():
        blocks += _config_delta_blocks(_with_pair_labels(config))
    return Section("deltas", "Profile and one-label deltas", "", tuple(blocks))


def _profile_delta_blocks(profile: pl.DataFrame) -> list[Block]:
    """A heat map per metric (latency, IOPS) against the baseline, and the table."""
    heatmaps = [
        figures.make(
            f"profile_{metric}",
            f"Change in {what} of each profile against the baseline, by read mix and "
            "working set (configurations that differ in the profile alone).",
            profile,
            lambda df, m=metric: charts.profile_delta_heatmap(df, metric=m),
            skip=("read_pct", "working_set", "profile"),
        )
        for metric, what in (
            ("latency_vs_baseline_pct", "average latency"),
            ("iops_vs_baseline_pct", "IOPS"),
        )
    ]
    table = tables.table(
        "profile_deltas",
        "Profile deltas: each profile against its baseline and previous profile.",
        profile,
        [
            "working_set", "read_pct", "profile", "iops", "avg_latency_ms",
            "iops_vs_baseline_pct", "latency_vs_baseline_pct", "iops_vs_previous_pct",
            "latency_vs_previous_pct",
        ],
    )  # fmt: skip
    return [*heatmaps, table]


def _with_pair_labels(config: pl.DataFrame) -> pl.DataFrame:
    """Each one-label delta named `dimension: from → to · workload`; a name two rows share
    gets a running number, so no bar hides another."""
    labelled = config.with_columns(
        pair=pl.format(
            "{}: {} → {} · {}",
            "dimension",
            "from_value",
            "to_value",
            pl.Series(charts.workload_labels(config), dtype=pl.String),
        )
    )
    if labelled["pair"].is_duplicated().any():
        labelled = labelled.with_columns(
            pair=pl.format("{} #{}", "pair", pl.int_range(pl.len()).over("pair") + 1)
        )
    return labelled


def _config_delta_blocks(labelled: pl.DataFrame) -> list[Block]:
    """The one-label deltas' bar chart with intervals, and their table (the CSV with every
    column that says how a verdict was reached)."""
    chart = figures.make(
        "config_deltas",
        "One-label comparisons: change in IOPS between configurations that differ in "
        "exactly one label, with the 95 % interval of the difference where the runs "
        "give a spread.",
        labelled,
        lambda df: charts.config_delta_bars(df, title="One-label comparisons"),
    )
    table = tables.table(
        "config_deltas",
        "One-label deltas with their 95 % intervals and verdicts: q-values within the "
        "testbed's family of deltas, a 5 % minimum effect, and the spread each verdict "
        "rests on (the CSV adds block size, outstanding I/O, p- and q-values and the "
        "note of every row).",
        labelled,
        [
            "dimension", "from_value", "to_value", "working_set", "read_pct",
            "from_iops", "to_iops", "iops_delta_pct", "iops_delta_ci95_low",
            "iops_delta_ci95_high", "avg_latency_delta_pct", "verdict",
        ],
        csv_frame=labelled.select(
            c for c in (
                "dimension", "from_value", "to_value", "working_set", "read_pct",
                "block_size_bytes", "random_pct", "outstanding_io", "from_iops",
                "to_iops", "iops_delta_pct", "iops_delta", "iops_delta_ci95_low",
                "iops_delta_ci95_high", "avg_latency_delta_pct", "iops_delta_p_value",
                "iops_delta_q_value", "family_size", "is_significant",
                "significance_basis", "verdict", "significance_note",
            ) if c in labelled.columns
        ),
    )  # fmt: skip
    return [chart, table]


def transport(data: ReportData) -> Section:
    rows = data.get("transport_cpu_efficiency")
    if rows.is_empty():
        return Section("transport", "", "")
    rows = rows.with_columns(workload=pl.Series(charts.workload_labels(rows), dtype=pl.String))
    blocks: list[Block] = [
        figures.make(
            "transport_iops_per_cpu",
            "TCP vs RDMA: IOPS per percent of host CPU for configurations that differ in the "
            "transport alone.",
            rows,
            lambda df: charts.iops_per_cpu(df, title="TCP vs RDMA: IOPS per CPU percent"),
        ),
        tables.table(
            "transport_cpu_efficiency",
            "TCP vs RDMA CPU efficiency.",
            rows,
            [
                "workload", "tcp_iops", "rdma_iops", "tcp_cpu_util_pct", "rdma_cpu_util_pct",
                "tcp_iops_per_cpu_pct", "rdma_iops_per_cpu_pct", "rdma_efficiency_gain_pct",
            ],
        ),
    ]  # fmt: skip
    return Section("transport", "TCP vs RDMA CPU efficiency", "", tuple(blocks))


def capacity(data: ReportData) -> Section:
    rows = data.get("dedupe_ratios")
    if rows.is_empty():
        return Section("capacity", "", "")
    blocks: list[Block] = [
        figures.make(
            "capacity",
            "Used capacity before (logical) and after (physical) deduplication and "
            "compression, per capacity observation (TB = 10^12 bytes).",
            rows,
            lambda df: charts.capacity_bars(df, title="Capacity before and after"),
        ),
        tables.table(
            "dedupe_ratios",
            "Capacity observations: used bytes, dedupe and compression ratio, policy overhead.",
            rows,
            [
                "captured_at", "profile", "working_set", "ftm", "ftt", "logical_used_bytes",
                "physical_used_bytes", "dedupe_compression_ratio", "capacity_multiplier",
                "usable_to_raw_ratio",
            ],
        ),
    ]  # fmt: skip
    return Section("capacity", "Capacity and dedupe", "", tuple(blocks))


def sweeps(data: ReportData) -> Section:
    found = data.get("sweeps")
    points = data.get("sweep_points")
    steady = data.get("fct_result_steady_state")
    blocks: list[Block] = []
    if not found.is_empty():
        blocks.append(
            tables.table(
                "sweeps",
                "Sweeps along one axis: best point, latency knee and the highest IOPS within "
                "1, 2 and 5 ms.",
                found,
                [
                    "axis", "axis_unit", "point_count", "read_pct", "block_size_bytes",
                    "best_iops", "best_iops_axis_value", "knee_status", "knee_axis_value",
                    "iops_within_1ms", "iops_within_2ms", "iops_within_5ms",
                ],
            )
        )  # fmt: skip
        for axis in found["axis"].unique().sort().to_list():
            part = points.filter(pl.col("axis") == axis)
            if part.is_empty():
                continue
            named = part.join(
                found.select("sweep_id", pl.col("held_equal_json").alias("_held")),
                on="sweep_id",
                how="left",
            ).with_columns(
                series=pl.Series(charts.workload_labels(part, without=(axis,)), dtype=pl.String)
            )
            if named.select("series", "axis_value").is_duplicated().any():
                named = named.with_columns(
                    series=pl.format("{} ({})", "series", pl.col("sweep_id").str.slice(0, 6))
                )
            unit = part["axis_unit"].drop_nulls().first() if "axis_unit" in part.columns else ""
            blocks.append(
                figures.make(
                    f"sweep_{axis}",
                    f"Sweep along {axis}: IOPS (solid) and average latency (dashed) per point.",
                    named.drop("_held"),
                    lambda df, a=axis, u=unit: study_charts.sweep_lines(
                        df, x="axis_value", title=f"Sweep: {a}", x_title=f"{a} ({u})"
                    ),
                    skip=(axis,),
                )
            )
    if not steady.is_empty():
        blocks.append(
            tables.table(
                "steady_state",
                "Steady state of each result with a time series (fio's criteria) and the "
                "batch-means 95 % interval of its IOPS.",
                steady,
                [
                    "result_id", "interval_count", "is_steady_state", "steady_state_start_s",
                    "steady_state_end_s", "iops_mean", "iops_ci95_low", "iops_ci95_high",
                    "ci_method",
                ],
            )
        )  # fmt: skip
    return Section("sweeps", "Sweeps and steady state", "", tuple(blocks))


# How the seed's notes name a documented inconsistency of the document (docs/reference_studies.md).
INCONSISTENT_MARK = "INCONSISTENT"


def documented_inconsistencies(published: pl.DataFrame) -> pl.DataFrame:
    """figure_id -> the inconsistency the seed's note documents ("3.8M / 64 hosts = 59.4K, not
    over 60K"), for figures whose note names one; a figure that still matches within its
    tolerance has no reference_exceptions row, but the document still contradicts itself."""
    if published.is_empty() or "note" not in published.columns:
        return pl.DataFrame(schema={"figure_id": pl.String, "inconsistency": pl.String})
    return published.select(
        "figure_id",
        inconsistency=pl.lit("the document is inconsistent: ")
        + pl.col("note").str.extract(rf"{INCONSISTENT_MARK}[:\s]*(.*)$").str.strip_chars(),
    ).filter(pl.col("inconsistency").is_not_null())


def published_vs_measured(data: ReportData) -> Section:
    rows = data.get("published_vs_measured")
    if rows.is_empty() or not data.document:
        return Section("published", "", "")
    rows = rows.join(documented_inconsistencies(data.get("published_results")), "figure_id", "left")
    rows = rows.with_columns(
        # a documented inconsistency is named where the figure is: status and explanation,
        # from reference_exceptions or, for a figure that still matches, the seed's own note
        status=pl.when(pl.col("exception_kind").is_not_null())
        .then(pl.col("status") + ": " + pl.col("exception_kind").str.replace_all("_", " "))
        .when(pl.col("inconsistency").is_not_null())
        .then(pl.col("status") + ": inconsistent source")
        .otherwise(pl.col("status")),
        explanation=pl.coalesce(
            pl.col("exception_reason"),
            pl.concat_str(pl.col("inconsistency"), pl.lit(" · "), pl.col("reason")),
            pl.col("reason"),
        ),
        # the marts' difference to the printed precision (not 1e-05 of float arithmetic)
        difference=pl.col("difference").round(3),
    )
    counts = rows.group_by("status").len().sort("status")
    intro = "Status of the document's figures: " + ", ".join(
        f"{n:,} {s}" for s, n in counts.iter_rows()
    )
    table = tables.table(
        "published_vs_measured",
        f"Every figure printed in {data.document} against the value the marts computed "
        "(documented source inconsistencies named in the last column).",
        rows,
        [
            "figure_id", "table_or_figure", "metric", "unit", "published_value",
            "measured_value", "difference", "status", "explanation",
        ],
    )  # fmt: skip
    return Section("published", f"Published vs measured: {data.document}", intro, (table,))


BUILDERS = (
    configuration, ra_comparison, per_node, deltas, transport, capacity, sweeps,
    published_vs_measured, provenance, data_quality,
)  # fmt: skip


def sections(data: ReportData) -> list[Section]:
    """Every section with something to show, in order; figures and tables numbered."""
    found = [s for s in (build(data) for build in BUILDERS) if s.blocks]
    fig_n = tab_n = list_n = 0
    numbered = []
    for section in found:
        blocks: list[Block] = []
        for block in section.blocks:
            if isinstance(block, Figure):
                if block.fig is None:
                    blocks.append(block)
                    continue
                fig_n += 1
                blocks.append(_number(block, fig_n))
            elif isinstance(block, Listing):
                list_n += 1
                blocks.append(_number(block, list_n))
            else:
                tab_n += 1
                blocks.append(_number(block, tab_n))
        numbered.append(Section(section.key, section.title, section.intro, tuple(blocks),
                                section.appendix))  # fmt: skip
    return numbered


def _number(block: Block, n: int) -> Block:
    from dataclasses import replace

    return replace(block, number=n)
