"""Plotly figure builders: pure functions from results to ``go.Figure``."""
