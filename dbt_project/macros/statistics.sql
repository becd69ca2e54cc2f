{% macro student_t_975(degrees_of_freedom) -%}
    {#- The 0.975 quantile of Student's t with the given degrees of freedom:
        the factor of a two-sided 95 % confidence interval of a mean from
        df + 1 independent values. Table values (any statistics text, e.g.
        Law & Kelton, Simulation Modeling and Analysis, Table T.1) to 30 df,
        the normal 1.960 beyond (t(30) is 2.042, within 4 %; the batch count
        is capped well below that by var `ci_max_batches`). NULL below 1 df:
        one value has no spread. -#}
    case
        when {{ degrees_of_freedom }} < 1 then null
        {%- for t in [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
            2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
            2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
            2.048, 2.045, 2.042
        ] %}
        when {{ degrees_of_freedom }} = {{ loop.index }} then {{ t }}
    {%- endfor %}
        else 1.960
    end
{%- endmacro %}

{% macro batch_count(interval_count, max_batches) -%}
    {#- Batches for the method of batch means over `interval_count`
        intervals: floor(sqrt(n)), at most `max_batches`. sqrt(n) lets both
        the batch count and the batch size grow with the series (batches
        long enough to be nearly independent, enough of them for a spread);
        Schmeiser (1982) shows little is gained beyond 10-30 batches. -#}
    least(
        cast(floor(sqrt({{ interval_count }})) as integer),
        {{ max_batches }}
    )
{%- endmacro %}

{% macro ci95_bound(mean, stddev, batches, sign) -%}
    {#- One bound of the 95 % confidence interval of a mean from `batches`
        batch means: mean +- t(b - 1, 0.975) * s / sqrt(b), s the sample
        standard deviation of the batch means (`sign` '-' or '+'). -#}
    ({{ mean }} {{ sign }} {{ student_t_975(batches ~ ' - 1') }}
        * ({{ stddev }} / sqrt({{ batches }})))
{%- endmacro %}
