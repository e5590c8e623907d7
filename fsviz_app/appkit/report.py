"""The sidebar's report download: one self-contained HTML file of the runs kept in this session."""

from __future__ import annotations

import re

import streamlit as st

from fsviz.compute import Run
from fsviz_app.appkit.state import ResultKey, per_dataset, result_store
from fsviz_app.appkit.widgets import param_number


def report_download(ds) -> None:
    """Sidebar: "Download report", one self-contained HTML file (:mod:`fsviz.report`) of the runs
    kept in this session, all or those chosen, from any page.

    The runs are read from the session's ``shown`` and ``selections`` (in the order of the
    session file, so ``fsviz report DATA --runs <that file>`` writes the same document apart from
    the date). Like the session file, the document is made at the click, from this session's own
    dicts: a run the page adds in the same rerun is in it; results come from the store (computed
    and stored when missing).
    """
    import html

    from fsviz.report import REPORT_VIEWS, build_report, session_runs

    shown, sels, store = per_dataset("shown", ds), per_dataset("selections", ds), result_store()

    def kept() -> list[Run]:
        doc = {  # the order of the session file: ``fsviz report --runs`` draws the same document
            "shown": {slot: run.to_dict() for slot, run in list(shown.items())},
            "selections": [{"run": run.to_dict(), "k": k} for run, k in list(sels)],
        }
        return [r for r in session_runs(doc) if r.spec.selects or r.method in REPORT_VIEWS]

    runs = {r.key: r for r in kept()}
    with st.expander("Report"):
        chosen = []
        if runs:  # listed as of this rerun; the page below may still add one (in when none is chosen)
            chosen = st.multiselect(
                "Runs in the report",
                list(runs),
                format_func=lambda key: f"{runs[key].label}, seed {runs[key].seed}",
                key="report_runs",
                placeholder="all runs",
                help="None chosen: every run kept in this session at the click, the latest included.",
            )
        k = param_number(st, "evaluation", "k", key="report_k", label="Top-k rows and features evaluated")

        def results(run: Run):
            key = ResultKey(ds.fingerprint, run.key)
            hit = store.get(key)
            if hit is None:
                hit = run.execute(ds, results=results)
                store.put(key, hit)
            return hit

        def make() -> bytes:
            now = kept()  # the session's order, whatever the order of the clicks
            picked = [r for r in now if r.key in set(chosen)] if chosen else now
            try:
                return build_report(ds, picked, k=int(k), results=results).encode("utf-8")
            except Exception as e:  # a download cannot show st.error: the file says what failed
                return (
                    f"<!DOCTYPE html><title>fsviz report failed</title><p>{html.escape(str(e))}</p>".encode()
                )

        name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{ds.name}_fsviz-report").strip("-_")[:150] + ".html"
        st.download_button(
            "Download report (HTML)",
            make,
            file_name=name,
            mime="text/html",
            on_click="ignore",
            key="report_dl",
            help="One self-contained HTML file of the runs kept in this session (or those chosen): dataset, "
            "provenance, every run's figures (interactive), top-k tables, CV quality, and how to reproduce "
            "it. Works offline; prints to PDF on A4.",
        )
