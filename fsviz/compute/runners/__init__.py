"""The runners of the registry's methods, one room per kind: ``selectors`` (fit an estimator),
``views`` (histogram, pairs, correlations, leakage, PCA, image panels) and ``evaluation``
(CV quality, the survey's benchmark, bootstrap stability, and the fold refits they share).

A runner is ``runner(run, context) -> result``; it imports the Run and the results, never the
registry (which imports the runners to list them). Each view's parameters are declared beside
its runner.
"""
