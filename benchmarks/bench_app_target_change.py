"""The Data page's target change and sample-sheet join at width, through AppTest (issue 45).

The methylation-like table of ``app_width_journey.py`` (``sample_id`` + ``m`` float32 probes, 1 %
missing, Parquet) is opened from the server folder, its sample sheet joined, the target changed
three times (``sex``, back to ``diagnosis``, ``age``) and the page rerun twice unchanged. Each
step prints two times from the click: **page drawn** (the Data page has sent its last element,
"First rows": what a person sees) and **run** (the script run is over, the leakage check
included, which runs beside the page in a parallel fragment). The bare ``assemble`` of the
same plan is the floor of a target change (``bench_app_responsiveness.py --kind methylation``
times it). The code measured is the one imported (``PYTHONPATH``): run it from another
checkout to compare::

    PYTHONPATH=$PWD python benchmarks/bench_app_target_change.py --shape 300x20000
    PYTHONPATH=/path/to/other/checkout python benchmarks/bench_app_target_change.py --shape 300x20000

AppTest drives the script in this process (no browser, no transfer): the times are the server's
share of each step. The data are written once into ``--folder`` (default: a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # app_width_journey beside this file


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="300x20000", help="samples x probes, e.g. 300x100000")
    ap.add_argument("--folder", default=None, help="where the table is written (kept, reused)")
    a = ap.parse_args()
    n, m = (int(v) for v in a.shape.lower().split("x"))
    folder = Path(a.folder or tempfile.mkdtemp(prefix="fsviz-target-")) / f"m{m}"
    folder.mkdir(parents=True, exist_ok=True)

    from app_width_journey import methylation_files
    from streamlit.testing.v1 import AppTest

    import fsviz.compute as fc
    import fsviz_app

    path, sheet = methylation_files(folder, n, m)
    os.environ["FSVIZ_DATA_DIR"] = str(folder)
    app = Path(fsviz_app.__file__).resolve().parents[1] / "app.py"
    print(f"{n} x {m:,} from {app.parent}; load at start {os.getloadavg()[0]:.1f}")
    warnings.simplefilter("ignore")

    drawn: dict[str, float] = {}
    preview = fc.preview_frame

    def first_rows(ds, *args, **kw):  # the Data page's last element: the page is drawn
        drawn["t"] = time.perf_counter()
        return preview(ds, *args, **kw)

    fc.preview_frame = first_rows
    at = AppTest.from_file(str(app), default_timeout=1800).run()
    at.radio(key="source").set_value("Server folder").run()

    def step(name: str, act) -> None:
        drawn.clear()
        t0 = time.perf_counter()
        act()
        t1 = time.perf_counter()
        if at.exception:
            raise SystemExit(f"{name}: {[e.value for e in at.exception]}")
        page = drawn.get("t", t1) - t0
        print(f"{name:<24} page drawn {page:6.2f} s   run {t1 - t0:6.2f} s   load {os.getloadavg()[0]:.1f}")

    step("open", lambda: at.selectbox(key="folder_file").set_value(path.name).run())
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    upload = ("samples.csv", sheet.read_bytes(), "text/csv")
    step("join the sample sheet", lambda: box.set_value(upload).run())
    for target in ("sex", "diagnosis", "age"):
        picker = next(s for s in at.sidebar.selectbox if s.label == "Target column")
        step(f"target -> {target}", lambda p=picker, t=target: p.set_value(t).run())
    for i in (1, 2):
        step(f"rerun, unchanged ({i})", at.run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
