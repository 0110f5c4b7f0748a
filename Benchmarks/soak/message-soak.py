#!/usr/bin/env python3
"""Issue 27 item 4: a million messages through `livesim echo-client` and `livesim connect`,
with the client's resident memory sampled as they pass: it must stay flat.

    Benchmarks/soak/message-soak.py [--messages N] [--livesim PATH] [--record FILE]

A Python `websockets` server (this script) sends N small messages (16 bytes of text, or the
live contract's `{"seq":N,...}` for `connect`) as fast as the client takes them, then closes
1000. The client's VmRSS is read from /proc once it is connected (the baseline), every 1,000
messages, and a second after the last; the figures at each tenth of the run and the peak
are printed and, with --record, appended to the file
with the machine and the date. Needs the release `livesim` (`swift build -c release`).
"""
import argparse
import asyncio
import datetime
import os
import platform
import subprocess
import sys

import websockets


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


async def soak(client_words, messages, live):
    sent = 0
    done = asyncio.Event()
    samples = []  # (messages sent, RSS KiB)

    baseline = None
    pid = None

    async def handler(socket):
        nonlocal sent, baseline
        if done.is_set():  # the manager reconnects after the close: the run is over
            return
        await asyncio.sleep(0.3)
        baseline = rss_kib(pid)  # connected, nothing received yet
        reader = None
        if not live:
            async def drain():
                async for _ in socket:
                    pass
            reader = asyncio.create_task(drain())
        else:
            await socket.recv()  # the subscribe
        for number in range(1, messages + 1):
            text = f'{{"seq":{number},"topic":"feed","text":"x"}}' if live else "0123456789abcdef"
            await socket.send(text)
            sent = number
            if number % 1000 == 0:
                value = rss_kib(pid)
                if value is not None:
                    samples.append((number, value))
                await asyncio.sleep(0)
        await socket.close(1000)
        if reader:
            reader.cancel()
        done.set()

    async with websockets.serve(handler, "127.0.0.1", 0, max_size=None, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}/live"
        words = [w.replace("{url}", url) for w in client_words]
        process = subprocess.Popen(words, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pid = process.pid
        try:
            await asyncio.wait_for(done.wait(), 3600)
            await asyncio.sleep(1)  # what the client holds once the last message is through
            value = rss_kib(pid)
            if value is not None:
                samples.append((messages, value))
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
    return baseline, samples


def summary(name, messages, baseline, samples):
    lines = [f"{name}: {messages:,} messages; RSS at start {baseline} KiB"]
    for tenth in range(1, 11):
        mark = messages * tenth // 10
        values = [rss for count, rss in samples if count <= mark]
        if values:
            lines.append(f"  after {mark:>9,} messages: {values[-1]:>7} KiB")
    peak = max(rss for _, rss in samples) if samples else None
    lines.append(f"  peak {peak} KiB")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--livesim", default=None)
    parser.add_argument("--record", default=None)
    options = parser.parse_args()
    if not 1 <= options.messages <= 100_000_000:
        print("message-soak: --messages must be 1 to 100000000", file=sys.stderr)
        return 64
    livesim = options.livesim or os.path.join(
        subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], capture_output=True, text=True,
                       check=True).stdout.strip(), "livesim")
    if not os.path.exists(livesim):
        print(f"message-soak: no livesim at {livesim} (swift build -c release --product livesim)", file=sys.stderr)
        return 1
    reports = []
    for name, words, live in [
        ("echo-client --timeout 60s", [livesim, "echo-client", "{url}", "--timeout", "60s"], False),
        ("connect --topic feed", [livesim, "connect", "{url}", "--topic", "feed", "--duration", "1000h"], True),
    ]:
        baseline, samples = asyncio.run(soak(words, options.messages, live))
        reports.append(summary(name, options.messages, baseline, samples))
        print(reports[-1], flush=True)
    if options.record:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(options.record, "a") as out:
            out.write(f"\n## {stamp}, {platform.node()}, {os.cpu_count()} cores, {platform.platform()}\n\n```\n")
            out.write("\n".join(reports) + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
