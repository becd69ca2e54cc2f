with

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}
    where workload_id != '-1'

),

workloads_described as (

    select distinct
        workload_id,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        -- a part the workload does not know is left out (`||` with NULL is
        -- NULL, and concat_ws skips it), never printed as a bare unit
        concat_ws(
            ' ',
            case
                when block_size_bytes % 1048576 = 0
                    then (block_size_bytes // 1048576) || 'm'
                when block_size_bytes % 1024 = 0
                    then (block_size_bytes // 1024) || 'k'
                else block_size_bytes || 'b'
            end,
            read_pct || '% read',
            random_pct || '% random',
            'oio ' || outstanding_io
        ) as workload_name,
        false as is_unknown

    from int_workload_results_labelled

),

unknown_member as (

    select
        '-1' as workload_id,
        cast(null as integer) as read_pct,
        cast(null as integer) as random_pct,
        cast(null as bigint) as block_size_bytes,
        cast(null as bigint) as outstanding_io,
        'unknown' as workload_name,
        true as is_unknown

),

workloads_with_unknown as (

    select * from workloads_described
    union all by name
    select * from unknown_member

)

select * from workloads_with_unknown
