"""Group Discovery Machine: support features, their affiliated features, and a sparse SVM.

GDM selects *support features* (SF) -- informative features that are not strongly
correlated with each other -- with a cutting-plane sparse SVM, and collects for each SF
its *affiliated features* (AF), the features correlated with it at ``|corr| >= 1 - tau``.
It never computes the full m x m correlation matrix.

Where each piece lives (TPAMI 2016 numbering):

- :mod:`._estimator` -- the :class:`GDM` estimator and Alg. 1, the cutting plane;
- :mod:`._master` -- the master problem (eq. 6/8, an MKL problem) and its solvers;
- :mod:`._walk` -- Alg. 2 / 3, the CRM walk (PCC window of Theorem 1, or SU);
- :mod:`._ecv` -- how the walk ranks features: plain scores, or ECV's fold votes (Alg. 4);
- :mod:`._complete` -- group completion: every feature with ``|corr| >= 1 - tau`` to a final SF;
- :mod:`._scan` -- passes over X (statistics, ``X' v``) and thread limits;
- :mod:`._column_source` -- out-of-core column blocks from a memory-mapped file;
- :mod:`._kernels`, :mod:`._column_source_kernels` -- the numba kernels.
"""

from fsviz.select.gdm._estimator import GDM

__all__ = ["GDM"]
