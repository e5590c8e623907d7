"""How the report (:mod:`fsviz.report`) looks on screen and on paper: its stylesheet, and its
figures sized for A4 with stable div ids (WebGL scatter traces drawn as SVG so that a printed
page and a browser without WebGL show them)."""

from __future__ import annotations

import html

__all__ = ["CONFIG", "CSS", "FIG_MAX_HEIGHT", "FIG_WIDTH", "SVG_MAX_POINTS", "Figures", "as_svg"]

#: figure width in CSS pixels: an A4 page (210 mm) minus 15 mm margins at 96 dpi is 680 px
FIG_WIDTH = 680


#: figures never taller than this (an A4 page's printable height is about 1,000 px)
FIG_MAX_HEIGHT = 900


CONFIG = {"displaylogo": False, "responsive": False}


#: WebGL scatter traces up to this many points are drawn as SVG in a report
SVG_MAX_POINTS = 20_000


def as_svg(fig):
    """The figure with its WebGL scatter traces (PCA) as SVG ``scatter`` traces: a printed page
    and a browser without WebGL draw them too; larger traces stay WebGL."""
    import plotly.graph_objects as go

    if not any(t.type == "scattergl" for t in fig.data):
        return fig
    data = []
    for t in fig.data:
        if t.type == "scattergl" and len(t.x if t.x is not None else ()) <= SVG_MAX_POINTS:
            props = t.to_plotly_json()
            props.pop("type", None)
            t = go.Scatter(props)
        data.append(t)
    return go.Figure(data=data, layout=fig.layout)


class Figures:
    """Figures of one document: stable, unique div ids; sized for A4."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def __call__(self, fig, fid: str, caption: str = "") -> str:
        if fid in self.ids:
            raise ValueError(f"report: figure id {fid!r} used twice.")
        self.ids.append(fid)
        import plotly.io as pio

        fig = as_svg(fig)
        height = fig.layout.height or 450
        fig.update_layout(width=FIG_WIDTH, height=min(int(height), FIG_MAX_HEIGHT), autosize=False)
        # plotly's own template, whatever the process default: Streamlit sets its "streamlit"
        # template (placeholder colours its frontend replaces), which would change the bytes
        # and the look of the app's report
        fig.layout.template = pio.templates["plotly"]  # assigned: update_layout would merge
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=fid, config=CONFIG)
        cap = f"<figcaption>{html.escape(caption, quote=True)}</figcaption>" if caption else ""
        return f'<figure class="plot">{div}{cap}</figure>'


CSS = """
:root { --ink: #1d1d1f; --muted: #5f6368; --rule: #d9d9de; --accent: #0072B2; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); margin: 0 auto; max-width: 760px; padding: 24px 40px 48px; line-height: 1.45;
  font-size: 14px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-top: 8px; border-top: 2px solid var(--rule); }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.sub, p.prov, p.protocol, p.note, figcaption, caption { color: var(--muted); font-size: 12px; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 11.5px; }
p.prov code { word-break: break-all; }
pre.code { background: #f6f8fa; border: 1px solid var(--rule); padding: 8px 10px; white-space: pre-wrap;
  word-break: break-all; }
table { border-collapse: collapse; margin: 6px 0 10px; width: 100%; table-layout: auto; }
th, td { border-bottom: 1px solid var(--rule); padding: 3px 6px; text-align: left; vertical-align: top; }
thead th { background: #f2f3f5; font-weight: 600; }
table.facts th { width: 34%; font-weight: 600; color: var(--muted); }
table.small { font-size: 12px; }
table.wrap td { overflow-wrap: break-word; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { text-align: left; caption-side: top; padding-bottom: 2px; }
figure.plot { margin: 8px 0 14px; width: 680px; }
nav ol { margin: 4px 0; padding-left: 20px; columns: 2; }
ul.fills { margin: 4px 0 8px; padding-left: 20px; }
@page { size: A4; margin: 15mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  .modebar-container { display: none !important; }
  figure.plot, table.facts, pre.code { break-inside: avoid; page-break-inside: avoid; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  nav { display: none; }
}
"""
