"""Checks of the `published_results` seed without dbt: keys, vocabulary, types, and real figures.

The spot values below were read by hand in the documents in `shared/seeds/` (file named per
case); they are not copied from the CSV. The vocabulary here must equal the one documented in
`dbt_project/seeds/README.md` and the `accepted_values` in `_published_results.yml` (a test
compares them).
"""

from __future__ import annotations

import csv
import math
import os
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "dbt_project" / "seeds"
CSV_PATH = SEEDS / "published_results.csv"
# Same rule as tests/conftest.py: the shared folder sits beside the repo unless told otherwise.
SHARED = Path(os.environ.get("PERF_SHARED_DIR", REPO.parent / "shared")).resolve()

# source_document -> its text in shared/seeds/
DOCUMENT_FILES = {
    "micron_vsan67_sata_ra": "000_5153aa44097ef34c.txt",
    "micron_vsan62_vs_65_brief": "001_9eece17eb4137917.txt",
    "lenovo_sr650_vsan65_blog": "002_ef5852f519694ebd.txt",
    "samsung_pm1743_vsan8_esa": "003_0726862ee5539ce5.txt",
    "sfd7_vsan60_scaling": "004_56a0a7f91a0a7c4e.txt",
}
DOCUMENTS = set(DOCUMENT_FILES)

# metric -> the unit its value is in
METRIC_UNITS = {
    "iops": "IOPS",
    "iops_per_node": "IOPS",
    "read_iops": "IOPS",
    "write_iops": "IOPS",
    "backend_write_iops": "IOPS",
    "avg_latency_ms": "ms",
    "read_latency_ms": "ms",
    "write_latency_ms": "ms",
    "p95_latency_ms": "ms",
    "p99_latency_ms": "ms",
    "throughput_mb_s": "MB/s",
    "cpu_util_pct": "%",
    "cpu_load_avg": "fraction",
    "iops_vs_baseline_pct": "%",
    "latency_vs_baseline_pct": "%",
    "iops_vs_previous_pct": "%",
    "latency_vs_previous_pct": "%",
    "iops_delta_pct": "%",
    "latency_delta_pct": "%",
    "p95_latency_delta_pct": "%",
    "throughput_delta_pct": "%",
    "cpu_delta_pct": "%",
    "iops_delta_diff_pp": "pp",
    "iops_ratio": "x",
    "iops_per_node_vs_target_pct": "%",
    "rdma_efficiency_gain_pct": "%",
    "capacity_used_before_tb": "TB",
    "capacity_used_after_tb": "TB",
    "capacity_primary_tb": "TB",
    "capacity_redundancy_tb": "TB",
    "replica_capacity_delta_pct": "%",
    "dedupe_compression_ratio": "x",
    "usable_to_raw_ratio": "x",
    "capacity_multiplier": "x",
    "capacity_overhead_pct": "%",
    "vdisk_share_of_used_pct": "%",
    "optimal_outstanding_io_per_host": "count",
    "optimal_block_size_bytes": "bytes",
    "latency_knee_vm_count": "count",
}

INTEGER_COLUMNS = (
    "nodes", "ftt", "stripe_width", "osr_pct", "disk_groups", "vm_count", "read_pct", "random_pct",
    "block_size_bytes", "outstanding_io", "outstanding_io_per_vm", "working_set_pct",
    "working_set_gb",
)  # fmt: skip
BOOLEAN_COLUMNS = ("checksum", "dedupe", "compression", "chart_read")
QUALIFIERS = {"exact", "approx", "more_than", "less_than", "abs_less_than"}

# Chart data labels printed in K IOPS without the K; the first one lost its comma and decimal
# point in the text extraction ("14143" for "1,414.3").
LABEL_SCALE = {
    "samsung-fig13-read-tcp-iops": 100,
    "samsung-fig13-read-rdma-iops": 1000,
    "samsung-fig13-write-tcp-iops": 1000,
}
# Scale words after the number, tried longest first.
SCALES = {"MIOPS": 1e6, "million": 1e6, "M": 1e6, "K": 1e3, "GB/s": 1e3, "KB": 1024}
_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(MIOPS|million|GB/s|KB|M|K)?")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CSV_PATH.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def by_id(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {row["figure_id"]: row for row in rows}


