"""The explorer: a Streamlit app on the library (``fsviz app`` starts it; in a checkout
``streamlit run app.py``). ``appkit`` holds its helpers, one module per concern; ``views`` its
pages. ``import fsviz`` never imports this package (nor Streamlit)."""
