{#- One row per pair of configurations that differ in the transport alone
    (every other label held equal; repeated runs are one configuration,
    their mean): what TCP and RDMA each deliver per percent of host CPU. -#}
{%- set measures = [
    'run_count', 'iops', 'throughput_mb_s', 'cpu_util_pct', 'cpu_load_avg',
] -%}

with

{{ import_ctes(['int_comparison_configurations', 'fct_workload_results']) }},

int_result_comparison_dimensions as (

    select * from {{ ref('int_result_comparison_dimensions') }}
    where dimension = 'transport'

),

configurations_on_transports as (

    select
        int_comparison_configurations.*,
        int_result_comparison_dimensions.dimension_value as transport,
        int_result_comparison_dimensions.signature_without_dimension

    from int_comparison_configurations
    inner join int_result_comparison_dimensions
        on
            int_comparison_configurations.first_result_id
            = int_result_comparison_dimensions.result_id

),

tcp_configurations as (

    select * from configurations_on_transports
    where transport = 'tcp'

),

rdma_configurations as (

    select * from configurations_on_transports
    where transport = 'rdma'

),

transports_paired as (

    select
        tcp_configurations.first_result_id as tcp_result_id,
        rdma_configurations.first_result_id as rdma_result_id,
        {%- for measure in measures %}
            tcp_configurations.{{ measure }} as tcp_{{ measure }},
            rdma_configurations.{{ measure }} as rdma_{{ measure }},
        {%- endfor %}
        tcp_configurations.testbed_id

    from tcp_configurations
    inner join rdma_configurations
        on
            tcp_configurations.signature_without_dimension
            = rdma_configurations.signature_without_dimension

),

efficiency_computed as (

    select
        -- identifiers
        {{ hashed_key(['tcp_result_id', 'rdma_result_id']) }}
            as transport_pair_id,
        transports_paired.tcp_result_id,
        transports_paired.rdma_result_id,
        transports_paired.testbed_id,

        -- dimensions: the context both transports share
        fct_workload_results.testbed,
        fct_workload_results.storage,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,
        fct_workload_results.vm_count,
        fct_workload_results.nodes,
        fct_workload_results.profile,

        -- facts
        transports_paired.tcp_run_count as tcp_result_count,
        transports_paired.rdma_run_count as rdma_result_count,
        {%- for measure in measures if measure != 'run_count' %}
            transports_paired.tcp_{{ measure }},
            transports_paired.rdma_{{ measure }},
        {%- endfor %}
        {#- work per CPU percent on each side, and RDMA's gain over TCP -#}
        {%- for measure, per_cpu, gain in [
            ('iops', 'iops_per_cpu_pct', 'rdma_efficiency_gain_pct'),
            (
                'throughput_mb_s', 'mb_s_per_cpu_pct',
                'rdma_throughput_efficiency_gain_pct'
            ),
        ] %}
        {%- for side in ['tcp', 'rdma'] %}
            transports_paired.{{ side }}_{{ measure }}
            / nullif(transports_paired.{{ side }}_cpu_util_pct, 0)
                as {{ side }}_{{ per_cpu }},
        {%- endfor %}
        {{ pct_change('rdma_' ~ per_cpu, 'tcp_' ~ per_cpu) }}
            as {{ gain }}{{ "," if not loop.last }}
    {%- endfor %}

    from transports_paired
    inner join fct_workload_results
        on transports_paired.tcp_result_id = fct_workload_results.result_id

)

select * from efficiency_computed
