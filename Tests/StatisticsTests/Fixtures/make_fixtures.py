#!/usr/bin/env python3
"""Reference values for the Statistics module, computed with scipy.

Run by hand (or in CI) when the fixture must change:

    python3 Tests/StatisticsTests/Fixtures/make_fixtures.py

It writes reference.json next to this script. `swift test` reads the committed JSON and
never runs scipy. Every value comes from a scipy function except the runs test and the
lag-k autocorrelation, which scipy lacks; those are computed here by their textbook
formulas (independently of the Swift code) with numpy.
"""

import json
import os

import numpy as np
import scipy
from scipy import special, stats

rng = np.random.default_rng(20260101)
out = {"scipy_version": scipy.__version__}

out["log_gamma"] = [{"x": x, "value": float(special.gammaln(x))}
                    for x in [0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 57.3, 171.5, 1000.0, 123456.0]]

out["gamma_p"] = []
for a in [0.5, 1.0, 2.5, 7.0, 30.0, 250.0]:
    for x in [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 300.0]:
        out["gamma_p"].append({"a": a, "x": x, "p": float(special.gammainc(a, x)),
                               "q": float(special.gammaincc(a, x))})

out["chi2_sf"] = [{"x": x, "df": df, "value": float(stats.chi2.sf(x, df))}
                  for df in [1, 2, 5, 9, 30, 199] for x in [0.1, 1.0, 4.0, 11.07, 30.0, 60.0, 250.0]]

out["normal_cdf"] = [{"x": x, "value": float(stats.norm.cdf(x))}
                     for x in [-8.0, -5.0, -1.96, -0.5, 0.0, 0.3, 1.0, 2.326, 6.0]]
out["normal_quantile"] = [{"p": p, "value": float(stats.norm.ppf(p))}
                          for p in [1e-10, 0.001, 0.01, 0.02425, 0.1, 0.5, 0.8, 0.95, 0.99, 0.999999]]

# Exact small-sample KS p-values (scipy's kstwo), where our exact algorithm applies.
out["kstwo_exact"] = []
for n in [1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000]:
    for d in [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 0.95]:
        if d <= 0.5 / n:
            continue
        out["kstwo_exact"].append({"n": n, "d": d, "sf": float(stats.kstwo.sf(d, n)),
                                   "cdf": float(stats.kstwo.cdf(d, n))})

# scipy's kstwo is exact (Durbin/MTW matrix) for n <= 140 but approximate (to ~1e-7) above,
# so for larger n we also evaluate the Marsaglia-Tsang-Wang matrix power with mpmath at 40
# digits: it tells the rounding of our double-precision version apart from method error.
import mpmath as mp

mp.mp.dps = 40


def mtw_cdf(n, d):
    d = mp.mpf(d)
    k = int(mp.floor(n * d)) + 1
    m = 2 * k - 1
    h = k - n * d
    H = mp.matrix(m, m)
    for i in range(m):
        for j in range(m):
            H[i, j] = 1 if i - j + 1 >= 0 else 0
    for i in range(m):
        H[i, 0] -= h ** (i + 1)
        H[m - 1, i] -= h ** (m - i)
    if 2 * h - 1 > 0:
        H[m - 1, 0] += (2 * h - 1) ** m
    for i in range(m):
        for j in range(m):
            if i - j + 1 > 0:
                H[i, j] /= mp.factorial(i - j + 1)
    P = H ** n
    return P[k - 1, k - 1] * mp.factorial(n) / mp.mpf(n) ** n


out["kstwo_high_precision"] = []
for n, d in [(200, 0.05), (200, 0.1), (200, 0.2), (500, 0.02), (500, 0.05), (500, 0.1), (1000, 0.02),
             (1000, 0.05)]:
    cdf = mtw_cdf(n, d)
    out["kstwo_high_precision"].append({"n": n, "d": d, "cdf": float(cdf), "sf": float(1 - cdf)})

# Large n, where we switch to the corrected asymptotic law.
out["kstwo_large"] = []
for n in [2000, 5000, 20000, 1000000]:
    for x in [0.5, 0.8, 1.0, 1.22, 1.36, 1.63, 1.95]:
        d = x / np.sqrt(n)
        out["kstwo_large"].append({"n": n, "d": float(d), "sf": float(stats.kstwo.sf(d, n))})

