with

{{ import_ctes(['fct_workload_results']) }},

int_result_hosts_measured as (

    select * from {{ ref('int_result_hosts_measured') }}
    where host_iops is not null

),

hosts_summarised as (

    select
        result_id,
        host_origin,
        count(*) as host_count,
        min(host_iops) as host_iops_min,
        max(host_iops) as host_iops_max,
        avg(host_iops) as host_iops_mean

    from int_result_hosts_measured
    group by result_id, host_origin

),

hosts_of_best_origin as (

    -- the load generator's own per-client split beats a capture that only
    -- overlaps the run's time window
    select * from hosts_summarised
    qualify
        row_number() over (
            partition by result_id
            order by case host_origin when 'fio_client' then 1 else 2 end
        ) = 1

),

results_joined_to_hosts as (

    select
        -- identifiers
        fct_workload_results.result_id,
        fct_workload_results.testbed_id,

        -- dimensions
        fct_workload_results.testbed,
        fct_workload_results.nodes,
        fct_workload_results.profile,
        fct_workload_results.working_set,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,
        fct_workload_results.source_tool,

        -- facts
        fct_workload_results.iops,
        fct_workload_results.iops / nullif(fct_workload_results.nodes, 0)
            as iops_per_node,
        hosts_of_best_origin.host_count,
        hosts_of_best_origin.host_iops_min,
        hosts_of_best_origin.host_iops_max,
        hosts_of_best_origin.host_iops_mean,
        -- how far the busiest host sits above the mean host
        {{ pct_change(
            'hosts_of_best_origin.host_iops_max',
            'hosts_of_best_origin.host_iops_mean'
        ) }} as host_imbalance_pct,

        -- metadata
        hosts_of_best_origin.host_origin as host_iops_source

    from fct_workload_results
    left join hosts_of_best_origin
        on fct_workload_results.result_id = hosts_of_best_origin.result_id

)

select * from results_joined_to_hosts
