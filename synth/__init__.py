"""Synthetic tool outputs: the inverse of `ingest`, one module per tool format.

- per format: `fio_json`, `vdbench_text`, `hcibench_case`, `esxtop_csv` (and `esxtop_wide` for
  wide benchmark captures built on it), `vsan_capacity` (VsanSpaceUsage JSON); `fio_results`
  splits a published result into per-VM fio outputs;
- `studies/`: the five reference studies, their numbers read from the seed by `published`;
  `dataset.write_reference_dataset` writes them all (`python -m synth reference DIR`);
- `fixtures/`: the makers of the committed test fixtures (`python -m synth fixtures`);
- `history`: a run history of one configuration in fio JSON, re-dated over weeks with a step
  change after an "upgrade" and one outlier run (`python -m synth history FIO_JSON DIR`).
"""