def _printed_number(text: str) -> float | None:
    """First number in the printed text with its scale word applied; None when words only."""
    if "/" in text.replace("GB/s", ""):  # "~1/4" is a fraction, not a number to scale
        return None
    match = _NUMBER.search(text)
    if match is None:
        return None
    number = float(match.group(1).replace(",", ""))
    return number * SCALES.get(match.group(2) or "", 1)


def test_figure_ids_are_unique_and_present(rows):
    ids = [row["figure_id"] for row in rows]
    assert all(ids)
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates


def test_required_fields_are_filled(rows):
    for row in rows:
        for column in ("source_document", "table_or_figure", "testbed", "metric", "value", "unit",
                       "value_as_printed", "qualifier", "derivation", "chart_read"):  # fmt: skip
            assert row[column].strip(), f"{row['figure_id']}: empty {column}"


def test_every_document_has_figures(rows):
    counts = {doc: 0 for doc in DOCUMENTS}
    for row in rows:
        assert row["source_document"] in DOCUMENTS, row["figure_id"]
        counts[row["source_document"]] += 1
    assert all(n >= 1 for n in counts.values()), counts


def test_metrics_are_in_vocabulary_with_their_unit(rows):
    for row in rows:
        assert row["metric"] in METRIC_UNITS, f"{row['figure_id']}: metric {row['metric']}"
        assert row["unit"] == METRIC_UNITS[row["metric"]], row["figure_id"]


def test_typed_columns_parse(rows):
    for row in rows:
        assert math.isfinite(float(row["value"])), row["figure_id"]
        assert not re.search(r"\d,\d", row["value"]), "no thousands separators in value"
        for column in INTEGER_COLUMNS:
            if row[column]:
                int(row[column])
        for column in BOOLEAN_COLUMNS:
            assert row[column] in ("", "true", "false"), f"{row['figure_id']}: {column}"
        assert row["qualifier"] in QUALIFIERS
        assert row["derivation"] in ("published", "derived")


def test_value_matches_the_printed_number(rows):
    """Catches transcription slips: the number in value_as_printed, scaled, equals |value|."""
    checked = 0
    for row in rows:
        if row["derivation"] != "published":
            continue
        printed = _printed_number(row["value_as_printed"])
        if printed is None or row["figure_id"] == "samsung-text-raid5-capacity-multiplier":
            continue  # words only, or "150 GB ... for every 100 GB" (a ratio in words)
        if row["figure_id"] in LABEL_SCALE:
            label = float(row["value_as_printed"].replace(",", ""))
            printed = label * LABEL_SCALE[row["figure_id"]]
        assert abs(float(row["value"])) == pytest.approx(printed, rel=1e-9), row["figure_id"]
        checked += 1
    assert checked > 200


def test_printed_text_occurs_in_its_document(rows):
    """value_as_printed is verbatim: every published figure's text is found in its document."""
    seeds = SHARED / "seeds"
    if not seeds.is_dir():
        pytest.fail(f"source documents not found at {seeds}: check out ../shared beside the repo")
    texts = {
        doc: " ".join((seeds / name).read_text(encoding="utf-8").split())
        for doc, name in DOCUMENT_FILES.items()
    }
    missing = [
        row["figure_id"]
        for row in rows
        if row["derivation"] == "published"
        and " ".join(row["value_as_printed"].split()) not in texts[row["source_document"]]
    ]
    assert not missing


def test_derived_rows_say_how(rows):
    for row in rows:
        if row["derivation"] == "derived":
            assert "Derived" in row["note"], row["figure_id"]


