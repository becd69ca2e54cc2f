{{ config(alias='published_results') }}

{#- marts.published_results, the interface of CONTRACT.md: every reference
    figure, the reference studies' (seed published_results, stored as
    marts.reference_published_results) and a user's own figures files
    (`figures_file` names the file; NULL for the seed's). The node is named
    published_figures because the seed keeps its name. -#}
with

{{ import_ctes(['int_published_figures']) }},

published_results as (

    select
        figure_id,
        source_document,
        table_or_figure,
        testbed,
        nodes,
        vsan_version,
        architecture,
        profile,
        ftm,
        ftt,
        checksum,
        dedupe,
        compression,
        stripe_width,
        osr_pct,
        disk_groups,
        transport,
        working_set,
        storage,
        vm_count,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        outstanding_io_per_vm,
        working_set_pct,
        working_set_gb,
        metric,
        compared_to,
        value,
        unit,
        value_as_printed,
        qualifier,
        derivation,
        chart_read,
        note,
        figures_file
    from int_published_figures

)

select * from published_results
