"""Add results: upload tool outputs (files, a folder as a .zip or .tar.gz, a run.yaml) with
labels; they are loaded by `ingest load`, then built, validated and published in the
background (app/lib/upload_job.py), and the page says when they are served or why not."""

from __future__ import annotations

import datetime as dt
import shlex

import streamlit as st

from app.lib import label_form, upload_job
from app.lib.upload_job import State, UploadJob, UploadRecord

POLL_S = 2.0
JOB_KEY = "upload_job_id"
ENDINGS = {
    State.SERVED: ("success", "The new results are being served: open RA comparison to see them."),
    State.NOTHING_NEW: ("info", "No file was stored (see the summary): nothing new to build."),
    State.LABELS_REFUSED: ("error", "A label was refused; nothing was loaded."),
    State.FAILED: ("error", "A step failed; the dashboard keeps serving the previous version."),
    State.NOT_PUBLISHED: (
        "error",
        "Validation failed: the dashboard keeps serving the previous version.",
    ),
    State.INTERRUPTED: (
        "warning",
        "The server stopped while this upload ran; its files are kept. These commands finish "
        "it (a file loaded already adds nothing):",
    ),
}


def label_fields(fields: tuple[label_form.LabelField, ...]) -> dict[str, object]:
    """One widget per label definition, two to a row."""
    values: dict[str, object] = {}
    columns = st.columns(2)
    for index, spec in enumerate(fields):
        with columns[index % 2]:
            key = f"label_{spec.key}"
            if spec.type in ("choice", "bool"):
                values[spec.key] = st.selectbox(spec.title, spec.options, key=key, help=spec.help)
            elif spec.type == "int":
                values[spec.key] = st.number_input(
                    spec.title,
                    min_value=spec.min_value,
                    max_value=spec.max_value,
                    value=None,
                    step=1,
                    key=key,
                    help=spec.help,
                )
            else:
                values[spec.key] = st.text_input(spec.title, key=key, help=spec.help)
    return values


def upload_form() -> None:
    fields = label_form.read_fields()
    with st.form("add_results"):
        files = st.file_uploader(
            "Tool outputs: files, folders as .zip or .tar.gz, a run.yaml",
            accept_multiple_files=True,
            key="upload_files",
            help=f"At most {st.get_option('server.maxUploadSize')} MB a file.",
        )
        st.markdown("**Labels** (what the results measured; they override a run.yaml)")
        values = label_fields(fields)
        extra = st.text_area(
            "Other labels, KEY=VALUE one a line", key="label_extra", placeholder="site=lab-2"
        )
        submitted = st.form_submit_button("Load, build and publish", type="primary")
    if submitted:
        start(files or [], label_form.label_args(fields, values, extra))


def start(files: list, labels: list[str]) -> None:
    if not files:
        st.warning("Choose at least one file to upload.")
        return
    root = upload_job.uploads_root()
    if root is None:
        st.error("This warehouse has no local folder for uploads: set PERF_UPLOAD_DIR.")
        return
    folder = upload_job.upload_folder(root, files[0].name, dt.datetime.now(dt.UTC))
    upload_job.save_files(folder, ((f.name, f.getvalue()) for f in files))
    st.session_state[JOB_KEY] = upload_job.start(folder, labels).id


def show_job(job: UploadJob) -> None:
    st.caption(f"Upload kept in `{job.folder}`")
    for step in job.done:
        with st.expander(
            f"{step.name}: exit status {step.exit_code}", expanded=step.name == "load"
        ):
            st.code(step.output or "(no output)", language=None, wrap_lines=True)
    if not job.finished.is_set():
        text = f"{job.state}: {job.step or 'waiting'}"
        st.progress(job.progress, text=text + (f" · {job.live[-1][:120]}" if job.live else ""))
        return
    kind, text = ENDINGS[job.state]
    if job.state is State.LABELS_REFUSED:  # the loader's words: the label and what it allows
        text += "\n\n" + (job.output("load") or "")
    getattr(st, kind)(text)


@st.fragment(run_every=POLL_S)
def follow(job_id: int) -> None:
    job = upload_job.job(job_id)
    if job is None:
        return
    show_job(job)
    if job.finished.is_set():
        st.rerun()  # the whole page: stop polling, and the served version's new data


if not upload_job.uploads_enabled():
    st.info("Uploads are turned off on this dashboard (PERF_UPLOADS=off).")
    st.stop()


def _steps_text(record: UploadRecord) -> str:
    return " · ".join(f"{step.name} {step.exit_code}" for step in record.done) or "-"


def uploads_list(records: list[UploadRecord]) -> None:
    """Every upload to this warehouse that its record tells of, newest first."""
    if not records:
        return
    with st.expander(f"Uploads to this warehouse ({len(records)})"):
        st.dataframe(
            {
                "folder": [r.folder.name for r in records],
                "state": [str(r.state) for r in records],
                "steps (exit status)": [_steps_text(r) for r in records],
                "labels": [" ".join(r.labels) for r in records],
            },
            hide_index=True,
        )
        for record in records:
            if record.state is State.INTERRUPTED:
                kind, text = ENDINGS[State.INTERRUPTED]
                getattr(st, kind)(
                    f"`{record.folder.name}`, during {record.step or 'its start'}: {text}"
                )
                st.code("\n".join(shlex.join(c) for c in record.finish_commands()), language="bash")


upload_form()
current = upload_job.job(st.session_state.get(JOB_KEY, 0))
if current is not None and not current.finished.is_set():
    follow(current.id)
elif current is not None:
    show_job(current)
if (root := upload_job.uploads_root()) is not None:
    uploads_list(upload_job.recorded_uploads(root))
