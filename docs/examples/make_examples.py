#!/usr/bin/env python3
"""Delay files recorded "elsewhere", for `livesim stats fit` (docs/backoff.md).

    python3 docs/examples/make_examples.py

Each file is attempt,delay pairs in milliseconds, as a client in another language would log
them. Python's own generator is used on purpose: the data does not come from our code.
"""
import math
import os
import random

here = os.path.dirname(os.path.abspath(__file__))


def write(name, rows):
    with open(os.path.join(here, name), "w") as f:
        f.write("# attempt,delay\n")
        for attempt, ms in rows:
            f.write(f"{attempt},{ms}ms\n")


# socket.io's backo2 Backoff.prototype.duration, transcribed: one Math.random() for both the
# deviation and (through its first decimal) the sign. min 1000 ms, factor 2, jitter 0.5.
rng = random.Random(7)
rows = []
for client in range(300):
    for attempts in range(4):
        ms = 1000 * 2 ** attempts
        rand = rng.random()
        deviation = math.floor(rand * 0.5 * ms)
        ms = ms - deviation if (math.floor(rand * 10) & 1) == 0 else ms + deviation
        rows.append((attempts + 1, int(min(ms, 10 ** 9))))
write("backo2.txt", rows)

# A correct ±50 % jitter with the same parameters, for comparison.
rng = random.Random(8)
rows = []
for client in range(300):
    for attempts in range(4):
        ms = 1000 * 2 ** attempts
        rows.append((attempts + 1, int(rng.uniform(ms * 0.5, ms * 1.5))))
write("proportional.txt", rows)

# Full jitter (base 1 s, cap 30 s), but every client seeds its generator from the Unix
# second it started in: 80 clients started over 4 seconds.
rows = []
for client in range(80):
    rng = random.Random(1764500000 + client // 20)
    for attempt in range(1, 9):
        ceiling = min(30000, 1000 * 2 ** (attempt - 1))
        rows.append((attempt, int(rng.uniform(0, ceiling))))
write("same-second.txt", rows)

# Decorrelated jitter done right (base 1 s, cap 30 s), 200 clients × 15 attempts.
rng = random.Random(9)
rows = []
for client in range(200):
    sleep = 1000
    for attempt in range(1, 16):
        sleep = min(30000, int(rng.uniform(1000, sleep * 3)))
        rows.append((attempt, sleep))
write("decorrelated.txt", rows)
print("wrote backo2.txt, proportional.txt, same-second.txt, decorrelated.txt")
