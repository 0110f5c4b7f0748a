"""The reconnecting loop websockets documents (websockets.readthedocs.io, "Reconnect
automatically"): `async for websocket in connect(uri)`, with the library as installed from
PyPI, unmodified. Usage: python3 websockets_connect.py URL"""
import asyncio
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def main(uri):
    async for websocket in connect(uri):
        try:
            async for message in websocket:
                pass
        except ConnectionClosed:
            continue


asyncio.run(main(sys.argv[1]))
