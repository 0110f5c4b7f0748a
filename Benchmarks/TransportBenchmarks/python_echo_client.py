#!/usr/bin/env python3
"""The baseline: the PyPI `websockets` asyncio client doing sequential echo round trips.

Usage: python_echo_client.py URL ROUNDS PAYLOAD_BYTES
  → prints round trips per second, and its own CPU microseconds per round trip
"""
import asyncio
import sys
import time

from websockets.asyncio.client import connect


async def main():
    url, rounds, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    payload = "x" * size
    async with connect(url, compression=None, max_size=None) as ws:
        for _ in range(100):  # warm-up
            await ws.send(payload)
            await ws.recv()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(rounds):
            await ws.send(payload)
            await ws.recv()
        elapsed = time.perf_counter() - start
        cpu = (time.process_time() - cpu) * 1e6 / rounds
    print(f"{rounds / elapsed:.1f} {cpu:.2f}")


asyncio.run(main())
