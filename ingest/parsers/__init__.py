"""One module (or package) per source format; see `ingest.registry` for the contract.

Every parser is used the same way; its docstring opens with the one line that differs (the
module and its main table) and a real input with the rows it yields:

    python -m ingest load PATH ...   # picks the parser whose detect() accepts each file

    from ingest.parsers import fio
    from ingest.sources import source_for

    path = "randread-1-1.json"
    data = open(path, "rb").read()
    parsed = fio.parse(data, source_for(path, data))
    parsed.tables["fio_job_directions"]   # rows; also parsed.notes, parsed.no_result_reason

Every `detect` first refuses a document about outputs (`_common.is_document`: Markdown,
reStructuredText or AsciiDoc by name, a Markdown code fence or table row in any file): a README
or PROVENANCE.md quotes tool lines but is no tool's output, so the loader skips it.
"""
