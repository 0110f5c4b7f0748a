#!/usr/bin/env python3
"""Hostile clients against a release `livesim serve --echo`, beside a well-behaved one (issue 27).

Each scenario gets a fresh server, runs for a bounded time, and records the server's peak
resident memory (VmHWM from /proc/PID/status), its peak open descriptors, what the hostile
clients saw (how many were dropped), and whether the well-behaved client got every echo.
An idle server is measured the same way, for comparison. Results go to
Benchmarks/results/soak.md with the machine and the date.

    python3 Benchmarks/soak/hostile-clients.py                     # finds the release livesim
    python3 Benchmarks/soak/hostile-clients.py --livesim PATH --seconds 20

Scenarios (the probes of issue 27):
  idle            nothing but the well-behaved client
  ping-flood      one client sends 125-byte pings as fast as it can and never reads
  echo-non-readers  60 clients send 64 KiB messages to the echo server and never read
  unfinished      300 clients each send all but the last byte of a 1 MiB message, and hold

Python 3 standard library and `websockets` only. Linux only (/proc).
"""

import argparse
import asyncio
import base64
import datetime
import os
import platform
import re
import socket
import struct
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_livesim():
    path = subprocess.run(
        ["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    binary = os.path.join(path, "livesim")
    if not os.path.exists(binary):
        sys.exit(f"{binary} not found: run `swift build -c release --product livesim -j 1` first")
    return binary


class Server:
    """A `livesim serve --echo` process and a sampler of its memory and descriptors."""

    def __init__(self, livesim, extra):
        self.process = subprocess.Popen(
            [livesim, "serve", "--echo", "--port", "0", "--duration", "600s"] + extra,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        match = re.search(r":(\d+)$", line.strip())
        if not match:
            sys.exit(f"livesim serve did not start: {line!r} {self.process.stderr.read()}")
        self.port = int(match.group(1))
        self.peak_rss_kb = 0
        self.peak_fds = 0
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self.sample, daemon=True)
        self.sampler.start()

    def status(self, field):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def sample(self):
        while not self.stopping.is_set():
            try:
                self.peak_rss_kb = max(self.peak_rss_kb, self.status("VmRSS"))
                self.peak_fds = max(self.peak_fds, len(os.listdir(f"/proc/{self.process.pid}/fd")))
            except (FileNotFoundError, ProcessLookupError):
                return
            time.sleep(0.05)

    def stop(self):
        """Returns (VmHWM kB, peak sampled RSS kB, peak descriptors, RSS at the end kB)."""
        high_water = self.status("VmHWM")
        rss_now = self.status("VmRSS")
        self.stopping.set()
        self.sampler.join()
        self.process.terminate()
        self.process.wait(timeout=30)
        return high_water, max(self.peak_rss_kb, rss_now), self.peak_fds, rss_now


def frame(opcode, payload_length, final=True):
    """A masked client frame header (mask key 0: the payload goes as it is)."""
    first = (0x80 if final else 0) | opcode
    if payload_length < 126:
        header = struct.pack("!BB", first, 0x80 | payload_length)
    elif payload_length < 1 << 16:
        header = struct.pack("!BBH", first, 0x80 | 126, payload_length)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, payload_length)
    return header + b"\0\0\0\0"


def raw_client(port, small_receive_buffer=True):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    if small_receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.split(b"\r\n")[0].decode())
    return sock


def send_until(sock, data, deadline):
    """Sends `data` over and over until the deadline; True if the server dropped the connection."""
    sock.settimeout(1)
    while time.monotonic() < deadline:
        try:
            sock.sendall(data)
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def ping_flood(port, deadline, outcome):
    sock = raw_client(port)
    pings = (frame(0x9, 125) + b"p" * 125) * 200
    outcome.append(send_until(sock, pings, deadline))
    sock.close()


def echo_non_reader(port, deadline, outcome):
    sock = raw_client(port)
    message = frame(0x2, 64 * 1024) + b"e" * (64 * 1024)
    outcome.append(send_until(sock, message, deadline))
    sock.close()


def unfinished_message(port, deadline, outcome):
    sock = raw_client(port)
    size = 1 << 20
    try:
        sock.sendall(frame(0x2, size) + b"u" * (size - 1))
    except OSError:
        outcome.append(True)
        sock.close()
        return
    # Holds the unfinished message; a dropped connection reads EOF or a reset.
    sock.settimeout(0.5)
    dropped = False
    while time.monotonic() < deadline:
        try:
            if sock.recv(4096) == b"":
                dropped = True
                break
        except socket.timeout:
            continue
        except OSError:
            dropped = True
            break
    outcome.append(dropped)
    sock.close()


SCENARIOS = {
    "idle": (0, None),
    "ping-flood": (1, ping_flood),
    "echo-non-readers": (60, echo_non_reader),
    "unfinished": (300, unfinished_message),
}


