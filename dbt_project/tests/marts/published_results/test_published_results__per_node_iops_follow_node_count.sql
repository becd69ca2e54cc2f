-- per_node_iops divides a result's IOPS by its `nodes`: Micron Figure 10's
-- 486,099 IOPS over 4 nodes = 121,525 per node, which the text publishes as
-- "over 120K" per node. A per-node figure qualified `more_than` must not
-- exceed IOPS / nodes of its table figure; an `exact` one must round to it.
with

iops_per_node as (

    select * from {{ ref('published_results') }}
    where metric = 'iops_per_node' and nodes is not null

),

iops as (

    select * from {{ ref('published_results') }}
    where metric = 'iops' and qualifier = 'exact' and nodes is not null

),

per_node_recomputed as (

    select
        iops_per_node.figure_id,
        iops_per_node.qualifier,
        iops_per_node.value,
        max(iops.value / iops.nodes) as iops_per_node

    from iops_per_node
    inner join iops
        on
            iops_per_node.source_document = iops.source_document
            and iops_per_node.testbed = iops.testbed
            and iops_per_node.profile is not distinct from iops.profile
            and iops_per_node.working_set is not distinct from iops.working_set
            and iops_per_node.read_pct is not distinct from iops.read_pct
            and iops_per_node.block_size_bytes
            is not distinct from iops.block_size_bytes
            and iops_per_node.nodes = iops.nodes
    group by all

)

select * from per_node_recomputed
where
    (qualifier = 'more_than' and iops_per_node < value)
    or (qualifier = 'exact' and round(iops_per_node) != value)
