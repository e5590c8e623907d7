"""Evaluations that cannot be computed say why; leave-one-out handles classes of one sample."""

import numpy as np
import pytest

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz.data import Dataset
from fsviz.evaluate import cv_accuracy


@pytest.fixture(scope="module")
def tiny_classes():
    """NCI60-like: 40 samples, 6 classes, two of them with a single sample."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(6), [12, 12, 8, 6, 1, 1])
    X = rng.normal(size=(40, 30))
    X[:, :3] += y[:, None]
    names = np.array(["renal", "breast", "colon", "lung", "prostate", "unknown"])
    return Dataset(X, y=names[y], name="tiny classes")


def test_a_class_of_one_sample_gives_a_note_not_nan_alone(tiny_classes):
    ev = Run("evaluation", {"of": Run("fisher"), "k": 5}).execute(tiny_classes)
    assert np.isnan(ev.cv_accuracy) and ev.n_folds == 0
    assert "2 classes with a single sample" in ev.note
    assert "'prostate'" in ev.note and "'unknown'" in ev.note and "leave-one-out" in ev.note
    assert fc.quality_text(ev) == "—" and fc.evaluation_note(ev) == ev.note


def test_leave_one_out_runs_where_stratified_folds_cannot(tiny_classes):
    ev = Run("evaluation", {"of": Run("fisher"), "k": 5, "cv": "loo"}).execute(tiny_classes)
    assert np.isfinite(ev.cv_accuracy) and ev.n_folds == tiny_classes.n_samples and ev.note == ""
    assert fc.quality_text(ev).count("±") == 1


def test_cv_accuracy_loo_matches_a_hand_loop(tiny_classes):
    from sklearn.model_selection import LeaveOneOut, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = tiny_classes.X, tiny_classes.y
    ours = cv_accuracy(X, y, np.arange(5), model="knn", n_splits="loo")
    ref = cross_val_score(
        make_pipeline(StandardScaler(), KNeighborsClassifier(1)), X[:, :5], y, cv=LeaveOneOut()
    )
    assert ours.fold_scores.shape == (40,) and ours.mean == pytest.approx(ref.mean())
    with pytest.raises(ValueError, match="'n_splits' must be an int >= 2 or 'loo'"):
        cv_accuracy(X, y, np.arange(5), n_splits="lol")


def test_unknown_cv_scheme_is_refused(tiny_classes):
    with pytest.raises(ValueError, match="'cv' must be one of"):
        Run("evaluation", {"of": Run("fisher"), "k": 5, "cv": "kfold"}).execute(tiny_classes)


def test_compare_table_says_why_cells_are_empty(tiny_classes):
    run = Run("fisher")
    sel = run.execute(tiny_classes).selection(5)
    ev = Run("evaluation", {"of": run, "k": 5}).execute(tiny_classes)
    frame = fc.compare_frame([(sel, ev, None), (sel, None, None)])
    assert list(frame["note"]) == [ev.note, "not evaluated yet: press Evaluate"]
    assert "single sample" in fc.compare_chart_note(frame, biased=False)
    ok = Run("evaluation", {"of": run, "k": 5, "cv": "loo"}).execute(tiny_classes)
    assert fc.compare_chart_note(fc.compare_frame([(sel, ok, None)]), biased=False) == ""
