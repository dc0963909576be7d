"""
The papers' claims, by verdict
==============================

Every claim of the four papers has a verdict computed by one rule from the committed runs
(`metriclab.reproduce.verdicts`; the rule is on the Reproduction page). This counts them per
paper.
"""

import matplotlib.pyplot as plt
import numpy as np

from metriclab.reproduce import verdicts

results = verdicts.evaluate_all()
papers = list(verdicts.PAPERS)
words = ["yes", "yes (tests)", "yes (bench)", "partly", "inconclusive", "no", "not run"]
colours = ["#2a9d4b", "#6cc08b", "#9ed8b0", "#e9b43c", "#7a8fd1", "#d1495b", "#9a9a9a"]
counts = np.array(
    [[sum(v.word == w and v.claim["paper"] == p for v in results) for w in words] for p in papers]
)

fig, ax = plt.subplots(figsize=(7, 3))
left = np.zeros(len(papers))
for column, (word, colour) in enumerate(zip(words, colours, strict=True)):
    ax.barh(
        [verdicts.PAPERS[p] for p in papers], counts[:, column], left=left, color=colour, label=word
    )
    left += counts[:, column]
ax.set_xlabel("claims")
ax.legend(fontsize=8, ncol=3, loc="lower right")
fig.tight_layout()
plt.show()
