with

source as (

    select * from {{ source('esxtop', 'esxtop_captures') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,

        ----------  text
        pdh_header,
        dialect,
        line_ending,
        hosts_json,
        -- why the sample times cannot be trusted (backward steps, repeated
        -- times and their lines); null when they can
        times_note,

        ----------  numerics
        host_count,
        sample_count,
        column_count,
        cell_count,
        empty_cells,
        malformed_cells,
        repaired_cells,
        dropped_rows,
        timestamp_resolution_s,
        utc_offset_min,
        interval_s,

        ----------  booleans
        has_dates,
        -- false: the stamps step backwards or repeat, so the capture's time
        -- window is doubtful (null: loaded by a parser before this check)
        times_reliable,

        ----------  timestamps
        first_sampled_at,
        last_sampled_at

    from source

)

select * from renamed
