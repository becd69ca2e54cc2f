{#- The results' steady states and confidence intervals, as
    int_result_steady_state_estimated builds them: the logic lives there
    because int_comparison_configurations reads it too, and no intermediate
    model reads a mart. -#}
with

{{ import_ctes(['int_result_steady_state_estimated']) }}

select * from int_result_steady_state_estimated
