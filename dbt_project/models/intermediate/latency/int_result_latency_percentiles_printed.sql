{#- One row per workload result x scope (`read`, `write`, ... and `all`) x
    percentile fio printed for an output of the scope: the largest of the
    outputs' figures (an upper bound of the scope's percentile; never
    averaged) and how many of the scope's outputs printed it. -#}
with

{{ import_ctes([
    'int_fio_outputs_by_latency_scope',
    'stg_fio__latency_percentiles',
]) }},

percentiles_of_outputs as (

    select
        -- identifiers
        int_fio_outputs_by_latency_scope.result_id,

        -- dimensions
        int_fio_outputs_by_latency_scope.scope_direction as direction,
        stg_fio__latency_percentiles.percentile,

        -- facts
        max(stg_fio__latency_percentiles.latency_ms) as max_latency_ms,
        count(*) as outputs_reporting,
        any_value(int_fio_outputs_by_latency_scope.output_count)
            as output_count

    from int_fio_outputs_by_latency_scope
    inner join stg_fio__latency_percentiles
        on
            int_fio_outputs_by_latency_scope.fio_job_id
            = stg_fio__latency_percentiles.fio_job_id
            and int_fio_outputs_by_latency_scope.direction
            = stg_fio__latency_percentiles.direction
            and int_fio_outputs_by_latency_scope.latency_kind
            = stg_fio__latency_percentiles.latency_kind
    group by all

)

select * from percentiles_of_outputs
