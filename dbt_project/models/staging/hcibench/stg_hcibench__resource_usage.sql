with

source as (

    select * from {{ source('hcibench', 'hcibench_resource_usage') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        case_name,

        ----------  text
        origin,
        cluster_name,
        host_name,

        ----------  numerics
        cpu_usage_pct,
        cpu_utilization_pct,
        mem_usage_pct,
        vsan_pcpu_usage_pct,

        ----------  booleans
        is_average

    from source

)

select * from renamed
