{#- The results' interval series, as int_result_intervals_summed builds
    them: the logic lives there because the steady-state models read it
    too, and no intermediate model reads a mart. -#}
with

{{ import_ctes(['int_result_intervals_summed']) }}

select * from int_result_intervals_summed
