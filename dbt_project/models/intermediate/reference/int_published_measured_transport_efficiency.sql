{#- The value of transport_cpu_efficiency a published figure can be
    compared with: each workload's RDMA efficiency gain against TCP. -#}

with

transport_cpu_efficiency as (

    select * from {{ ref('transport_cpu_efficiency') }}

),

transport_efficiency_unpivoted as (

    -- an RDMA-vs-TCP comparison: transport `rdma` against `tcp`
    select
        'transport_cpu_efficiency' as target_mart,
        concat_ws(
            '|', testbed, storage, read_pct, random_pct, block_size_bytes,
            outstanding_io
        ) as matched_key,
        testbed,
        'rdma' as transport,
        storage,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        'tcp' as compared_to,
        {{ labels_not_in([
            'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io',
            'transport', 'storage',
        ]) }} as uncarried_labels,
        'rdma_efficiency_gain_pct' as metric,
        rdma_efficiency_gain_pct as measured_value

    from transport_cpu_efficiency

)

select * from transport_efficiency_unpivoted
