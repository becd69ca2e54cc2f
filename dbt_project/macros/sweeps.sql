{#- The rules of a sweep (docs/ANALYSES.md), each written once: which
    comparison dimensions are ordered axes, which of them add load (where a
    throughput-latency knee means something) or resources in units (where
    linear scaling is the yardstick), the latency targets and the
    near-best tolerance. -#}

{% macro sweep_axes() -%}
    {#- Ordered axes a sweep can run along (H1's dimension names). The raw
        vm_count and outstanding_io are dimensions only where the per-host
        or per-VM value cannot be derived (no nodes, no VM count). -#}
    {{ return([
        'block_size_bytes', 'vms_per_host', 'outstanding_io_per_vm',
        'read_pct', 'nodes', 'working_set', 'disk_groups', 'vm_count',
        'outstanding_io'
    ]) }}
{%- endmacro %}

{% macro sweep_load_axes() -%}
    {#- Axes along which the offered load grows (more VMs, deeper queues,
        more hosts each running its VMs): the knee of the throughput-latency
        curve is defined along these only. Along block size, read mix,
        working set or disk groups IOPS change with the workload or the
        hardware, not with the load, so "latency grows faster than IOPS"
        says nothing about saturation there. -#}
    {{ return([
        'vms_per_host', 'outstanding_io_per_vm', 'nodes', 'vm_count',
        'outstanding_io'
    ]) }}
{%- endmacro %}

{% macro sweep_count_axes() -%}
    {#- Axes counted in units that could each add the same throughput:
        scaling efficiency against linear is defined along these. -#}
    {{ return([
        'vms_per_host', 'outstanding_io_per_vm', 'nodes', 'disk_groups',
        'vm_count', 'outstanding_io'
    ]) }}
{%- endmacro %}

{% macro sql_text_list(values) -%}
    {#- A Jinja list of names as a SQL `in (...)` list. -#}
    ('{{ values | join("', '") }}')
{%- endmacro %}

{% macro latency_targets_ms() -%}
    {#- var `latency_targets_ms` (dbt_project.yml, default 1, 2, 5 ms): the
        mean latencies at which the highest sustainable IOPS is reported. -#}
    {{ return(var('latency_targets_ms', [1, 2, 5])) }}
{%- endmacro %}

{% macro latency_target_name(target_ms) -%}
    {#- A column-name suffix for a target: 1 -> `1ms`, 0.5 -> `0p5ms`. -#}
    {{- (target_ms | string).replace('.', 'p') ~ 'ms' -}}
{%- endmacro %}

{% macro sweep_near_best_pct() -%}
    {#- var `sweep_near_best_pct` (default 2): a point within this many
        percent of a sweep's best value is reported as near-best too. The
        studies call 1.1 % "no significant difference" (Samsung: 64 KB and
        128 KB both optimal at 18.4 and 18.2 GB/s; RAID-5 17.7 vs RAID-1
        17.9 GB/s "no significant degradation") and 5 % a real, if slight,
        change (Samsung Figure 11: "~5% IOPS improvement"): the tolerance
        has to lie between the two. -#}
    {{ return(var('sweep_near_best_pct', 2)) }}
{%- endmacro %}

{% macro interpolated_at(target, x0, y0, x1, y1) -%}
    {#- y at x = `target` on the straight line through (x0, y0), (x1, y1);
        the caller makes sure x0 != x1. -#}
    ({{ y0 }} + ({{ target }} - {{ x0 }}) * ({{ y1 }} - {{ y0 }})
        / ({{ x1 }} - {{ x0 }}))
{%- endmacro %}

{% macro sweep_axis_unit(axis, axis_value_text) -%}
    {#- The unit of an axis value. A working set is ordered by GB, else by
        percent of capacity, else cache before capacity (H1's sort value);
        the unit keeps the three apart, so GB and percent never share one
        sweep. H1's dimension value names the label: `working_set_gb=400`. -#}
    case {{ axis }}
        when 'block_size_bytes' then 'bytes'
        when 'vms_per_host' then 'VMs per host'
        when 'outstanding_io_per_vm' then 'I/Os per VM'
        when 'read_pct' then 'percent'
        when 'nodes' then 'hosts'
        when 'disk_groups' then 'disk groups per host'
        when 'vm_count' then 'VMs'
        when 'outstanding_io' then 'I/Os'
        when 'working_set' then
            case
                when {{ axis_value_text }} like '%working_set_gb=%' then 'GB'
                when {{ axis_value_text }} like '%working_set_pct=%'
                    then 'percent'
                else 'cache < capacity'
            end
    end
{%- endmacro %}

{% macro sweep_workload_columns() -%}
    {#- The workload a sweep's points (int_sweep_points) and the sweep
        itself (sweeps) report as held equal: each the one value its rows
        agree on, NULL where it varies along the group. -#}
    {%- for column_name in [
        'nodes', 'vm_count', 'vms_per_host', 'outstanding_io',
        'outstanding_io_per_vm', 'read_pct', 'random_pct', 'block_size_bytes',
        'disk_groups'
    ] %}
        {{ agreed_value(column_name) }} as {{ column_name }}
        {{- "," if not loop.last }}
    {%- endfor %}
{%- endmacro %}
