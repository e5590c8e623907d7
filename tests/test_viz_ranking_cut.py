"""fsviz.viz.ranking_cut: the kept features left of the line, the rule named."""

import numpy as np

from fsviz.viz import ranking_cut


def test_ranking_cut_splits_at_k_and_names_the_rule():
    scores = np.array([0.1, 5.0, 3.0, 0.2, 4.0])
    fig = ranking_cut(scores, 2, "fdr:0.05", ["a", "b", "c", "d", "e"], qvalues=[0.9, 0.01, 0.2, 0.8, 0.02])
    kept, left = fig.data
    assert list(kept.y) == [5.0, 4.0] and list(left.y) == [3.0, 0.2, 0.1]
    assert "q = 0.01" in kept.text[0] and kept.text[0].startswith("#1 b")
    assert fig.layout.shapes[0].x0 == 2.5 and "fdr:0.05: 2 kept" in fig.layout.annotations[0].text
    assert ranking_cut(scores, 0, "stability:0.8", value="selection probability").layout.yaxis.title.text == (
        "selection probability"
    )
