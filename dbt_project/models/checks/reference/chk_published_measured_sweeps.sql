{#- The values of sweeps a published figure can be compared with: one row
    per sweep x metric that applies to its axis, with the labels its points
    hold equal (a label that varies along the sweep is not compared). An
    "optimal block size" is any block size near the best throughput
    (several, Samsung: "64 KB and 128 KB"): one row per such value, marked
    `is_one_of` (the figure holds when one of them does). -#}

with

{{ import_ctes(['sweeps', 'sweep_points', 'int_published_result_labels']) }},

sweep_labels as (

    -- a label equal on every point is the sweep's; one that varies (the
    -- axis, the VM count and total outstanding I/O of a VM-count sweep) is
    -- not compared
    select
        sweep_points.sweep_id,
        {%- for label in published_labels() %}
            case
                when count(distinct int_published_result_labels.{{ label }}) = 1
                    then any_value(int_published_result_labels.{{ label }})
            end as {{ label }},
        {%- endfor %}
        list_filter(
            [
                {%- for label in published_labels() %}
                    case
                        when
                            count(
                                distinct int_published_result_labels.{{ label }}
                            )
                            > 1
                            then '{{ label }}'
                    end{{ ',' if not loop.last }}
                {%- endfor %}
            ],
            label -> label is not null
        ) as uncarried_labels

    from sweep_points
    inner join int_published_result_labels
        on
            sweep_points.result_id
            = int_published_result_labels.labelled_result_id
    group by sweep_points.sweep_id

),

vm_count_sweeps as (

    -- the knee of a VM-count sweep, as the VM count of the cluster
    select
        sweep_id,
        false as is_one_of,
        cast(knee_vm_count as double) as latency_knee_vm_count,
        cast(best_iops_outstanding_io_per_host as double)
            as optimal_outstanding_io_per_host
    from sweeps
    where axis = 'vms_per_host'

),

sweep_values as (

    select
        sweep_id,
        'optimal_block_size_bytes' as metric,
        unnest(near_best_throughput_axis_values) as measured_value,
        true as is_one_of
    from sweeps
    where axis = 'block_size_bytes'

    union all by name

    select * from (
        {{ unpivot_metrics(
            'vm_count_sweeps',
            ['latency_knee_vm_count', 'optimal_outstanding_io_per_host']
        ) }}
    ) as vm_count_values

),

sweep_values_labelled as (

    select
        sweep_labels.* exclude (sweep_id),  -- noqa: RF02
        'sweeps' as target_mart,
        sweeps.testbed,
        sweeps.sweep_id as matched_key,
        sweep_values.metric,
        sweep_values.measured_value,
        sweep_values.is_one_of

    from sweep_values
    inner join sweeps on sweep_values.sweep_id = sweeps.sweep_id
    inner join sweep_labels on sweep_values.sweep_id = sweep_labels.sweep_id

)

select * from sweep_values_labelled
