with

source as (

    select * from {{ source('hcibench', 'hcibench_unfinished_vms') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        case_name,
        block_index,

        ----------  text
        datastore_name,
        vm_name,
        listed_file,
        reason

    from source

)

select * from renamed
