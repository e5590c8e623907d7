"""Feature selectors with a scikit-learn API; higher ``scores_`` is always better."""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "GDM": ".gdm",
    "SAOLA": ".saola",
    "GroupSAOLA": ".saola",
    "random_feature_groups": ".saola",
    "GRM": ".grm",
    "LGD": ".scores",
    "FisherScore": ".scores",
    "ReliefF": ".scores",
    "LaplacianScore": ".scores",
    "MutualInfo": ".scores",
    "FScore": ".scores",
    "ChiSquare": ".scores",
    "VarianceScore": ".scores",
    "MCFS": ".mcfs",
    "MRMR": ".mrmr",
    "FCBF": ".fcbf",
    "MIFS": ".info_criteria",
    "CIFE": ".info_criteria",
    "JMI": ".info_criteria",
    "CMIM": ".info_criteria",
    "ICAP": ".info_criteria",
    "DISR": ".info_criteria",
    "info_select": ".info_criteria",
    "lgd_score": ".scores",
    "fisher_score": ".scores",
    "relieff_score": ".scores",
    "laplacian_score": ".scores",
    "mutual_info_score": ".scores",
    "f_score": ".scores",
    "chi2_score": ".scores",
    "variance_score": ".scores",
    "mcfs_score": ".mcfs",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
