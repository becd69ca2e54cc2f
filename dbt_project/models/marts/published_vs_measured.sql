{#- Every published figure against what the warehouse measured (grain: one
    row per row of marts.published_results). A figure matches the measured
    rows of its testbed whose labels equal every non-NULL published label
    column below; a label the target mart does not carry (its grain
    aggregates over it) is not compared and is named in `reason`. -#}
{%- set labels = [
    'profile', 'working_set', 'working_set_gb', 'transport', 'vsan_version',
    'stripe_width', 'storage', 'disk_groups', 'nodes', 'vm_count', 'ftm',
    'ftt', 'dedupe', 'compression', 'checksum', 'read_pct', 'random_pct',
    'block_size_bytes', 'outstanding_io',
] -%}
{%- set fct_metrics = [
    'iops', 'read_iops', 'write_iops', 'avg_latency_ms', 'read_latency_ms',
    'write_latency_ms', 'p95_latency_ms', 'p99_latency_ms',
    'throughput_mb_s', 'cpu_util_pct',
] -%}
{%- set workload = [
    'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io',
] -%}
{%- set profile_grain = [
    'profile', 'working_set', 'disk_groups', 'nodes', 'read_pct',
    'random_pct', 'block_size_bytes',
] -%}
{#- labels a capacity observation carries from its run labels -#}
{%- set capacity_labels = [
    'profile', 'working_set', 'working_set_gb', 'vsan_version',
    'stripe_width', 'storage', 'disk_groups', 'nodes', 'ftm', 'ftt', 'dedupe',
    'compression', 'checksum',
] -%}
{%- set profile_metrics = [
    'iops_vs_baseline_pct', 'latency_vs_baseline_pct',
    'iops_vs_previous_pct', 'latency_vs_previous_pct',
] -%}
{%- set config_metrics = [
    'iops_delta_pct', 'latency_delta_pct', 'p95_latency_delta_pct',
    'cpu_delta_pct',
] -%}
{%- set dedupe_metrics = [
    'dedupe_compression_ratio', 'capacity_used_before_tb',
    'capacity_used_after_tb', 'capacity_multiplier', 'usable_to_raw_ratio',
] -%}

with

published_results as (

    select * from {{ ref('published_results') }}

),

reference_exceptions as (

    select * from {{ ref('reference_exceptions') }}

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}

),

per_node_iops as (

    select * from {{ ref('per_node_iops') }}

),

profile_latency_deltas as (

    select * from {{ ref('profile_latency_deltas') }}

),

config_deltas as (

    select * from {{ ref('config_deltas') }}

),

dedupe_ratios as (

    select * from {{ ref('dedupe_ratios') }}

),

transport_cpu_efficiency as (

    select * from {{ ref('transport_cpu_efficiency') }}

),

metric_targets as (

    -- which mart holds a published metric (under the same name there, or
    -- as renamed in the unpivots below)
    select
        metric,
        case
            when metric in ({{ "'" ~ fct_metrics | join("', '") ~ "'" }})
                then 'fct_workload_results'
            when metric = 'iops_per_node' then 'per_node_iops'
            when
                metric in ({{ "'" ~ profile_metrics | join("', '") ~ "'" }})
                then 'profile_latency_deltas'
            when
                metric in ({{ "'" ~ config_metrics | join("', '") ~ "'" }})
                then 'config_deltas'
            when
                metric in ({{ "'" ~ dedupe_metrics | join("', '") ~ "'" }})
                then 'dedupe_ratios'
            when metric = 'rdma_efficiency_gain_pct'
                then 'transport_cpu_efficiency'
        end as target_mart

    from (select distinct metric from published_results) as published_metrics

),

