with

{{ import_ctes(['stg_vdbench__outputs', 'stg_ingest__source_files']) }},

stg_vdbench__runs as (

    -- the avg_ totals of finished measurement runs; Vdbench's automatic
    -- format run measures the pre-fill, not the workload
    select * from {{ ref('stg_vdbench__runs') }}
    where state = 'ok' and not is_format_run

),

int_result_outputs_keyed as (

    -- the result each run counts towards: its key is built there, once,
    -- for finished and unfinished runs alike
    select * from {{ ref('int_result_outputs_keyed') }}
    where source_tool = 'vdbench'

),

runs_assigned_to_results as (

    select
        stg_vdbench__runs.*,
        -- the block size is a configured transfer size: the xfersize the
        -- parser found (printed, in the parameters, or the HCIBench case's
        -- name). Never bytes_per_io, the mean bytes an I/O moved (7,814 for
        -- an 8 KiB run, any mean of a distribution): that is a measure of
        -- its own, and without a configured size the block size is unknown
        stg_vdbench__runs.xfersize_bytes as run_block_size_bytes,
        stg_vdbench__outputs.output_kind_rank,
        stg_vdbench__outputs.host_count,
        stg_ingest__source_files.result_per,
        stg_ingest__source_files.source_folder,
        stg_ingest__source_files.source_path,
        stg_ingest__source_files.loaded_at,
        int_result_outputs_keyed.result_id,
        int_result_outputs_keyed.result_key,
        int_result_outputs_keyed.result_group

    from stg_vdbench__runs
    inner join stg_vdbench__outputs
        on
            stg_vdbench__runs.source_file_id
            = stg_vdbench__outputs.source_file_id
    inner join stg_ingest__source_files
        on
            stg_vdbench__runs.source_file_id
            = stg_ingest__source_files.source_file_id
    inner join int_result_outputs_keyed
        on
            stg_vdbench__runs.source_file_id
            = int_result_outputs_keyed.source_file_id
            and stg_vdbench__runs.run_index = int_result_outputs_keyed.run_index

),

same_run_in_other_reports as (

    -- summary, totals, logfile and flatfile of one hand-run Vdbench repeat
    -- the same run: same folder, run definition and avg_ interval, totals
    -- that agree within the printed digits (IOPS to 0.1 and MiB/s to 0.01 in
    -- the reports, 4 decimals in the flatfile: never compared by rounding,
    -- which splits 30145.4576 and 30145.5 apart)
    select
        runs.source_file_id,
        runs.run_index,
        min(other.output_kind_rank) as best_other_rank,
        max(other.host_count) as other_host_count
    from runs_assigned_to_results as runs
    inner join runs_assigned_to_results as other
        on
            runs.source_folder = other.source_folder
            and runs.rd_name = other.rd_name
            and runs.avg_label = other.avg_label
            and runs.output_kind_rank != other.output_kind_rank
            and abs(runs.iops - other.iops) <= 0.06
            and abs(runs.throughput_mb_s - other.throughput_mb_s) <= 0.006
    group by runs.source_file_id, runs.run_index

),

runs_deduplicated_across_reports as (

    -- with result_per = file every report is its own result, but a run
    -- repeated by several reports keeps only its best report, so that it is
    -- never counted twice. totals.html and flatfile.html do not say how many
    -- hosts ran the workload; a summary.html or logfile.html of the same run
    -- does: the kept report takes their count
    select
        runs_assigned_to_results.* replace (
            coalesce(
                runs_assigned_to_results.host_count,
                same_run_in_other_reports.other_host_count
            ) as host_count
        )
    from runs_assigned_to_results
    left join same_run_in_other_reports
        on
            runs_assigned_to_results.source_file_id
            = same_run_in_other_reports.source_file_id
            and runs_assigned_to_results.run_index
            = same_run_in_other_reports.run_index
    where
        runs_assigned_to_results.result_per = 'folder'
        or same_run_in_other_reports.best_other_rank is null
        or same_run_in_other_reports.best_other_rank
        > runs_assigned_to_results.output_kind_rank

),

runs_of_best_output_kind as (

    -- summary, totals, logfile and flatfile of one hand-run Vdbench repeat
    -- the same totals: in a folder result only the best kind is summed
    select * from runs_deduplicated_across_reports
    qualify
        output_kind_rank
        = min(output_kind_rank) over (partition by result_group)

),

results_aggregated as (

    select
        -- identifiers
        result_id,
        result_key,
        result_group,
        'vdbench' as source_tool,
        {{ earliest_loaded_file() }} as label_source_file_id,

        -- dimensions
        cast(
            round({{ agreed_value('coalesce(requested_read_pct, read_pct)') }})
            as integer
        ) as read_pct,
        cast(round({{ agreed_value('requested_seek_pct') }}) as integer)
            as random_pct,
        {{ agreed_value('run_block_size_bytes') }} as block_size_bytes,
        -- workload.outstanding_io means the whole test's: the threads of
        -- every report summed (per-VM reports of one test), unknown when
        -- one report does not say
        case
            when count(threads) = count(*) then cast(sum(threads) as bigint)
        end as outstanding_io,
        -- load generators: the hosts each report shows (a multi-host
        -- summary.html or logfile.html counts every host), 1 for a report
        -- that does not say, such as one HCIBench VM's stdout
        cast(sum(coalesce(host_count, 1)) as bigint) as vm_count,
        count(distinct source_file_id) as source_file_count,

        -- facts: per-VM totals summed; means weighted by I/O rate (every
        -- VM of a test runs for the same interval, so IOPS weights = I/O
        -- count weights)
        {{ iops_split_by_read_pct('iops', 'read_pct') }},
        sum(throughput_mb_s) as throughput_mb_s,
        cast(null as bigint) as total_ios,
        cast(null as bigint) as io_bytes,
        {{ weighted_mean('bytes_per_io', 'iops') }} as bytes_per_io,
        {{ weighted_mean('avg_latency_ms', 'iops') }}
            as avg_latency_ms,
        {{ weighted_mean(
            'read_latency_ms',
            'iops * read_pct'
        ) }} as read_latency_ms,
        {{ weighted_mean(
            'write_latency_ms',
            'iops * (100.0 - read_pct)'
        ) }} as write_latency_ms,

        -- timestamps: Vdbench prints times of day only
        cast(null as timestamptz) as started_at,
        cast(null as timestamptz) as ended_at

    from runs_of_best_output_kind
    group by result_id, result_key, result_group

)

select * from results_aggregated
