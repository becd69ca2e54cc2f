with

source as (

    select * from {{ source('vsan_perfsvc', 'vsan_perfsvc_samples') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        entity_id,

        ----------  text
        source_kind,
        entity_type,
        metric,
        powercli_name,
        unit,

        ----------  numerics
        value,
        collect_interval_s,

        ----------  booleans
        is_client_local_time,

        ----------  timestamps
        sampled_at

    from source

)

select * from renamed