fct_results_labelled as (

    select
        fct_workload_results.result_id as matched_key,
        fct_workload_results.testbed,
        fct_workload_results.profile,
        fct_workload_results.working_set,
        -- a free-form run label (SFD7 working sets in GB), from the labels
        json_extract_string(
            fct_workload_results.labels_json, '$.working_set_gb'
        ) as working_set_gb,
        fct_workload_results.transport,
        fct_workload_results.vsan_version,
        fct_workload_results.stripe_width,
        fct_workload_results.storage,
        fct_workload_results.disk_groups,
        fct_workload_results.nodes,
        fct_workload_results.vm_count,
        fct_workload_results.ftm,
        fct_workload_results.ftt,
        fct_workload_results.is_dedupe as dedupe,
        fct_workload_results.is_compression as compression,
        fct_workload_results.is_checksum as checksum,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,
        cast(null as varchar) as compared_to,
        cast([] as varchar[]) as uncarried_labels,
        {%- for metric in fct_metrics %}
            cast(fct_workload_results.{{ metric }} as double)
                as {{ metric }},
        {%- endfor %}
        per_node_iops.iops_per_node

    from fct_workload_results
    left join per_node_iops
        on fct_workload_results.result_id = per_node_iops.result_id

),

fct_results_unpivoted as (

    {%- for metric in fct_metrics + ['iops_per_node'] %}
        select
            * exclude ({{ (fct_metrics + ['iops_per_node']) | join(', ') }}),
            {%- if metric == 'iops_per_node' %}
                'per_node_iops' as target_mart,
            {%- else %}
                'fct_workload_results' as target_mart,
            {%- endif %}
            '{{ metric }}' as metric,
            {{ metric }} as measured_value
        from fct_results_labelled
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

profile_deltas_labelled as (

    -- the profile mart's grain is testbed x working set x disk groups x
    -- nodes x workload x profile: the other labels are aggregated over
    select
        'profile_latency_deltas' as target_mart,
        concat_ws(
            '|', testbed, working_set, disk_groups, nodes, read_pct,
            block_size_bytes, random_pct, profile
        ) as matched_key,
        testbed,
        profile,
        working_set,
        disk_groups,
        nodes,
        read_pct,
        random_pct,
        block_size_bytes,
        [
            {%- for label in labels if label not in profile_grain %}
                '{{ label }}'{% if not loop.last %},{% endif %}
            {%- endfor %}
        ] as uncarried_labels,
        baseline_profile,
        previous_profile,
        iops_vs_baseline_pct,
        latency_vs_baseline_pct,
        iops_vs_previous_pct,
        latency_vs_previous_pct

    from profile_latency_deltas

),

profile_deltas_unpivoted as (

    {%- for metric in profile_metrics %}
        select
            * exclude (
                baseline_profile, previous_profile,
                {{ profile_metrics | join(', ') }}
            ),
            {%- if 'baseline' in metric %}
                baseline_profile as compared_to,
            {%- else %}
                previous_profile as compared_to,
            {%- endif %}
            '{{ metric }}' as metric,
            {{ metric }} as measured_value
        from profile_deltas_labelled
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

config_deltas_both_directions as (

    -- config_deltas keeps each pair once (off -> on, smaller -> larger,
    -- alphabetical); a figure's `compared_to` names its own base, which
    -- can be the other side (JBOF vs local NVMe): the reverse delta is
    -- computed from the same pair
    select
        config_delta_id as matched_key,
        to_result_id as labelled_result_id,
        from_value as compared_to,
        iops_delta_pct,
        avg_latency_delta_pct as latency_delta_pct,
        p95_latency_delta_pct,
        cpu_delta_pct

    from config_deltas

    union all

    select
        concat(config_delta_id, '-reversed') as matched_key,
        from_result_id as labelled_result_id,
        to_value as compared_to,
        {{ pct_change('from_iops', 'to_iops') }} as iops_delta_pct,
        {{ pct_change('from_avg_latency_ms', 'to_avg_latency_ms') }}
            as latency_delta_pct,
        {{ pct_change('from_p95_latency_ms', 'to_p95_latency_ms') }}
            as p95_latency_delta_pct,
        {{ pct_change('from_cpu_util_pct', 'to_cpu_util_pct') }}
            as cpu_delta_pct

    from config_deltas

),

result_labels as (

    select
        * exclude (
            matched_key, compared_to,
            {{ (fct_metrics + ['iops_per_node']) | join(', ') }}
        ),
        matched_key as labelled_result_id

    from fct_results_labelled

),

config_deltas_labelled as (

    -- a delta carries the labels of the result it describes; `compared_to`
    -- names the base's value of the label that differs
    select
        result_labels.*,
        'config_deltas' as target_mart,
        config_deltas_both_directions.matched_key,
        config_deltas_both_directions.compared_to,
        config_deltas_both_directions.iops_delta_pct,
        config_deltas_both_directions.latency_delta_pct,
        config_deltas_both_directions.p95_latency_delta_pct,
        config_deltas_both_directions.cpu_delta_pct

    from config_deltas_both_directions
    inner join result_labels
        on
            config_deltas_both_directions.labelled_result_id
            = result_labels.labelled_result_id

),

config_deltas_unpivoted as (

    {%- for metric in config_metrics %}
        select
            * exclude ({{ config_metrics | join(', ') }}),
            '{{ metric }}' as metric,
            {{ metric }} as measured_value
        from config_deltas_labelled
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

dedupe_ratios_labelled as (

    -- a capacity observation carries the policy and run labels of the
    -- folder it was captured in (density cache vs capacity test), not a
    -- workload
    select
        'dedupe_ratios' as target_mart,
        cast(dedupe_ratios.capacity_observation_id as varchar) as matched_key,
        dedupe_ratios.testbed,
        dedupe_ratios.ftm,
        dedupe_ratios.ftt,
        stg_ingest__source_files.profile,
        stg_ingest__source_files.working_set,
        json_extract_string(
            stg_ingest__source_files.labels_json, '$.working_set_gb'
        ) as working_set_gb,
        stg_ingest__source_files.vsan_version,
        stg_ingest__source_files.stripe_width,
        stg_ingest__source_files.storage,
        stg_ingest__source_files.disk_groups,
        stg_ingest__source_files.nodes,
        stg_ingest__source_files.is_dedupe as dedupe,
        stg_ingest__source_files.is_compression as compression,
        stg_ingest__source_files.is_checksum as checksum,
        [
            {%- for label in labels if label not in capacity_labels %}
                '{{ label }}'{% if not loop.last %},{% endif %}
            {%- endfor %}
        ] as uncarried_labels,
        dedupe_ratios.dedupe_compression_ratio,
        -- the documents print vSphere's capacity, whose "TB" is TiB (the
        -- vsan_capacity parser reads it so); compare in the printed unit
        dedupe_ratios.logical_used_bytes / 1024 ^ 4 as capacity_used_before_tb,
        dedupe_ratios.physical_used_bytes / 1024 ^ 4 as capacity_used_after_tb,
        dedupe_ratios.capacity_multiplier,
        dedupe_ratios.usable_to_raw_ratio

    from dedupe_ratios
    left join stg_ingest__source_files
        on
            dedupe_ratios.capacity_observation_id
            = stg_ingest__source_files.source_file_id

),

dedupe_ratios_unpivoted as (

    {%- for metric in dedupe_metrics %}
        select
            * exclude ({{ dedupe_metrics | join(', ') }}),
            '{{ metric }}' as metric,
            {{ metric }} as measured_value
        from dedupe_ratios_labelled
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

transport_efficiency_unpivoted as (

    -- an RDMA-vs-TCP comparison: transport `rdma` against `tcp`
    select
        'transport_cpu_efficiency' as target_mart,
        concat_ws(
            '|', testbed, storage, read_pct, random_pct, block_size_bytes,
            outstanding_io
        ) as matched_key,
        testbed,
        'rdma' as transport,
        storage,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        'tcp' as compared_to,
        [
            {%- for label in labels
                if label not in workload + ['transport', 'storage'] %}
                '{{ label }}'{% if not loop.last %},{% endif %}
            {%- endfor %}
        ] as uncarried_labels,
        'rdma_efficiency_gain_pct' as metric,
        rdma_efficiency_gain_pct as measured_value

    from transport_cpu_efficiency

),

measured_unioned as (

    select * from fct_results_unpivoted
    union all by name
    select * from profile_deltas_unpivoted
    union all by name
    select * from config_deltas_unpivoted
    union all by name
    select * from dedupe_ratios_unpivoted
    union all by name
    select * from transport_efficiency_unpivoted

),

published_with_tolerance as (

    -- tolerance: half a unit of the last digit printed. The first number
    -- in value_as_printed (thousands commas dropped) is scaled to `value`
    -- by the power of ten that makes it `value` (K, M, GB/s -> MB/s, a
    -- chart axis in hundreds); a figure whose printed number is not
    -- `value` at any such scale (derived figures, words like "a quarter")
    -- takes the decimals of `value` itself.
    select
        published_results.*,
        metric_targets.target_mart,
        replace(
            regexp_extract(
                published_results.value_as_printed, '[0-9][0-9,]*(\.[0-9]+)?'
            ),
            ',',
            ''
        ) as printed_number_text,
        try_cast(printed_number_text as double) as printed_number,
        length(regexp_extract(printed_number_text, '\.([0-9]+)$', 1))
            as printed_decimals,
        case
            when printed_number > 0
                then
                    list_filter(
                        [1.0, 1e3, 1e6, 1e9, 10.0, 100.0, 1e4, 1e5, 1e7, 1e8],
                        scale -> abs(
                            abs(published_results.value)
                            - printed_number * scale
                        ) <= 1e-9 * greatest(abs(published_results.value), 1)
                    )[1]
        end as printed_scale,
        case
            when printed_scale is not null
                then 0.5 * power(10, -printed_decimals) * printed_scale
            else
                0.5 * power(
                    10,
                    -length(
                        regexp_extract(
                            cast(published_results.value as varchar),
                            '\.([0-9]*[1-9])0*$',
                            1
                        )
                    )
                )
        end as tolerance

    from published_results
    left join metric_targets
        on published_results.metric = metric_targets.metric

),

figures_joined_to_measured as (

    select
        published_with_tolerance.figure_id,
        measured_unioned.matched_key,
        measured_unioned.measured_value,
        measured_unioned.uncarried_labels,
        -- qualifier semantics (seeds/README.md): approx allows 10 % of the
        -- magnitude; more_than / less_than bound the magnitude with the
        -- published sign; abs_less_than bounds the magnitude only
        case
            when measured_unioned.measured_value is null then null
            when published_with_tolerance.qualifier = 'exact'
                then
                    abs(
                        measured_unioned.measured_value
                        - published_with_tolerance.value
                    )
                    <= published_with_tolerance.tolerance
            when published_with_tolerance.qualifier = 'approx'
                then
                    abs(
                        measured_unioned.measured_value
                        - published_with_tolerance.value
                    )
                    <= greatest(
                        published_with_tolerance.tolerance,
                        0.1 * abs(published_with_tolerance.value)
                    )
            when published_with_tolerance.qualifier = 'more_than'
                then
                    sign(measured_unioned.measured_value)
                    * sign(published_with_tolerance.value) >= 0
                    and abs(measured_unioned.measured_value)
                    >= abs(published_with_tolerance.value)
                    - published_with_tolerance.tolerance
            when published_with_tolerance.qualifier = 'less_than'
                then
                    sign(measured_unioned.measured_value)
                    * sign(published_with_tolerance.value) >= 0
                    and abs(measured_unioned.measured_value)
                    <= abs(published_with_tolerance.value)
                    + published_with_tolerance.tolerance
            when published_with_tolerance.qualifier = 'abs_less_than'
                then
                    abs(measured_unioned.measured_value)
                    <= abs(published_with_tolerance.value)
                    + published_with_tolerance.tolerance
        end as is_within

    from published_with_tolerance
    inner join measured_unioned
        on
            published_with_tolerance.target_mart = measured_unioned.target_mart
            and published_with_tolerance.metric = measured_unioned.metric
            and published_with_tolerance.testbed = measured_unioned.testbed
            and (
                published_with_tolerance.compared_to is null
                or measured_unioned.compared_to is null
                or published_with_tolerance.compared_to
                = measured_unioned.compared_to
            )
            {%- for label in labels %}
                and (
                    published_with_tolerance.{{ label }} is null
                    or list_contains(
                        measured_unioned.uncarried_labels, '{{ label }}'
                    )
                    or cast(published_with_tolerance.{{ label }} as varchar)
                    = cast(measured_unioned.{{ label }} as varchar)
                )
            {%- endfor %}

),

matches_counted as (

    -- several rows match a figure that leaves a label open ("~2.25 ms at
    -- every host count"): it holds when it holds for each of them, and
    -- the value shown is the one furthest from the figure
    select
        figures_joined_to_measured.figure_id,
        count(*) as matched_count,
        min(figures_joined_to_measured.matched_key) as matched_key,
        arg_max(
            figures_joined_to_measured.measured_value,
            abs(
                figures_joined_to_measured.measured_value
                - published_with_tolerance.value
            )
        ) as furthest_value,
        min(figures_joined_to_measured.measured_value) as measured_value,
        -- a matched row without the metric counts against the figure
        bool_and(coalesce(figures_joined_to_measured.is_within, false))
            as is_within,
        any_value(figures_joined_to_measured.uncarried_labels)
            as uncarried_labels

    from figures_joined_to_measured
    inner join published_with_tolerance
        on
            figures_joined_to_measured.figure_id
            = published_with_tolerance.figure_id
    group by figures_joined_to_measured.figure_id

),

figures_compared as (

    select
        published_with_tolerance.*,
        coalesce(matches_counted.matched_count, 0) as matched_count,
        case
            when matches_counted.matched_count = 1
                then matches_counted.matched_key
        end as matched_result_id,
        case
            when matches_counted.matched_count = 1
                then matches_counted.measured_value
            when matches_counted.is_within
                then matches_counted.furthest_value
        end as measured_value,
        matches_counted.is_within,
        matches_counted.uncarried_labels

    from published_with_tolerance
    left join matches_counted
        on published_with_tolerance.figure_id = matches_counted.figure_id

),

figures_classified as (

    select
        figures_compared.*,
        case
            when figures_compared.target_mart is null then 'not_expressible'
            when figures_compared.matched_count = 0 then 'unmatched'
            when
                figures_compared.matched_count > 1
                and not figures_compared.is_within
                then 'ambiguous'
            when figures_compared.measured_value is null then 'unmatched'
            when figures_compared.is_within then 'match'
            else 'mismatch'
        end as status,
        reference_exceptions.kind as exception_kind,
        reference_exceptions.reason as exception_reason

    from figures_compared
    left join reference_exceptions
        on figures_compared.figure_id = reference_exceptions.figure_id

),

reasons_written as (

    select
        -- identifiers
        figure_id,
        matched_result_id,

        -- dimensions
        source_document,
        table_or_figure,
        testbed,
        metric,
        unit,
        qualifier,
        compared_to,
        target_mart,
        status,
        exception_kind,

        -- facts
        value as published_value,
        value_as_printed,
        tolerance,
        measured_value,
        measured_value - value as difference,
        matched_count,

        -- metadata
        case status
            when 'not_expressible'
                then concat('no mart computes metric ', metric)
            when 'unmatched'
                then
                    case
                        when matched_count = 1
                            then
                                concat(
                                    'the matched ',
                                    target_mart,
                                    ' row has no ',
                                    metric
                                )
                        else
                            concat(
                                'no ', target_mart, ' row of testbed ', testbed,
                                ' with these labels'
                            )
                    end
            when 'ambiguous'
                then
                    concat(
                        matched_count, ' ', target_mart,
                        ' rows carry these labels: add a label to tell',
                        ' them apart'
                    )
            else
                concat(
                    case
                        when matched_count > 1
                            then
                                concat(
                                    'holds for all ', matched_count,
                                    ' rows with these labels, furthest: '
                                )
                        else ''
                    end,
                    'measured ', round(measured_value, 4), ' vs published ',
                    value, ' (', qualifier, ', tolerance ', tolerance, ')',
                    case
                        when len(uncarried_labels) > 0
                            then
                                concat(
                                    '; not compared (', target_mart,
                                    ' aggregates over them): ',
                                    array_to_string(uncarried_labels, ', ')
                                )
                        else ''
                    end
                )
        end as reason,
        exception_reason

    from figures_classified

)

select * from reasons_written
