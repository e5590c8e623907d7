"""One home for a parameter: the estimators' declarations, the registry, Run's canonical form."""

import inspect
import json
from numbers import Integral

import numpy as np
import pytest
from sklearn.utils._param_validation import Interval, StrOptions

import fsviz.compute as fc
from fsviz._params import Param, describe
from fsviz.compute import METHODS, Run, method
from fsviz.select import GDM, GRM


def test_gdm_declares_tau_once_with_bounds_default_and_practical_range():
    tau = method("gdm").params["tau"]
    assert (tau.default, tau.kind, tau.bounds) == (0.3, "real", (0.0, 1.0))
    assert tau.practical == (0.0, 0.5) and tau.step == 0.01 and tau.label and tau.help
    lo, hi = tau.widget_range()
    assert (lo, hi) == (0.0, 0.5)
    tau.validate(hi, "GDM")  # the slider's last notch is valid
    with pytest.raises(ValueError, match="'tau' parameter of GDM must be a float in the range"):
        tau.validate(1.0, "GDM")
    # without the practical range, an open end moves in by one step
    bare = Param(name="tau", default=0.3, constraints=tau.constraints, step=0.01)
    assert bare.widget_range() == (0.0, 0.99)


def test_declaration_is_the_estimators_signature_and_constraints():
    declared = describe(GDM)
    assert "random_state" not in declared  # the Run's seed
    assert {k: p.default for k, p in declared.items()} == {
        k: v for k, v in GDM().get_params().items() if k != "random_state"
    }
    assert method("grm").params["prior_groups"].groups and "base" in method("grm").params
    assert method("saola").params["chunk"].default == 200
    assert method("gdm").params["corr"].choices == ("pearson", "su")
    assert method("gdm").params["cv_folds"].nullable and not method("gdm").params["tau"].nullable


@pytest.mark.parametrize("name", sorted(n for n, m in METHODS.items() if m.estimator is not None))
def test_every_declared_default_is_valid(name):
    spec = method(name)
    spec.validate(spec.defaults())  # the estimator's own defaults satisfy its declaration


def test_estimators_refuse_values_outside_their_declaration():
    X, y = np.random.default_rng(0).standard_normal((20, 5)), np.arange(20) % 2
    with pytest.raises(ValueError, match="'tau' parameter of GDM"):
        GDM(tau=1.0).fit(X, y)
    with pytest.raises(ValueError, match="'rho' parameter of GRM"):
        GRM(rho=2.5).fit(X, np.ones(5))


def test_equal_computations_have_equal_keys():
    assert Run("gdm", {}).key == Run("gdm", {"tau": 0.3}).key
    assert Run("gdm", {"tau": 0}).key == Run("gdm", {"tau": 0.0}).key
    r = Run("gdm", {"tau": 0.2}, seed=3)
    for name in method("gdm").params:
        assert r.replace(**{name: r.get(name)}) == r, name
    assert r.replace(tau=None) == Run("gdm", {}, seed=3)  # None on a non-nullable parameter: default
    assert r.replace(cv_folds=None) == r  # cv_folds=None is GDM's default value
    # prior groups: one canonical form (sorted tuples; none = None)
    base = Run("fisher")
    a = Run("grm", {"base": base, "prior_groups": [[3, 1], [0, 2]]})
    b = Run("grm", {"base": base, "prior_groups": (np.array([0, 2]), (1, 3))})
    assert a.key == b.key and a.get("prior_groups") == ((0, 2), (1, 3))
    assert Run("grm", {"base": base, "prior_groups": []}) == Run("grm", {"base": base})


VIEWS = sorted(n for n, m in METHODS.items() if m.estimator is None)


@pytest.mark.parametrize("name", VIEWS)
def test_every_view_declares_its_parameters_and_runs_fill_them(name):
    """The views are declared like the selectors: a Run fills their defaults, so one
    computation has one key, and a name the view does not declare is refused."""
    spec = method(name)
    assert name == "leakage" or spec.params, f"{name} declares no parameters"
    filled = {k: p.default for k, p in spec.params.items()}
    assert Run(name, {}).key == Run(name, filled).key
    for k, p in spec.params.items():
        assert p.label and p.help, (name, k)
        if p.default is not None and p.constraints != ("no_validation",):
            p.validate(p.default, spec.label)  # the default is a valid value
    with pytest.raises(ValueError, match="unknown parameter"):
        spec.validate({"no_such": 1})


def test_view_defaults_are_canonical():
    assert Run("histogram", {}).key == Run("histogram", {"bins": 20}).key
    assert Run("benchmark", {}) == Run("benchmark", {"ks": range(5, 305, 5), "n_repeats_kmeans": 20})
    assert Run("stability", {"n_boot": 20}) == Run("stability")
    assert Run("evaluation", {"of": Run("fisher")}).get("k") == fc.TOP_K.default


