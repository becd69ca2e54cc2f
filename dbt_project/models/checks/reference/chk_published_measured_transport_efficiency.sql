{#- The value of transport_cpu_efficiency a published figure can be
    compared with: each RDMA-vs-TCP pair's efficiency gain, with the labels
    of the RDMA result (the pair differs in the transport alone). -#}

with

{{ import_ctes(['transport_cpu_efficiency', 'int_published_result_labels']) }},

transport_efficiency_unpivoted as (

    -- an RDMA-vs-TCP comparison: transport `rdma` against `tcp`
    select
        int_published_result_labels.*,
        'transport_cpu_efficiency' as target_mart,
        transport_cpu_efficiency.transport_pair_id as matched_key,
        'tcp' as compared_to,
        cast([] as varchar[]) as uncarried_labels,
        'rdma_efficiency_gain_pct' as metric,
        transport_cpu_efficiency.rdma_efficiency_gain_pct as measured_value

    from transport_cpu_efficiency
    inner join int_published_result_labels
        on
            transport_cpu_efficiency.rdma_result_id
            = int_published_result_labels.labelled_result_id

)

select * from transport_efficiency_unpivoted
