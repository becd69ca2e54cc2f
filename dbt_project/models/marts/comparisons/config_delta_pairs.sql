{#- Pairs of configurations of one testbed and workload that differ in
    exactly one comparison dimension (docs/ANALYSES.md): every
    run label counts, typed or free-form; a profile with the policy labels
    it sets is one dimension; synonyms count once; VM count per host and
    outstanding I/O per VM. Repeated runs are one configuration (the mean
    over runs); each delta carries the 95 % interval of its difference and
    that difference's standard error and degrees of freedom. config_deltas
    judges them (q-values of the testbed's family: config_delta_tests). -#}
{%- set measures = [
    'iops', 'throughput_mb_s', 'avg_latency_ms', 'p95_latency_ms',
    'p99_latency_ms', 'cpu_util_pct', 'cpu_load_avg',
] -%}
{%- set deltas = {
    'iops_delta_pct': 'iops',
    'throughput_delta_pct': 'throughput_mb_s',
    'avg_latency_delta_pct': 'avg_latency_ms',
    'p95_latency_delta_pct': 'p95_latency_ms',
    'p99_latency_delta_pct': 'p99_latency_ms',
    'cpu_delta_pct': 'cpu_util_pct',
    'cpu_load_delta_pct': 'cpu_load_avg',
} -%}

with

{{ import_ctes([
    'int_comparison_configurations',
    'int_result_comparison_dimensions',
    'fct_workload_results',
]) }},

int_result_comparison_labels as (

    select * from {{ ref('int_result_comparison_labels') }}
    where dimension is not null

),

configuration_dimensions as (

    -- a configuration's dimensions are its first run's
    select int_result_comparison_dimensions.*
    from int_result_comparison_dimensions
    inner join int_comparison_configurations
        on
            int_result_comparison_dimensions.result_id
            = int_comparison_configurations.first_result_id

),

from_dimensions as (

    select * from configuration_dimensions

),

to_dimensions as (

    select * from configuration_dimensions

),

configurations_paired as (

    -- exactly one dimension differs: the pair shares every other counted
    -- dimension (and the testbed) and both sides know this one. Workload
    -- dimensions are not varied here (the sweeps mart does); each pair
    -- once, from the "before" value to the "after" one: TCP to RDMA, off
    -- to on, smaller to larger, earlier to later profile, else by text
    select
        from_dimensions.result_id as from_result_id,
        to_dimensions.result_id as to_result_id,
        from_dimensions.dimension,
        from_dimensions.dimension_value as from_dimension_value,
        to_dimensions.dimension_value as to_dimension_value

    from from_dimensions
    inner join to_dimensions
        on
            from_dimensions.signature_without_dimension
            = to_dimensions.signature_without_dimension
            and from_dimensions.dimension = to_dimensions.dimension
            and from_dimensions.dimension_value
            != to_dimensions.dimension_value
    where
        from_dimensions.dimension not in (
            {%- for dimension in comparison_workload_dimensions() %}
                '{{ dimension }}'{{ "," if not loop.last }}
            {%- endfor %}
        )
        and case
            when from_dimensions.dimension = 'transport'
                then from_dimensions.dimension_value = 'tcp'
            when
                from_dimensions.sort_value is not null
                and to_dimensions.sort_value is not null
                and from_dimensions.sort_value != to_dimensions.sort_value
                then from_dimensions.sort_value < to_dimensions.sort_value
            else
                from_dimensions.dimension_value < to_dimensions.dimension_value
        end

),

pair_sides as (

    -- the labels of each side (counted or derived, bookkeeping left out),
    -- joined on one key per side: an equi-join, never a scan of all labels
    {%- for side in ['from', 'to'] %}
        select
            configurations_paired.from_result_id,
            configurations_paired.to_result_id,
            '{{ side }}' as side,
            int_result_comparison_labels.label,
            int_result_comparison_labels.dimension,
            int_result_comparison_labels.is_counted,
            int_result_comparison_labels.value_text

        from configurations_paired
        inner join int_result_comparison_labels
            on
                configurations_paired.{{ side }}_result_id
                = int_result_comparison_labels.result_id
        {%- if not loop.last %}

            union all
        {%- endif %}
    {%- endfor %}

),

pair_labels as (

    -- every label of both sides, side by side
    select
        from_result_id,
        to_result_id,
        label,
        any_value(dimension) as dimension,
        bool_or(is_counted) as is_counted,
        max(value_text) filter (where side = 'from') as from_value,
        max(value_text) filter (where side = 'to') as to_value

    from pair_sides
    group by from_result_id, to_result_id, label

),

pair_labels_compared as (

    select
        from_result_id,
        to_result_id,
        list(
            struct_pack(
                label := label,
                dimension := dimension,
                is_counted := is_counted,
                from_value := from_value,
                to_value := to_value
            )
            order by label
        ) filter (where from_value is distinct from to_value) as differences,
        -- the labels held equal, as a JSON object (label: value)
        coalesce(
            to_json(map_from_entries(
                list((label, from_value) order by label) filter (
                    where is_counted and from_value = to_value
                )
            )),
            '{}'
        ) as held_equal_labels

    from pair_labels
    group by from_result_id, to_result_id

),

pairs_named as (

    -- the values a delta is named by: of the one label of its dimension
    -- that differs, else of the dimension's own label (a profile's name),
    -- else the whole dimension value
    select
        configurations_paired.*,
        pair_labels_compared.differences,
        pair_labels_compared.held_equal_labels,
        list_filter(
            pair_labels_compared.differences,
            difference -> difference.dimension
            = configurations_paired.dimension
            and difference.is_counted
        ) as dimension_differences

    from configurations_paired
    inner join pair_labels_compared
        on
            configurations_paired.from_result_id
            = pair_labels_compared.from_result_id
            and configurations_paired.to_result_id
            = pair_labels_compared.to_result_id

),

pairs_headlined as (

    select
        pairs_named.*,
        {{ headline_dimension_value('pairs_named', 'from') }} as from_value,
        {{ headline_dimension_value('pairs_named', 'to') }} as to_value

    from pairs_named

),

pairs_measured as (

    select
        pairs_headlined.*,
        fct_workload_results.testbed,
        fct_workload_results.testbed_id,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,
        fct_workload_results.working_set,
        {{ free_form_label_number(
            'working_set_gb', 'fct_workload_results.labels_json'
        ) }} as working_set_gb,
        to_results.outstanding_io as to_outstanding_io,
        fct_workload_results.vm_count as from_vm_count,
        to_results.vm_count as to_vm_count,
        fct_workload_results.nodes as from_nodes,
        to_results.nodes as to_nodes,
        from_configurations.run_count as from_run_count,
        to_configurations.run_count as to_run_count,
        {%- for measure in measures %}
            from_configurations.{{ measure }} as from_{{ measure }},
            to_configurations.{{ measure }} as to_{{ measure }},
        {%- endfor %}
        {%- for metric in ['iops', 'avg_latency_ms'] %}
            from_configurations.{{ metric }}_se as from_{{ metric }}_se,
            to_configurations.{{ metric }}_se as to_{{ metric }}_se,
            from_configurations.{{ metric }}_df as from_{{ metric }}_df,
            to_configurations.{{ metric }}_df as to_{{ metric }}_df,
        {%- endfor %}
        from_configurations.spread_source as from_spread_source,
        to_configurations.spread_source as to_spread_source

    from pairs_headlined
    inner join int_comparison_configurations as from_configurations
        on pairs_headlined.from_result_id = from_configurations.first_result_id
    inner join int_comparison_configurations as to_configurations
        on pairs_headlined.to_result_id = to_configurations.first_result_id
    inner join fct_workload_results
        on pairs_headlined.from_result_id = fct_workload_results.result_id
    inner join fct_workload_results as to_results
        on pairs_headlined.to_result_id = to_results.result_id

),

deltas_computed as (

    select
        -- identifiers
        {{ hashed_key(['from_result_id', 'to_result_id']) }} as config_delta_id,
        from_result_id,
        to_result_id,
        testbed_id,

        -- dimensions
        testbed,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        to_outstanding_io,
        from_vm_count,
        to_vm_count,
        from_nodes,
        to_nodes,
        working_set,
        working_set_gb,
        dimension,
        from_value,
        to_value,
        from_dimension_value,
        to_dimension_value,
        differences,
        cast(held_equal_labels as varchar) as held_equal_labels,
        -- the labels a chart names its context by, as columns (NULL where the
        -- pair does not hold the label equal, or the results lack it)
        json_extract_string(held_equal_labels, '$.profile') as held_profile,
        json_extract_string(held_equal_labels, '$.transport') as held_transport,
        json_extract_string(held_equal_labels, '$.vsan_version')
            as held_vsan_version,
        from_spread_source,
        to_spread_source,

        -- facts
        from_run_count,
        to_run_count,
        {%- for measure in measures %}
            from_{{ measure }},
            to_{{ measure }},
        {%- endfor %}
        {%- for delta, measure in deltas.items() %}
            {{ pct_change('to_' ~ measure, 'from_' ~ measure) }}
                as {{ delta }},
        {%- endfor %}
        -- the load average is a fraction of the CPUs (0.65): its change in
        -- percentage points, as RA texts say "18 % less CPU" for 0.65 -> 0.47
        100.0 * (to_cpu_load_avg - from_cpu_load_avg) as cpu_load_delta_pp,
        {{ difference_interval('iops', 'iops_delta') }},
        {{ difference_interval('avg_latency_ms', 'avg_latency_delta_ms') }},
        from_iops_se,
        to_iops_se,
        from_avg_latency_ms_se,
        to_avg_latency_ms_se,
        from_iops_se is not null and to_iops_se is not null as has_spread

    from pairs_measured

)

select * from deltas_computed
