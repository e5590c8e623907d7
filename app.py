"""The explorer in a checkout: ``streamlit run app.py`` (``make run``). The app itself is
:mod:`fsviz_app.main`, which ``fsviz app`` runs from the installed package; Streamlit runs this
script on every interaction, so it runs the module afresh each time (an import would run it once)."""

import runpy

runpy.run_module("fsviz_app.main", run_name="__main__")
