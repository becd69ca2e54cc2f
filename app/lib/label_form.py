"""The Add results page's label form: one field per row of label_definitions.csv.

The seed (`dbt_project/seeds/label_definitions.csv`) says each label's type, range, allowed
values and unit; the form draws a field that can only hold that type (a choice or a yes/no is
picked from its values, a whole number stays within its range) and turns what was filled in
into `--label KEY=VALUE` arguments. The checks themselves are `ingest load --label`'s own
(`ingest.labels.parse_label_args`), run by the upload job: the app does not import `ingest`
(docs/ARCHITECTURE.md), and a second copy of the rules would drift from the one dbt casts with.
What the fields cannot hold (a size, a list of profiles, labels typed as KEY=VALUE lines) is
checked there, and a refusal comes back naming the label and what it allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from warehouse.label_seed import LABEL_SEED, LabelRow, read_label_rows

# How a field shows that nothing was chosen (the label is then not given).
UNSET = ""


@dataclass(frozen=True, slots=True)
class LabelField(LabelRow):
    """One row of label_definitions.csv, as the form draws it."""

    @property
    def title(self) -> str:
        """The field's label: the key as `--label` takes it, and its unit."""
        return f"{self.key} ({self.unit})" if self.unit else self.key

    @property
    def help(self) -> str:
        limits = ""
        if self.min_value is not None or self.max_value is not None:
            limits = f" From {self.min_value} to {self.max_value}."
        if self.type == "text_list":
            limits = " Names separated by commas."
        return f"{self.meaning}.{limits}"

    @property
    def options(self) -> tuple[str, ...]:
        """A choice's or a yes/no's values, the first meaning "not given"."""
        if self.type == "bool":
            return (UNSET, "true", "false")
        return (UNSET, *self.allowed)


def read_fields(path: Path = LABEL_SEED) -> tuple[LabelField, ...]:
    """The form's fields, in the seed's order."""
    return read_label_rows(path, LabelField)


def _arg_text(field: LabelField, value: object) -> str | None:
    """The VALUE of `--label KEY=VALUE` for a filled field, None for an empty one."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():  # st.number_input's step=1 floats
        value = int(value)
    text = str(value).strip()
    if not text:
        return None
    if field.type == "text_list":
        # a YAML flow list, as `--label profile_order=[a, b]` is typed
        return "[" + ", ".join(name.strip() for name in text.split(",") if name.strip()) + "]"
    return text


def label_args(
    fields: tuple[LabelField, ...], values: Mapping[str, object], extra: str
) -> list[str]:
    """`KEY=VALUE` for every filled field, then the extra lines (`KEY=VALUE`, one a line:
    free-form labels, or a known one typed by hand; a later one wins, as with `--label`)."""
    args = [
        f"{field.key}={text}"
        for field in fields
        if (text := _arg_text(field, values.get(field.key))) is not None
    ]
    return args + [line.strip() for line in extra.splitlines() if line.strip()]
