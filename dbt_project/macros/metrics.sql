{% macro pct_change(new_value, old_value) -%}
    {#- CONTRACT.md: percent deltas are 100 * (new - old) / old; NULL when the
        old value is zero or unknown. -#}
    (100.0 * ({{ new_value }} - {{ old_value }}) / nullif({{ old_value }}, 0))
{%- endmacro %}

{% macro capacity_multiplier(ftm, ftt, architecture, nodes='null') -%}
    {#- Raw capacity one byte of data takes under the storage policy
        (CONTRACT.md section 3), from seeds/storage_policy_rules.csv (the
        one place the policy rules live) as int_storage_policy_rules_by_
        cluster_size resolves them. An unlabelled architecture is OSA
        (every vSAN before 8.0). ESA RAID-5 depends on the cluster size
        (2+1 on 3-5 hosts = 1.5, 4+1 on 6 or more = 1.25): NULL without
        `nodes`, as is any policy the rules do not know. The rules'
        columns are renamed so that the caller's unqualified column names
        can only mean the caller's columns. -#}
    (
        select rules.rule_capacity_multiplier
        from (
            select
                architecture as rule_architecture,
                ftm as rule_ftm,
                ftt as rule_ftt,
                cluster_nodes as rule_cluster_nodes,
                capacity_multiplier as rule_capacity_multiplier
            from {{ ref('int_storage_policy_rules_by_cluster_size') }}
        ) as rules
        where
            rules.rule_architecture = coalesce({{ architecture }}, 'OSA')
            and rules.rule_ftm = {{ ftm }}
            and rules.rule_ftt = {{ ftt }}
            and rules.rule_cluster_nodes is not distinct from {{ nodes }}
    )
{%- endmacro %}

{% macro storage_policy_rule_of(relation, rules='rules') -%}
    {#- The join condition that finds a row's storage-policy rule in
        int_storage_policy_rules_by_cluster_size (aliased `rules`): the
        same match as capacity_multiplier, an unlabelled architecture
        being OSA and the cluster size choosing the ESA RAID-5 layout. -#}
    coalesce({{ relation }}.architecture, 'OSA') = {{ rules }}.architecture
    and {{ relation }}.ftm = {{ rules }}.ftm
    and {{ relation }}.ftt = {{ rules }}.ftt
    and {{ relation }}.nodes is not distinct from {{ rules }}.cluster_nodes
{%- endmacro %}

{% macro weighted_mean(value, weight, where=none) -%}
    {#- Mean of `value` weighted by `weight` (I/O count or rate) over the
        rows `where` selects; rows without a value carry no weight. Means
        of means are never plain averages (CONTRACT.md section 3). -#}
    {%- set filter = (where ~ ' and ') if where else '' -%}
    sum({{ value }} * {{ weight }})
    {%- if where %} filter (where {{ where }}){% endif %}
    / nullif(
        sum({{ weight }}) filter (where {{ filter }}{{ value }} is not null),
        0
    )
{%- endmacro %}

{% macro iops_split_by_read_pct(iops, read_pct) -%}
    {#- IOPS summed over outputs that print one IOPS figure and their read
        share (a Vdbench or HCIBench VM's report), and its read and write
        parts: each output's IOPS times its read (write) percentage. -#}
    sum({{ iops }}) as iops,
    sum({{ iops }} * {{ read_pct }} / 100.0) as read_iops,
    sum({{ iops }} * (100.0 - {{ read_pct }}) / 100.0) as write_iops
{%- endmacro %}

{% macro summed_outputs(relation, output_id, latency, weight) -%}
    {#- A result's outputs (fio jobs, Vdbench reports) over one interval:
        how many reported, IOPS and MB/s summed, the mean latency weighted
        by I/O (`weight`: I/O count or rate). -#}
    count(distinct {{ relation }}.{{ output_id }}) as output_count,
    sum({{ relation }}.iops) as iops,
    sum({{ relation }}.throughput_mb_s) as throughput_mb_s,
    {{ weighted_mean(relation ~ '.' ~ latency, relation ~ '.' ~ weight) }}
    as avg_latency_ms
{%- endmacro %}

{% macro agreed_value(column_name) -%}
    {#- The one value the rows of a group share; NULL when they disagree (a
        result mixing workloads has no single block size). -#}
    case
        when min({{ column_name }}) = max({{ column_name }})
            then min({{ column_name }})
    end
{%- endmacro %}
