"""Evaluation of selections: stand-ins of the features left out, redundancy, CV accuracy (CV R^2/RMSE
for regression), ground truth, stability, significance (permutation p-values, BH q-values),
clustering, and the survey's benchmark protocol."""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "redundancy_rate": ".redundancy",
    "cv_accuracy": ".classification",
    "CVResult": ".classification",
    "cv_regression": ".regression",
    "RegressionCVResult": ".regression",
    "success_hits": ".ground_truth",
    "SuccessHits": ".ground_truth",
    "selection_stability": ".stability",
    "subsample_stability": ".stability",
    "StabilityResult": ".stability",
    "bootstrap_selections": ".stability",
    "selection_frequency": ".stability",
    "group_frequency": ".stability",
    "stand_ins": ".standin",  # not .stand_ins: a submodule would shadow the function
    "STAND_IN_COLUMNS": ".standin",
    "su_discrete": ".standin",
    "clustering_scores": ".clustering",
    "clustering_accuracy": ".clustering",
    "normalized_mutual_info": ".clustering",
    "ClusteringScores": ".clustering",
    "benchmark": ".protocol",  # not .benchmark: a submodule would shadow the function
    "BENCHMARK_COLUMNS": ".protocol",
    "CLASSIFIERS": ".protocol",
    "Ranker": ".protocol",
    "permutation_pvalues": ".significance",
    "PermutationResult": ".significance",
    "bh_qvalues": ".significance",
    "k_fdr": ".significance",
    "label_permutations": ".significance",
    "stability_selection": ".stable",  # not .stability_selection: a submodule would shadow the function
    "StabilitySelectionResult": ".stable",
    "complementary_pairs": ".stable",
    "pfer_bound": ".stable",
    "cv_curve": ".one_se",
    "one_se_rule": ".one_se",
    "CVCurve": ".one_se",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