# Figures verified by reading the documents (file, then the sentence or table cell).
SPOT_CHECKS = [
    # 000 Micron vSAN 6.7 RA, Figure 10 data table "Average of IOPS 486,099 475,960 412,792 410,082"
    pytest.param("micron67-fig10-baseline-cache-r100-iops", 486099, "486,099", id="micron-486099"),
    pytest.param("micron67-fig10-density-cache-r100-iops", 410082, "410,082", id="micron-410082"),
    # Figure 10 "Average of latency (ms) 1.10 1.10 1.20 1.25"
    pytest.param("micron67-fig10-balanced-cache-r100-lat", 1.20, "1.20", id="micron-lat-1.20"),
    # Figure 4 text "121K IOPS at an average latency of 4.23ms"
    pytest.param("micron67-fig4-baseline-cache-r0-lat", 4.23, "4.23ms", id="micron-write-4.23ms"),
    # Figure 14 row "Average of latency (ms) 3.82 4.86 5.23 5.45"
    pytest.param("micron67-fig14-balanced-capacity-r70-lat", 5.23, "5.23", id="micron-cap-5.23"),
    # Appendix C "We wrote 28.58TB ... reduced to 3.48TB"; "8.21X"
    pytest.param("micron67-fig16-capacity-used-before", 28.58, "28.58TB", id="micron-before"),
    pytest.param("micron67-fig16-capacity-used-after", 3.48, "3.48TB", id="micron-after"),
    pytest.param("micron67-fig16-capacity-ratio", 8.21, "8.21X", id="micron-ratio"),
    pytest.param("micron67-appa-capacity-usable-to-raw", 6.17, "6.17", id="micron-usable-raw"),
    pytest.param("micron67-fig17-cache-ratio", 2.56, "2.56X", id="micron-cache-ratio"),
    # 001 Micron 6.2 vs 6.5, Table 1 "0% Read / 100% Write 80% Higher"; Table 4 "70% ... 35% Lower"
    pytest.param("micron6265-table1-cache-r0-iops-delta", 80, "80% Higher", id="brief-80"),
    pytest.param("micron6265-table4-capacity-r70-lat-delta", -35, "35% Lower", id="brief-minus35"),
    # 002 Lenovo "95th percentile latency by more than half"
    pytest.param("lenovo-text-run4-p95-latency-delta", 50, "more than half", id="lenovo-p95"),
    # 003 Samsung Table 3 "RDMA| 345,707 1,450 1.39 0.47" and text "RDMA consumed 54%"
    pytest.param("samsung-table3-write-rdma-cpu-load", 0.47, "0.47", id="samsung-cpu-0.47"),
    pytest.param("samsung-text-rdma-write-rdma-cpu", 54, "54%", id="samsung-cpu-54"),
    pytest.param("samsung-text-rdma-write-tcp-cpu", 64.5, "64.5%", id="samsung-cpu-64.5"),
    pytest.param("samsung-table3-mixed-tcp-cpu-load", 0.75, "0.75", id="samsung-cpu-0.75"),
    pytest.param("samsung-text-rdma-mixed-rdma-cpu", 57, "57%", id="samsung-cpu-57"),
    pytest.param("samsung-table3-read-rdma-iops", 1441071, "1,441,071", id="samsung-1441071"),
    pytest.param("samsung-table3-mixed-rdma-throughput", 22916, "22,916", id="samsung-22916"),
    pytest.param("samsung-table3-mixed-tcp-latency", 16.6, "16.6", id="samsung-lat-16.6"),
    pytest.param("samsung-fig10-raid5-redundancy-capacity", 2.64, "2.64 TB", id="samsung-2.64"),
    pytest.param("samsung-exec-peak-iops", 1490000, "1.49 MIOPS", id="samsung-1.49M"),
    # 004 SFD7 "~992K IOPs or ~15.5K IOPS per host"; "~68.75K IOPS/host"
    pytest.param("sfd7-hybrid-64h-r70-iops", 992000, "~992K", id="sfd7-992k"),
    pytest.param("sfd7-af-2dg-ws400-iops-per-node", 68750, "~68.75K IOPS/host", id="sfd7-68.75k"),
]


@pytest.mark.parametrize(("figure_id", "value", "printed"), SPOT_CHECKS)
def test_spot_values_from_the_documents(by_id, figure_id, value, printed):
    row = by_id[figure_id]
    assert float(row["value"]) == pytest.approx(value, rel=1e-12)
    assert row["value_as_printed"] == printed


def test_micron_dedupe_ratio_follows_from_capacities(by_id):
    before = float(by_id["micron67-fig16-capacity-used-before"]["value"])
    after = float(by_id["micron67-fig16-capacity-used-after"]["value"])
    ratio = float(by_id["micron67-fig16-capacity-ratio"]["value"])
    assert round(before / after, 2) == ratio
    # Appendix A: usable-to-raw = ratio / RAID-5 3+1 multiplier (Table 7: 1.33)
    multiplier = float(by_id["micron67-table7-raid-5-ftt1-capacity-multiplier"]["value"])
    usable = float(by_id["micron67-appa-capacity-usable-to-raw"]["value"])
    assert round(ratio / multiplier, 2) == usable


