with

source as (

    select * from {{ source('vdbench', 'vdbench_outputs') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,

        ----------  text
        output_kind,
        case_name,
        vm_name,
        vdbench_version,
        column_layout,

        ----------  numerics
        run_count,
        interval_count,
        host_count,
        slave_count,
        -- Outputs of one hand-run Vdbench folder repeat the same totals in
        -- several files; when a folder forms one result only the best kind
        -- counts (per-VM stdout, then the flatfile's extra precision).
        case output_kind
            when 'stdout' then 1
            when 'flatfile' then 2
            when 'totals' then 3
            when 'summary' then 4
            when 'logfile' then 5
            else 6
        end as output_kind_rank,

        ----------  booleans
        has_cpu_columns,
        completed_successfully,

        ----------  timestamps
        report_created_at

    from source

)

select * from renamed
