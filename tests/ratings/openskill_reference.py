"""Random three- and four-player games rated by openskill's PlackettLuce (the reference
the server's rating model is checked against). Prints one JSON document: a list of
{"before": [[mu, sigma], ...], "ranks": [...], "after": [[mu, sigma], ...]}.
Usage: python openskill_reference.py SEED COUNT"""
import json
import random
import sys

from openskill.models import PlackettLuce

seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
model = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0)
games = []
for _ in range(count):
    n = rng.choice([3, 4])
    before = [[rng.uniform(5.0, 45.0), rng.uniform(0.5, 25.0 / 3.0)] for _ in range(n)]
    if rng.random() < 0.3:
        before[0] = [25.0, 25.0 / 3.0]
    # Places with ties: sorted random draws of 0..n-1, then each player's place number.
    ranks = [rng.randrange(n) for _ in range(n)]
    teams = [[model.rating(mu=m, sigma=s)] for m, s in before]
    after = model.rate(teams, ranks=[float(r) for r in ranks])
    games.append(
        {
            "before": before,
            "ranks": ranks,
            "after": [[t[0].mu, t[0].sigma] for t in after],
        }
    )
json.dump(games, sys.stdout)