def test_samsung_rdma_cpu_disagreement_is_flagged(by_id):
    table = by_id["samsung-table3-write-rdma-cpu-load"]
    text = by_id["samsung-text-rdma-write-rdma-cpu"]
    assert float(table["value"]) * 100 != float(text["value"])
    assert "INCONSISTENT" in table["note"] and "INCONSISTENT" in text["note"]


def test_samsung_efficiency_gains_recompute_from_table3(by_id):
    for workload in ("read", "write", "mixed"):

        def per_cpu(transport: str, wl: str = workload) -> float:
            iops = float(by_id[f"samsung-table3-{wl}-{transport}-iops"]["value"])
            return iops / float(by_id[f"samsung-table3-{wl}-{transport}-cpu-load"]["value"])

        gain = 100 * (per_cpu("rdma") / per_cpu("tcp") - 1)
        row = by_id[f"samsung-derived-rdma-{workload}-efficiency-gain"]
        assert float(row["value"]) == pytest.approx(gain, abs=0.005)


def _documented_metrics() -> set[str]:
    text = (SEEDS / "README.md").read_text(encoding="utf-8")
    section = text.split("### Metric vocabulary", 1)[1].split("###", 1)[0]
    return set(re.findall(r"^\| `([a-z0-9_]+)` \|", section, flags=re.MULTILINE))


def _seed_tests(column: str) -> list:
    properties = yaml.safe_load((SEEDS / "_published_results.yml").read_text(encoding="utf-8"))
    (seed,) = [s for s in properties["seeds"] if s["name"] == "published_results"]
    (col,) = [c for c in seed["columns"] if c["name"] == column]
    return col.get("data_tests", [])


def _accepted_values(column: str) -> set[str]:
    for test in _seed_tests(column):
        if isinstance(test, dict) and "accepted_values" in test:
            return set(test["accepted_values"]["arguments"]["values"])
    raise AssertionError(f"no accepted_values test on {column}")


def test_vocabulary_matches_readme_and_seed_properties():
    assert _documented_metrics() == set(METRIC_UNITS)
    assert _accepted_values("metric") == set(METRIC_UNITS)
    assert _accepted_values("unit") == set(METRIC_UNITS.values())
    assert _accepted_values("source_document") == DOCUMENTS


def test_seed_properties_cover_every_csv_column(rows):
    properties = yaml.safe_load((SEEDS / "_published_results.yml").read_text(encoding="utf-8"))
    (seed,) = [s for s in properties["seeds"] if s["name"] == "published_results"]
    described = [c["name"] for c in seed["columns"]]
    assert described == list(rows[0].keys())
    assert set(seed["config"]["column_types"]) == set(described)
    assert seed["config"]["column_types"]["value"] == "double"
    assert {"unique", "not_null"} <= set(_seed_tests("figure_id"))


# metric -> what its compared_to must name so that published_vs_measured can find the base
# (docs/ANALYSES.md, step 3)
def _readynode_profiles() -> set[str]:
    with (SEEDS / "readynode_profile_targets.csv").open(newline="") as handle:
        return {row["readynode_profile"] for row in csv.DictReader(handle)}


def test_bases_are_named_as_the_marts_name_them(rows):
    # a ReadyNode target by its profile (AF-6), a replica footprint by the policy's ftm, an IOPS
    # ratio by the other point's axis value and a difference of deltas by the other sweep's
    # value of the label that differs: numbers, never prose such as "100pct-read"
    profiles = _readynode_profiles()
    wrong = []
    for row in rows:
        metric, base = row["metric"], row["compared_to"]
        if metric == "iops_per_node_vs_target_pct" and base not in profiles:
            wrong.append((row["figure_id"], base))
        if metric == "replica_capacity_delta_pct" and base not in {"RAID-1", "RAID-5", "RAID-6"}:
            wrong.append((row["figure_id"], base))
        if metric in {"iops_ratio", "iops_delta_diff_pp"} and not re.fullmatch(r"[0-9.]+", base):
            wrong.append((row["figure_id"], base))
    assert not wrong, wrong
    assert {r["metric"] for r in rows} >= {"iops_per_node_vs_target_pct", "iops_ratio"}
