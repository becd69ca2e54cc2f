{#- One workload on one testbed and storage (the grain), run on TCP and on
    RDMA: what each transport delivers per percent of host CPU. -#}
{%- set grain = [
    'testbed', 'storage', 'read_pct', 'random_pct', 'block_size_bytes',
    'outstanding_io',
] -%}
{#- the transports side by side: tcp_result_count, rdma_result_count,
    tcp_iops, rdma_iops, ... -#}
{%- set pivoted = [] -%}
{%- for measure in [
    'result_count', 'iops', 'throughput_mb_s', 'cpu_util_pct',
] -%}
    {%- for transport in ['tcp', 'rdma'] -%}
        {%- do pivoted.append(
            'max(' ~ measure ~ ") filter (where transport = '" ~ transport
            ~ "') as " ~ transport ~ '_' ~ measure
        ) -%}
    {%- endfor -%}
{%- endfor -%}

with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where testbed is not null and transport in ('tcp', 'rdma')

),

transports_aggregated as (

    -- repeats of one workload on one transport are averaged; storage is
    -- part of the grain (JBOF runs are not local NVMe runs)
    select
        {%- for column in grain %}
            {{ column }},
        {%- endfor %}
        transport,
        count(*) as result_count,
        avg(iops) as iops,
        avg(throughput_mb_s) as throughput_mb_s,
        avg(cpu_util_pct) as cpu_util_pct

    from fct_workload_results
    group by all

),

transports_pivoted as (

    select
        {%- for column in grain + pivoted %}
            {{ column }},
        {%- endfor %}
        count(distinct transport) as transport_count

    from transports_aggregated
    group by all
    having transport_count = 2

),

efficiency_computed as (

    select
        -- dimensions
        {{ testbed_id('testbed') }} as testbed_id,
        testbed,
        storage,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,

        -- facts
        tcp_result_count,
        rdma_result_count,
        tcp_iops,
        rdma_iops,
        tcp_throughput_mb_s,
        rdma_throughput_mb_s,
        tcp_cpu_util_pct,
        rdma_cpu_util_pct,
        tcp_iops / nullif(tcp_cpu_util_pct, 0) as tcp_iops_per_cpu_pct,
        rdma_iops / nullif(rdma_cpu_util_pct, 0) as rdma_iops_per_cpu_pct,
        {{ pct_change('rdma_iops_per_cpu_pct', 'tcp_iops_per_cpu_pct') }}
            as rdma_efficiency_gain_pct,
        tcp_throughput_mb_s
        / nullif(tcp_cpu_util_pct, 0) as tcp_mb_s_per_cpu_pct,
        rdma_throughput_mb_s
        / nullif(rdma_cpu_util_pct, 0) as rdma_mb_s_per_cpu_pct,
        {{ pct_change('rdma_mb_s_per_cpu_pct', 'tcp_mb_s_per_cpu_pct') }}
            as rdma_throughput_efficiency_gain_pct

    from transports_pivoted

)

select * from efficiency_computed