async def well_behaved(port, stop, result):
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/", max_size=None, ping_interval=None) as connection:
        while not stop.is_set():
            text = f"message {result['sent']} " + "w" * 1000
            await connection.send(text)
            result["sent"] += 1
            echo = await asyncio.wait_for(connection.recv(), timeout=30)
            if echo == text:
                result["received"] += 1
            await asyncio.sleep(0.01)


def run_well_behaved(port, stop, result):
    try:
        asyncio.run(well_behaved(port, stop, result))
    except Exception as error:  # reported, not raised: the table says what happened
        result["error"] = f"{type(error).__name__}: {error}"


def run_scenario(livesim, name, seconds, budget_args):
    count, client = SCENARIOS[name]
    server = Server(livesim, budget_args)
    stop = threading.Event()
    good = {"sent": 0, "received": 0, "error": None}
    good_thread = threading.Thread(target=run_well_behaved, args=(server.port, stop, good))
    good_thread.start()
    outcome = []
    threads = []
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    for _ in range(count):
        thread = threading.Thread(target=client, args=(server.port, deadline, outcome), daemon=True)
        thread.start()
        threads.append(thread)
    time.sleep(max(0, deadline - time.monotonic()))
    for thread in threads:
        thread.join(timeout=30)
    time.sleep(1)
    stop.set()
    good_thread.join(timeout=60)
    high_water, peak_rss, peak_fds, rss_end = server.stop()
    return {
        "name": name,
        "seconds": round(time.monotonic() - started, 1),
        "hostile": count,
        "dropped": sum(1 for dropped in outcome if dropped),
        "vmhwm_mb": high_water / 1024,
        "peak_rss_mb": peak_rss / 1024,
        "rss_end_mb": rss_end / 1024,
        "peak_fds": peak_fds,
        "good_sent": good["sent"],
        "good_received": good["received"],
        "good_error": good["error"],
    }


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as info:
            memory = f", {int(info.readline().split()[1]) // 1024} MB RAM"
    except OSError:
        pass
    return f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} CPUs ({cpu}){memory}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--livesim", help="the livesim binary (default: the release build's)")
    parser.add_argument("--seconds", type=float, default=20, help="how long each hostile scenario runs")
    parser.add_argument("--max-buffered-bytes", type=int, help="passed to livesim serve (default: its own)")
    parser.add_argument("--output", default=os.path.join(REPO, "Benchmarks", "results", "soak.md"))
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS), help="run only these")
    parser.add_argument("--append", action="store_true", help="add this run to the output file, after what is there")
    arguments = parser.parse_args()
    livesim = arguments.livesim or find_livesim()
    budget_args = (
        ["--max-buffered-bytes", str(arguments.max_buffered_bytes)] if arguments.max_buffered_bytes else []
    )
    rows = []
    for name in arguments.scenario or list(SCENARIOS):
        row = run_scenario(livesim, name, arguments.seconds, budget_args)
        print(row, flush=True)
        rows.append(row)
    budget = arguments.max_buffered_bytes or 256 << 20
    lines = [
        f"## Buffer budget {budget // (1 << 20)} MiB",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {machine()}",
        f"- server: `livesim serve --echo{(' ' + ' '.join(budget_args)) if budget_args else ''}` (release),"
        f" buffer budget {budget // (1 << 20)} MiB, per-connection queue limit 16 MiB, max message 1 MiB",
        f"- each scenario: a fresh server, {arguments.seconds:g} s of hostile clients beside one well-behaved"
        " client (1 KB text every 10 ms, each echo awaited), then 1 s more for the well-behaved client",
        "- produced by `python3 Benchmarks/soak/hostile-clients.py` (see its docstring for the scenarios)",
        "",
        "| scenario | hostile clients | dropped by the server | peak RSS (VmHWM) | RSS at the end | peak descriptors"
        " | well-behaved: echoes received / sent |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        good = f"{row['good_received']} / {row['good_sent']}"
        if row["good_error"]:
            good += f" ({row['good_error']})"
        lines.append(
            f"| {row['name']} | {row['hostile']} | {row['dropped']} | {row['vmhwm_mb']:.0f} MB"
            f" | {row['rss_end_mb']:.0f} MB | {row['peak_fds']} | {good} |"
        )
    lines.append("")
    os.makedirs(os.path.dirname(arguments.output), exist_ok=True)
    title = "# Soak: hostile clients against `livesim serve --echo`\n\n"
    previous = ""
    if arguments.append and os.path.exists(arguments.output):
        with open(arguments.output) as existing:
            previous = existing.read().removeprefix(title)
    with open(arguments.output, "w") as output:
        output.write(title + previous + ("\n" if previous else "") + "\n".join(lines))
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
