{#- Generated from seeds/label_definitions.csv by
    `python -m ingest.label_definitions`: do not edit; change the seed
    and regenerate. `label_value` (labels.sql) casts every label of
    stg_ingest__source_files with it. -#}

{% macro label_definitions() -%}
    {{ return({
        "testbed": {"type": "text", "allowed": []},
        "nodes": {"type": "int", "allowed": [], "min": 1, "max": 64},
        "vsan_version": {"type": "text", "allowed": []},
        "architecture": {"type": "choice", "allowed": ["OSA", "ESA"]},
        "profile": {"type": "text", "allowed": []},
        "profile_order": {"type": "text_list", "allowed": []},
        "ftm": {"type": "choice", "allowed": ["RAID-1", "RAID-5", "RAID-6"]},
        "ftt": {"type": "int", "allowed": [], "min": 0, "max": 3},
        "checksum": {"type": "bool", "allowed": []},
        "dedupe": {"type": "bool", "allowed": []},
        "compression": {"type": "bool", "allowed": []},
        "stripe_width": {"type": "int", "allowed": [], "min": 1, "max": 12},
        "osr_pct": {"type": "int", "allowed": [], "min": 0, "max": 100},
        "disk_groups": {"type": "int", "allowed": [], "min": 1, "max": 5},
        "transport": {"type": "choice", "allowed": ["tcp", "rdma"]},
        "working_set": {"type": "choice", "allowed": ["cache", "capacity"]},
        "storage": {"type": "text", "allowed": []},
        "result_per": {"type": "choice", "allowed": ["file", "folder"]},
        "workload.read_pct": {"type": "int", "allowed": [], "min": 0, "max": 100},
        "workload.random_pct": {"type": "int", "allowed": [], "min": 0, "max": 100},
        "workload.block_size": {"type": "size", "allowed": [], "min": 512, "max": 1073741824},
        "workload.outstanding_io": {"type": "int", "allowed": [], "min": 1, "max": 1048576},
    }) }}
{%- endmacro %}
