import subprocess
import sys


def test_import_fsviz_does_not_import_streamlit():
    code = (
        "import sys, fsviz, fsviz.data, fsviz.select, fsviz.stats, fsviz.evaluate; "
        "assert 'streamlit' not in sys.modules, 'fsviz imported streamlit'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_version():
    import fsviz

    assert fsviz.__version__
