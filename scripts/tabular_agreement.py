"""Do real-game and tabular comparisons agree? For each strategy and budget, whether the mean regret of the
real studies (few seeds, regret.json of `study compare --truth`) lies within 1.96 standard deviations of
the mean of as many seeds drawn from the tabular benchmark (bench.json of `study bench`). Strategies are
matched by name and settings: the bench plans LSI for each budget, the real studies for their own budget,
so LSI is left out and said so.

Usage: .venv/bin/python scripts/tabular_agreement.py [FOLDER]   (default studies/strategies-compare-connect4)
"""

import json
import sys

import numpy as np

folder = sys.argv[1] if len(sys.argv) > 1 else "studies/strategies-compare-connect4"
real = json.load(open(f"{folder}/report/regret.json"))
tab = json.load(open(f"{folder}/report/bench.json"))
inside, total, rows = 0, 0, []
for name, entry in real["curves"].items():
    if name not in tab["curves"]:
        print(f"left out: {name} (not run with these settings on the bench)")
        continue
    r, t = np.array(entry["regret"]), np.array(tab["curves"][name]["regret"])
    for j, b in enumerate(real["budgets"]):
        sd = t[:, j].std(ddof=1) / np.sqrt(len(r))
        z = (r[:, j].mean() - t[:, j].mean()) / sd if sd > 0 else 0.0
        total += 1
        inside += abs(z) < 1.96
        rows.append((name, b, round(r[:, j].mean(), 3), round(t[:, j].mean(), 3), round(float(z), 2)))
print(
    f"{inside} of {total} (strategy, budget) cells: the real mean lies within 1.96 sd of a mean of as many seeds "
    "drawn from the tabular benchmark (about 95% expected if they agree)"
)
for row in rows:
    if abs(row[-1]) >= 1.96:
        print("outside:", row)
