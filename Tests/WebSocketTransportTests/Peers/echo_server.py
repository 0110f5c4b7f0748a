#!/usr/bin/env python3
"""An echo server built on the PyPI `websockets` package, with a few commands for the tests.

Every message is echoed with its type, except text starting with "!":
  !close CODE REASON   close the connection with that code and reason
  !reset               reset the TCP connection (SO_LINGER 0: an RST, no close frame)
  !ping PAYLOAD        ping the client; when its pong arrives, send "pong PAYLOAD"
  !headers             send the request headers and the subprotocol as JSON
  !big N               send a binary message of N bytes
Paths /reject/STATUS answer the upgrade with that HTTP status. On the path /hello the
server speaks first: it sends "hello", waits for the same text back (an echo client's
answer) and closes with 1000 "echoed", or 1008 "wrong echo". On /close-at-once/CODE it
completes the handshake and closes at once with CODE (a hostile server for the backoff).

  !big0 N              send a text message of N zeros ("0"), which compresses about 1000:1
  !closes              send, as JSON, the [code, reason] of every earlier connection's closing handshake
With --deflate JSON the server accepts permessage-deflate with those keyword arguments of
websockets' ServerPerMessageDeflateFactory (e.g. '{"server_max_window_bits": 9}').

With --header "NAME: VALUE" (repeatable) every 101 response carries that header too.

Usage: echo_server.py [--tls CERT KEY] [--subprotocol NAME]... [--deflate JSON] [--header "N: V"]...  (prints "PORT n")
"""
import argparse
import asyncio
import http
import json
import socket
import ssl
import struct

from websockets.asyncio.server import serve
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

import peer_common


CLOSES = []


async def handler(ws):
    try:
        await serve_connection(ws)
    finally:
        if ws.close_code is not None:
            CLOSES.append([ws.close_code, ws.close_reason])


async def serve_connection(ws):
    if ws.request.path.startswith("/close-at-once/"):
        await ws.close(int(ws.request.path.split("/")[2]), "hostile")
        return
    if ws.request.path == "/hello":
        await ws.send("hello")
        answer = await ws.recv()
        await (ws.close(1000, "echoed") if answer == "hello" else ws.close(1008, "wrong echo"))
        return
    async for message in ws:
        if isinstance(message, str) and message.startswith("!"):
            command, _, argument = message[1:].partition(" ")
            if command == "close":
                code, _, reason = argument.partition(" ")
                await ws.close(int(code), reason)
                return
            if command == "reset":
                sock = ws.transport.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                ws.transport.abort()
                return
            if command == "ping":
                waiter = await ws.ping(argument.encode())
                await waiter
                await ws.send(f"pong {argument}")
                continue
            if command == "headers":
                headers = [[name, value] for name, value in ws.request.headers.raw_items()]
                await ws.send(json.dumps({"headers": headers, "subprotocol": ws.subprotocol}))
                continue
            if command == "big":
                await ws.send(bytes(int(argument)))
                continue
            if command == "closes":
                await ws.send(json.dumps(CLOSES))
                continue
            if command == "big0":
                await ws.send("0" * int(argument))
                continue
        await ws.send(message)


def process_request(connection, request):
    if request.path.startswith("/reject/"):
        status = http.HTTPStatus(int(request.path.split("/")[2]))
        return connection.respond(status, "rejected by the test server\n")
    return None


RESPONSE_HEADERS = []


def process_response(connection, request, response):
    for name, value in RESPONSE_HEADERS:
        response.headers[name] = value
    return response


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--subprotocol", action="append", default=[])
    parser.add_argument("--deflate", metavar="JSON")
    parser.add_argument("--header", action="append", default=[])
    arguments = parser.parse_args()
    for header in arguments.header:
        name, _, value = header.partition(":")
        RESPONSE_HEADERS.append((name.strip(), value.strip()))
    context = None
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*arguments.tls)
    peer_common.exit_with_parent()
    async with serve(
        handler, "127.0.0.1", 0, ssl=context, max_size=None, process_request=process_request,
        process_response=process_response,
        subprotocols=arguments.subprotocol or None, ping_interval=None, compression=None,
        extensions=[ServerPerMessageDeflateFactory(**json.loads(arguments.deflate))] if arguments.deflate else None,
    ) as server:
        peer_common.announce(server.sockets[0].getsockname()[1])
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    asyncio.run(main())
