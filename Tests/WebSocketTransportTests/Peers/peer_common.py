"""Shared by the test peers: announce the port, and exit when the test process goes away."""
import os
import sys
import threading


def announce(port):
    """The Swift test reads this one line to learn where to connect."""
    print(f"PORT {port}", flush=True)


def exit_with_parent():
    """The tests keep our stdin open; when it reaches EOF the test process is gone, so are we."""

    def watch():
        while sys.stdin.buffer.read(1024):
            pass
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
