{#- One row per bar of the RA comparison chart (IOPS bars, latency lines
    per read mix, as in the Micron vSAN RA): a measured row is ONE workload
    result, a published row ONE published figure (its IOPS figure with the
    latency figure printed beside it, paired by figure id). Nothing is
    averaged: what varies on the testbed besides the chart's axes (read mix
    on x, working set as facet, profile as colour) is `run_configuration`, the
    page's selector (result_varying_labels), and repeated runs of one
    run_configuration are numbered (`run_ordinal`), never merged. A published
    figure is listed under every run_configuration of its testbed it does not
    contradict (a label the document states must equal the run's). -#}
with

{{ import_ctes(['fct_workload_results']) }},

result_varying_labels as (

    select * from {{ ref('result_varying_labels') }}
    -- the chart's own axes: x, facet and colour
    where label_key not in ('read_pct', 'working_set', 'profile')

),

published_results as (

    select
        *,
        -- the IOPS and latency figures of one printed point share the id
        -- without the metric word (micron67-fig10-...-r100-iops / -lat)
        regexp_replace(
            figure_id, '-(iops|lat|latency)(-|$)', '\2'
        ) as figure_stem
    from {{ ref('published_figures') }}
    where
        metric in ('iops', 'avg_latency_ms')
        and read_pct is not null

),

configurations as (

    {{ run_configurations('result_varying_labels') }}

),

measured_points as (

    select
        'measured' as origin,
        fct_workload_results.result_id,
        cast(null as varchar) as figure_id,
        cast(null as varchar) as iops_figure_id,
        cast(null as varchar) as latency_figure_id,
        cast(null as varchar) as published_source,
        fct_workload_results.testbed,
        coalesce(configurations.run_configuration, '') as run_configuration,
        fct_workload_results.working_set,
        fct_workload_results.profile,
        fct_workload_results.read_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.random_pct,
        fct_workload_results.outstanding_io,
        fct_workload_results.vm_count,
        fct_workload_results.nodes,
        fct_workload_results.vsan_version,
        fct_workload_results.transport,
        fct_workload_results.storage,
        fct_workload_results.iops,
        fct_workload_results.avg_latency_ms,
        fct_workload_results.avg_latency_kind,
        row_number() over (
            partition by
                fct_workload_results.testbed_id,
                configurations.run_configuration,
                fct_workload_results.working_set,
                fct_workload_results.profile,
                fct_workload_results.read_pct
            order by
                fct_workload_results.started_at,
                fct_workload_results.result_id
        ) as run_ordinal,
        count(*) over (
            partition by
                fct_workload_results.testbed_id,
                configurations.run_configuration,
                fct_workload_results.working_set,
                fct_workload_results.profile,
                fct_workload_results.read_pct
        ) as runs_at_point
    from fct_workload_results
    left join configurations
        on fct_workload_results.result_id = configurations.result_id

),

published_pairs as (

    select
        testbed,
        figure_stem,
        any_value(source_document) as source_document,
        any_value(table_or_figure) as table_or_figure,
        any_value(working_set) as working_set,
        any_value(profile) as profile,
        any_value(read_pct) as read_pct,
        any_value(block_size_bytes) as block_size_bytes,
        any_value(random_pct) as random_pct,
        any_value(outstanding_io) as outstanding_io,
        any_value(vm_count) as vm_count,
        any_value(nodes) as nodes,
        any_value(vsan_version) as vsan_version,
        any_value(transport) as transport,
        any_value(storage) as storage,
        min(figure_id) as figure_id,
        any_value(figure_id) filter (where metric = 'iops') as iops_figure_id,
        any_value(figure_id) filter (
            where metric = 'avg_latency_ms'
        ) as latency_figure_id,
        any_value(value) filter (where metric = 'iops') as iops,
        any_value(value) filter (
            where metric = 'avg_latency_ms'
        ) as avg_latency_ms,
        -- 1 and 1 at most: a stem never pairs two figures of one metric
        -- (unique_combination test on the ids below keeps it so)
        count(*) filter (where metric = 'iops') as iops_figure_count,
        count(*) filter (
            where metric = 'avg_latency_ms'
        ) as latency_figure_count
    from published_results
    group by testbed, figure_stem

),

published_labels as (

    -- what each printed point states, as result_varying_labels writes it
    unpivot (
        select
            figure_stem,
            any_value(vsan_version) as vsan_version,
            any_value(transport) as transport,
            any_value(storage) as storage,
            any_value(architecture) as architecture,
            cast(any_value(nodes) as varchar) as nodes,
            cast(any_value(disk_groups) as varchar) as disk_groups,
            cast(any_value(vm_count) as varchar) as vm_count,
            cast(any_value(random_pct) as varchar) as random_pct,
            cast(any_value(outstanding_io) as varchar) as outstanding_io,
            cast(any_value(working_set_gb) as varchar) as working_set_gb,
            {{ block_size_text('any_value(block_size_bytes)') }} as block_size
        from published_results
        group by figure_stem
    ) on columns(* exclude (figure_stem))
    into name label_key value label_value

),

testbed_configurations as (

    select distinct
        fct_workload_results.testbed,
        coalesce(configurations.run_configuration, '') as run_configuration,
        result_varying_labels.label_key,
        result_varying_labels.label_value
    from fct_workload_results
    left join configurations
        on fct_workload_results.result_id = configurations.result_id
    left join result_varying_labels
        on fct_workload_results.result_id = result_varying_labels.result_id

),

contradictions as (

    -- a run_configuration label the printed point states otherwise
    select distinct
        published_pairs.figure_stem,
        testbed_configurations.run_configuration
    from published_pairs
    inner join testbed_configurations
        on published_pairs.testbed = testbed_configurations.testbed
    inner join published_labels
        on
            published_pairs.figure_stem = published_labels.figure_stem
            and testbed_configurations.label_key = published_labels.label_key
    where published_labels.label_value != testbed_configurations.label_value

),

distinct_configurations as (

    select distinct
        testbed,
        run_configuration
    from testbed_configurations

),

published_matched as (

    select
        published_pairs.*,
        distinct_configurations.run_configuration
    from published_pairs
    left join distinct_configurations
        on published_pairs.testbed = distinct_configurations.testbed
    anti join contradictions
        on
            published_pairs.figure_stem = contradictions.figure_stem
            and distinct_configurations.run_configuration
            is not distinct from contradictions.run_configuration

),

published_everywhere as (

    -- a figure that contradicts every run of its testbed is still listed
    -- (run_configuration NULL), never dropped
    select * from published_matched
    union all
    select
        published_pairs.*,
        cast(null as varchar) as run_configuration
    from published_pairs
    anti join published_matched
        on published_pairs.figure_stem = published_matched.figure_stem

),

published_points as (

    select
        'published' as origin,
        cast(null as varchar) as result_id,
        figure_id,
        iops_figure_id,
        latency_figure_id,
        table_or_figure
        || case
            when figure_stem like '%-text' then ' (text)' else ''
        end as published_source,
        testbed,
        run_configuration,
        working_set,
        profile,
        read_pct,
        block_size_bytes,
        random_pct,
        outstanding_io,
        vm_count,
        nodes,
        vsan_version,
        transport,
        storage,
        iops,
        avg_latency_ms,
        -- what a document prints as "latency" is its own figure
        cast(null as varchar) as avg_latency_kind,
        -- two figures of one source at one point (a restatement, a
        -- latency printed without its IOPS) are two bars, numbered
        row_number() over (
            partition by
                testbed, run_configuration, working_set, profile, read_pct,
                table_or_figure, figure_stem like '%-text'
            order by figure_stem
        ) as run_ordinal,
        count(*) over (
            partition by
                testbed, run_configuration, working_set, profile, read_pct,
                table_or_figure, figure_stem like '%-text'
        ) as runs_at_point
    from published_everywhere

)

select * from measured_points
union all
select * from published_points
