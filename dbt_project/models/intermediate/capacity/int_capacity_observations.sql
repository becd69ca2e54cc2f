{#- One row per capacity observation: one capture, however many files it was
    loaded from. The same VsanSpaceUsage saved as JSON and as XML is two
    snapshot files (both stay in staging and int_capacity_snapshots_labelled)
    but one observation: a capture is identified by where and when it was
    taken and what it says, i.e. the same testbed, capture time, policy and
    run labels and the same values (every byte count and the reported
    ratio), NULLs equal. Of a capture's files the one with the most detail
    is kept (most values given, then most object-type rows; on a tie the
    first by format and file name, never by source file id: team mode draws
    ids at random, and both modes must keep the same file);
    `source_file_ids` names every file it came from. -#}
with

{{ import_ctes([
    'int_capacity_snapshots_labelled',
    'stg_vsan_capacity__space_usage_by_object_type',
]) }},

object_type_rows_counted as (

    select
        source_file_id,
        count(*) as object_type_rows

    from stg_vsan_capacity__space_usage_by_object_type
    where scope = 'object_type'
    group by source_file_id

),

snapshots_detailed as (

    select
        snapshots.*,
        -- how much a file says: values given, then its object-type rows
        (
            (snapshots.captured_at is not null)::int
            + (snapshots.logical_used_bytes is not null)::int
            + (snapshots.physical_used_bytes is not null)::int
            + (snapshots.total_capacity_bytes is not null)::int
            + (snapshots.free_capacity_bytes is not null)::int
            + (snapshots.ratio_reported is not null)::int
        ) * 1000
        + coalesce(object_types.object_type_rows, 0) as detail_score

    from int_capacity_snapshots_labelled as snapshots
    left join object_type_rows_counted as object_types
        on snapshots.source_file_id = object_types.source_file_id

),

captures_identified as (

    select
        *,
        row_number() over capture as file_rank,
        -- a capture's files in format and name order: the order means the
        -- same in both modes (team mode's ids are random)
        list_sort(
            list({
                'source_kind': source_kind,
                'source_name': source_name,
                'source_file_id': source_file_id
            }) over capture
        ) as capture_files

    from snapshots_detailed
    window capture as (
        partition by
            testbed, captured_at, ftm, ftt, architecture, nodes, profile,
            working_set, logical_used_bytes, physical_used_bytes,
            total_capacity_bytes, free_capacity_bytes, ratio_reported
        order by
            detail_score desc,
            source_kind asc,
            source_name asc,
            source_file_id asc
        rows between unbounded preceding and unbounded following
    )

),

observations as (

    select
        -- identifiers
        source_file_id,
        list_transform(capture_files, f -> f.source_file_id) as source_file_ids,
        list_transform(capture_files, f -> f.source_name) as source_names,

        -- dimensions
        source_kind,
        list_sort(
            list_distinct(list_transform(capture_files, f -> f.source_kind))
        ) as source_kinds,
        source_document,
        testbed,
        ftm,
        ftt,
        architecture,
        nodes,
        profile,
        working_set,

        -- timestamps
        captured_at,

        -- facts
        len(capture_files) as source_file_count,
        logical_used_bytes,
        physical_used_bytes,
        total_capacity_bytes,
        free_capacity_bytes,
        ratio_reported,
        ratio_reported_source

    from captures_identified
    where file_rank = 1

)

select * from observations
