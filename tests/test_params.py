"""One home for a parameter: the estimators' declarations, the registry, Run's canonical form."""

import json

import numpy as np
import pytest

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


def test_old_partial_params_load_as_the_same_run():
    old = json.loads('{"method": "gdm", "params": {"tau": 0.3}, "seed": 0}')
    assert Run.from_dict(old) == Run("gdm", {}) == Run.from_dict(Run("gdm").to_dict())
    nested = {"method": "grm", "params": {"base": {"run": {"method": "lgd", "params": {}}}}, "seed": 1}
    assert Run.from_dict(nested).get("base") == Run("lgd", {"n_neighbors": 5})


def test_unknown_parameters_are_refused_when_run():
    with pytest.raises(ValueError, match=r"GDM: unknown parameter\(s\) \['taux'\]"):
        Run("gdm", {"taux": 0.2}).spec.make(Run("gdm", {"taux": 0.2}))
