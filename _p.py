import sys, time; sys.path.insert(0,'benchmarks')
import numpy as np, scipy.sparse as sp
from bench_histogram import sparse_text
from fsviz.stats import correlation_histogram
X,_ = sparse_text(5000, 400_000, 1_500_000)
correlation_histogram(X[:, :1000], bins=20)
t=time.perf_counter(); c=time.process_time()
h = correlation_histogram(X, bins=20)
print("wall", round(time.perf_counter()-t,1), "cpu", round(time.process_time()-c,1), h.n_evaluated, h.counts[:3])