out["kstwobign_sf"] = [{"x": x, "value": float(stats.kstwobign.sf(x))}
                       for x in [0.1, 0.2, 0.29, 0.31, 0.5, 0.8, 1.0, 1.224, 1.358, 1.628, 1.949, 3.0]]

# Whole KS tests on fixed samples against U(0, 1) (exact method).
out["ks_samples"] = []
for n, shift in [(10, 0.0), (40, 0.0), (40, 0.2), (300, 0.05), (1000, 0.0)]:
    sample = np.clip(rng.random(n) + shift * rng.random(n), 0, 1)
    result = stats.kstest(sample, "uniform", method="exact" if n <= 1000 else "asymp")
    out["ks_samples"].append({"sample": sample.tolist(), "statistic": float(result.statistic),
                              "pvalue": float(result.pvalue)})

out["binomial"] = []
for k, n, p in [(0, 10, 0.1), (3, 10, 0.1), (7, 20, 0.5), (412, 1000, 0.4), (450, 1000, 0.4),
                (10, 1000, 0.001), (5, 5, 0.9), (6615, 10000, 0.6667)]:
    out["binomial"].append({"k": k, "n": n, "p": p, "pvalue": float(stats.binomtest(k, n, p).pvalue)})

out["chisquare"] = []
for observed, expected in [([10, 12, 8, 10], [10, 10, 10, 10]),
                           ([25, 5, 30, 40], [25, 25, 25, 25]),
                           ([16, 18, 16, 14, 12, 12], [16, 16, 16, 16, 16, 8])]:
    result = stats.chisquare(observed, expected)
    out["chisquare"].append({"observed": observed, "expected": expected,
                             "statistic": float(result.statistic), "pvalue": float(result.pvalue)})


def runs_reference(x):
    """Wald-Wolfowitz runs above/below the median, values equal to it dropped."""
    med = np.median(x)
    signs = [v > med for v in x if v != med]
    runs = 1 + sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    n1 = sum(signs)
    n2 = len(signs) - n1
    mu = 2 * n1 * n2 / (n1 + n2) + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n1 - n2) / ((n1 + n2) ** 2 * (n1 + n2 - 1))
    z = (runs - mu) / np.sqrt(var)
    return runs, float(z), float(2 * stats.norm.sf(abs(z)))


def autocorrelation_reference(x, k):
    x = np.asarray(x)
    m = x.mean()
    r = float(np.sum((x[:-k] - m) * (x[k:] - m)) / np.sum((x - m) ** 2))
    n = len(x)
    z = (r + 1 / n) * np.sqrt(n)
    return r, float(z), float(2 * stats.norm.sf(abs(z)))


sequences = {
    "independent": rng.random(200).tolist(),
    "trend": (np.linspace(0, 1, 150) + 0.3 * rng.random(150)).tolist(),
    "alternating": [float(i % 2) + 0.1 * v for i, v in enumerate(rng.random(120))],
    "odd_length_with_median_ties": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6],
}
out["runs"] = []
out["autocorrelation"] = []
for name, seq in sequences.items():
    runs, z, p = runs_reference(seq)
    out["runs"].append({"name": name, "sequence": [float(v) for v in seq], "runs": runs, "z": z, "pvalue": p})
    for k in [1, 2, 5]:
        r, z, p = autocorrelation_reference(seq, k)
        out["autocorrelation"].append({"name": name, "lag": k, "sequence": [float(v) for v in seq],
                                       "r": r, "z": z, "pvalue": p})

out["pearson"] = []
for _ in range(3):
    x = rng.random(30)
    y = 0.5 * x + rng.random(30)
    out["pearson"].append({"x": x.tolist(), "y": y.tolist(), "r": float(stats.pearsonr(x, y).statistic)})

# Ties: P(Poisson(lambda) >= T) = poisson.sf(T - 1, lambda).
out["poisson_upper"] = [{"t": t, "lam": lam, "value": float(stats.poisson.sf(t - 1, lam))}
                        for t, lam in [(1, 0.5), (3, 0.5), (10, 2.0), (45, 4.975), (2, 12.0)]]

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"wrote {path}")