def test_library_defaults_are_read_from_their_home():
    """A view's parameter that a library function owns takes that function's default."""
    from fsviz.evaluate import benchmark, bootstrap_selections
    from fsviz.stats import correlation_histogram

    def default(f, name):
        return inspect.signature(f).parameters[name].default

    params = method("histogram").params
    assert params["bins"].default == default(correlation_histogram, "bins")
    assert params["n_sample_pairs"].default == default(correlation_histogram, "n_sample_pairs")
    assert method("stability").params["n_boot"].default == default(bootstrap_selections, "n_boot")
    bench = method("benchmark").params
    for name in ("cv", "n_repeats_kmeans", "select_in_fold"):
        assert bench[name].default == default(benchmark, name)
    assert bench["ks"].default == tuple(default(benchmark, "ks"))


def test_old_partial_params_load_as_the_same_run():
    old = json.loads('{"method": "gdm", "params": {"tau": 0.3}, "seed": 0}')
    assert Run.from_dict(old) == Run("gdm", {}) == Run.from_dict(Run("gdm").to_dict())
    nested = {"method": "grm", "params": {"base": {"run": {"method": "lgd", "params": {}}}}, "seed": 1}
    assert Run.from_dict(nested).get("base") == Run("lgd", {"n_neighbors": 5})


def test_unknown_parameters_are_refused_when_run():
    with pytest.raises(ValueError, match=r"GDM: unknown parameter\(s\) \['taux'\]"):
        Run("gdm", {"taux": 0.2}).spec.make(Run("gdm", {"taux": 0.2}))


ESTIMATORS = sorted(n for n, m in METHODS.items() if m.estimator is not None)

#: parameters that are declared without validation on purpose, with the reason
NOT_VALIDATED = {
    ("gdm", "positive"): "a class label: any value y holds (the registry matches it against y)",
}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_parameter_is_declared(name):
    est = method(name).estimator
    init = [k for k in inspect.signature(est.__init__).parameters if k != "self"]
    declared = est._parameter_constraints
    assert sorted(set(declared) - set(init)) == [], "declared but not a parameter"
    for k in init:
        assert k in declared, f"{est.__name__}.{k} has no declared constraints"
        if declared[k] == "no_validation":
            assert (name, k) in NOT_VALIDATED, f"{est.__name__}.{k} is not validated"


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_declared_default_satisfies_its_own_constraints(name):
    spec = method(name)
    for p in describe(spec.estimator).values():
        p.validate(p.default, spec.estimator.__name__)  # None included, where it is the default


def _outside(p: Param) -> list:
    """Values just outside the declared constraints of ``p`` (refused by all of them)."""
    out = []
    for c in p.constraints:
        if isinstance(c, Interval):
            step = 1 if c.type is Integral else 1e-9
            if c.left is not None:
                out.append(c.left - step if c.closed in ("left", "both") else c.left)
            if c.right is not None:
                out.append(c.right + step if c.closed in ("right", "both") else c.right)
        elif isinstance(c, StrOptions) or c == "boolean":
            out.append("not-an-option")
    refused = []
    for v in out:
        try:
            p.validate(v, "test")
        except ValueError:
            refused.append(v)
    return refused


def _fit(est, X, y):
    if isinstance(est, GRM):
        return est.fit(X, np.linspace(1.0, 2.0, X.shape[1]))  # per-feature scores
    if type(est).__name__ == "GroupSAOLA":
        return est.fit(X, y, [[0, 1, 2], [3, 4, 5]])
    return est.fit(X, y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_make_and_fit_refuse_a_value_just_outside_a_declared_bound(name):
    spec = method(name)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 6)), np.arange(30) % 2
    checked = 0
    for p in spec.params.values():
        if p.name not in spec.estimator().get_params():
            continue  # run-only parameters (SAOLA's chunk, GRM's base) are the runner's
        for value in _outside(p):
            est = spec.make(Run(name, {p.name: value}, seed=0))
            with pytest.raises(ValueError) as info:
                _fit(est, X, y)
            msg = str(info.value)
            assert f"'{p.name}'" in msg and type(est).__name__ in msg and repr(value)[:6] in msg, msg
            checked += 1
    assert checked, f"{name}: no bounded parameter to check"


def test_grm_neighbourhood_range_runs_every_neighbour_method():
    """The GRM page's one slider: every value at both ends runs LGD, Laplacian, ReliefF and MCFS."""
    assert fc.NEIGHBOUR_METHODS == ("lgd", "laplacian", "relieff", "mcfs")
    shared = fc.shared_param(fc.NEIGHBOUR_METHODS, "n_neighbors")
    lo, hi = shared.widget_range()
    assert lo >= 1 and hi > lo
    for name in fc.NEIGHBOUR_METHODS:
        p = method(name).params["n_neighbors"]
        assert p.label and p.help and p.practical, name  # the app's hints live in the declaration
        p.validate(lo, name)
        p.validate(hi, name)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 6)), np.arange(60) % 3
    for name in fc.NEIGHBOUR_METHODS:
        for k in (lo, hi):
            assert np.all(np.isfinite(method(name).estimator(n_neighbors=k).fit(X, y).scores_)), (name, k)


def test_ecv_folds_range_is_gdms_declaration():
    folds = method("gdm").params["cv_folds"]
    lo, hi = folds.widget_range()
    assert (lo, hi) == folds.practical and lo >= folds.bounds[0]
    folds.validate(hi, "GDM")
    assert fc.gdm_run({"cv_folds": 0}).get("cv_folds") is None  # the form's 0 means off
