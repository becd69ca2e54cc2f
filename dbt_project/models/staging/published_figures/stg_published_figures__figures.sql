with

figures as (

    select * from {{ source('published_figures', 'published_figures') }}

),

source_files as (

    select * from {{ source('ingest', 'source_files') }}

),

renamed as (

    select
        figures.figure_id,
        figures.source_document,
        figures.table_or_figure,
        figures.testbed,
        figures.nodes,
        figures.vsan_version,
        figures.architecture,
        figures.profile,
        figures.ftm,
        figures.ftt,
        figures.checksum,
        figures.dedupe,
        figures.compression,
        figures.stripe_width,
        figures.osr_pct,
        figures.disk_groups,
        figures.transport,
        figures.working_set,
        figures.storage,
        figures.vm_count,
        figures.read_pct,
        figures.random_pct,
        figures.block_size_bytes,
        figures.outstanding_io,
        figures.outstanding_io_per_vm,
        figures.working_set_pct,
        figures.working_set_gb,
        figures.metric,
        figures.compared_to,
        figures.value,
        figures.unit,
        figures.value_as_printed,
        figures.qualifier,
        figures.derivation,
        figures.chart_read,
        figures.note,
        source_files.path as figures_file

    from figures
    inner join source_files
        on figures._source_file_id = source_files.source_file_id

)

select * from renamed
