"""Shared by the test peers: serve on a free port, announce it, and exit when the test process goes away."""
import asyncio
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


def serve(handle):
    """Serves `handle(reader, writer)` on a free loopback port, announced, until the test goes away."""

    async def main():
        exit_with_parent()
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        announce(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(main())
