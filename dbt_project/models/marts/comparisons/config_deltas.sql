{#- Labels a configuration comparison can vary (CONTRACT.md section 2). -#}
{%- set dimensions = [
    'vsan_version', 'architecture', 'profile', 'ftm', 'ftt', 'checksum',
    'dedupe', 'compression', 'stripe_width', 'osr_pct', 'disk_groups',
    'transport', 'working_set', 'storage', 'nodes',
] -%}
{#- Labels a storage-policy profile sets: two profiles of one profile_order
    may differ in several of them and still be one comparison. -#}
{%- set policy_dimensions = [
    'ftm', 'ftt', 'checksum', 'dedupe', 'compression', 'stripe_width',
    'osr_pct',
] -%}
{#- The fct_workload_results column of a label, where it is not the label's
    name. -#}
{%- set label_columns = {
    'checksum': 'is_checksum', 'dedupe': 'is_dedupe',
    'compression': 'is_compression',
} -%}

with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where testbed is not null

),

results_with_label_text as (

    select
        result_id,
        testbed,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        profile_order,
        iops,
        avg_latency_ms,
        p95_latency_ms,
        cpu_util_pct,
        -- every dimension as text, so that one column can hold its values
    {%- for dimension in dimensions %}
        cast({{ label_columns.get(dimension, dimension) }} as varchar)
            as {{ dimension }}{{ "," if not loop.last }}
    {%- endfor %}

    from fct_workload_results

),

from_results as (

    select * from results_with_label_text

),

to_results as (

    select * from results_with_label_text

),

results_paired as (

    -- same testbed and workload, exactly one label different (and known
    -- on both sides), or two profiles of the results' profile_order that
    -- differ in nothing but the policy labels the profiles set
    select
        from_results.result_id as from_result_id,
        to_results.result_id as to_result_id,
        from_results.testbed,
        from_results.read_pct,
        from_results.random_pct,
        from_results.block_size_bytes,
        from_results.outstanding_io,
        case
            {%- for dimension in dimensions %}
                when
                    (
                        from_results.{{ dimension }}
                        is distinct from to_results.{{ dimension }}
                    )
                    then '{{ dimension }}'
            {%- endfor %}
        end as dimension,
        case
            {%- for dimension in dimensions %}
                when
                    (
                        from_results.{{ dimension }}
                        is distinct from to_results.{{ dimension }}
                    )
                    then from_results.{{ dimension }}
            {%- endfor %}
        end as from_value,
        case
            {%- for dimension in dimensions %}
                when
                    (
                        from_results.{{ dimension }}
                        is distinct from to_results.{{ dimension }}
                    )
                    then to_results.{{ dimension }}
            {%- endfor %}
        end as to_value,
        from_results.profile_order,
        from_results.iops as from_iops,
        to_results.iops as to_iops,
        from_results.avg_latency_ms as from_avg_latency_ms,
        to_results.avg_latency_ms as to_avg_latency_ms,
        from_results.p95_latency_ms as from_p95_latency_ms,
        to_results.p95_latency_ms as to_p95_latency_ms,
        from_results.cpu_util_pct as from_cpu_util_pct,
        to_results.cpu_util_pct as to_cpu_util_pct

    from from_results
    inner join to_results
        on
            from_results.testbed = to_results.testbed
            and from_results.result_id != to_results.result_id
            and from_results.read_pct is not distinct from to_results.read_pct
            and from_results.random_pct
            is not distinct from to_results.random_pct
            and from_results.block_size_bytes
            is not distinct from to_results.block_size_bytes
            and from_results.outstanding_io
            is not distinct from to_results.outstanding_io
    where
        0
        {%- for dimension in dimensions %}
            + case
                when
                    (
                        from_results.{{ dimension }}
                        is distinct from to_results.{{ dimension }}
                    )
                    then 1
                else 0
            end
        {%- endfor %}
        = 1
        or (
            list_contains(to_results.profile_order, from_results.profile)
            and list_contains(from_results.profile_order, to_results.profile)
            and from_results.profile != to_results.profile
            {%- for dimension in dimensions
                if dimension not in policy_dimensions + ['profile'] %}
                and from_results.{{ dimension }}
                is not distinct from to_results.{{ dimension }}
            {%- endfor %}
        )

),

pairs_in_one_direction as (

    -- each pair once, from the "before" value to the "after" one: TCP to
    -- RDMA, off to on, smaller to larger, earlier to later profile
    select * from results_paired
    where
        from_value is not null
        and to_value is not null
        and case
            when dimension = 'transport' then from_value = 'tcp'
            when
                dimension = 'profile'
                and list_position(profile_order, from_value) is not null
                and list_position(profile_order, to_value) is not null
                then
                    list_position(profile_order, from_value)
                    < list_position(profile_order, to_value)
            when
                try_cast(from_value as double) is not null
                and try_cast(to_value as double) is not null
                then
                    try_cast(from_value as double)
                    < try_cast(to_value as double)
            else from_value < to_value
        end

),

deltas_computed as (

    select
        -- identifiers
        {{ hashed_key(['from_result_id', 'to_result_id']) }} as config_delta_id,
        from_result_id,
        to_result_id,

        -- dimensions
        testbed,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        dimension,
        from_value,
        to_value,

        -- facts
        from_iops,
        to_iops,
        from_avg_latency_ms,
        to_avg_latency_ms,
        from_p95_latency_ms,
        to_p95_latency_ms,
        from_cpu_util_pct,
        to_cpu_util_pct,
        {{ pct_change('to_iops', 'from_iops') }} as iops_delta_pct,
        {{ pct_change('to_avg_latency_ms', 'from_avg_latency_ms') }}
            as avg_latency_delta_pct,
        {{ pct_change('to_p95_latency_ms', 'from_p95_latency_ms') }}
            as p95_latency_delta_pct,
        {{ pct_change('to_cpu_util_pct', 'from_cpu_util_pct') }}
            as cpu_delta_pct

    from pairs_in_one_direction

)

select * from deltas_computed
