{#- The one rule for which fio outputs a result's latency percentiles and
    histograms are made of, and of which latency kind. One row per result x
    scope (each direction, and `all`) x output (fio job x direction) that
    did I/O. An output's latency kind is total latency (lat) when fio
    printed its percentiles, else completion latency (clat, fio's default).
    Every output counts toward `output_count`, also one that printed no
    percentiles (left join): an exact figure needs all of them, so such an
    output can still complete a merged histogram with its clat bins but
    never lets the printed percentiles pass for the result's. -#}
with

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}
    where total_ios > 0

),

stg_fio__latency_percentiles as (

    select * from {{ ref('stg_fio__latency_percentiles') }}
    where latency_kind in ('lat', 'clat')

),

outputs_with_latency_kind as (

    select
        int_fio_directions_assigned_to_results.result_id,
        int_fio_directions_assigned_to_results.fio_job_id,
        int_fio_directions_assigned_to_results.direction,
        case
            when bool_or(stg_fio__latency_percentiles.latency_kind = 'lat')
                then 'lat'
            else 'clat'
        end as latency_kind

    from int_fio_directions_assigned_to_results
    left join stg_fio__latency_percentiles
        on
            int_fio_directions_assigned_to_results.fio_job_id
            = stg_fio__latency_percentiles.fio_job_id
            and int_fio_directions_assigned_to_results.direction
            = stg_fio__latency_percentiles.direction
    group by all

),

scopes_of_outputs as (

    -- each output belongs to the scope of its direction and to `all`
    select
        result_id,
        direction as scope_direction,
        fio_job_id,
        direction,
        latency_kind

    from outputs_with_latency_kind

    union all

    select
        result_id,
        'all' as scope_direction,
        fio_job_id,
        direction,
        latency_kind

    from outputs_with_latency_kind

),

outputs_counted as (

    select
        -- identifiers
        result_id,
        scope_direction,
        fio_job_id,

        -- dimensions
        direction,
        latency_kind,

        -- facts
        count(*) over (partition by result_id, scope_direction)
            as output_count

    from scopes_of_outputs

)

select * from outputs_counted
