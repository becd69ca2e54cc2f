with

source as (

    select * from {{ source('vsan_observer', 'vsan_observer_samples') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,

        ----------  text
        capture,
        stats_group,
        entity_type,
        host as host_name,
        entity,
        observer_metric,
        metric,
        unit,

        ----------  numerics
        value,

        ----------  timestamps
        sampled_at

    from source

)

select * from renamed
