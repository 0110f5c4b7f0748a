#!/usr/bin/env python3
"""A small live-data server on PyPI `websockets`, speaking the manager's JSON protocol.

Client → server (the manager's SubscriptionProtocol.json, plus test commands):
  {"type":"subscribe","topic":T}     {"type":"unsubscribe","topic":T}
  {"type":"resume","after":N}        set this connection's cursor to N and replay logged messages
                                     with seq > N on its topics; a later subscribe replays that
                                     topic's messages after the cursor (either order works)
  {"type":"publish","topic":T,"data":D}        log and broadcast {"seq":N,"topic":T,"data":D}
  {"type":"publish-then-reset","topic":T,"data":D}  log it without delivering, then RST this connection
  {"type":"reset"}                   RST this connection (no close frame)
  {"type":"close","code":C}          close this connection with code C
The server prints one line per subscription to stderr as "CONN TOPIC" (for debugging) and
keeps the message log across connections, as a real server's replay log would.
Usage: live_server.py  (prints "PORT n")
"""
import asyncio
import itertools
import json
import socket
import struct
import sys

from websockets.asyncio.server import serve

import peer_common

log = []  # (seq, topic, data)
subscribers = {}  # connection -> set of topics
connection_numbers = itertools.count(1)


def reset(ws):
    sock = ws.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    ws.transport.abort()


def append(topic, data):
    seq = len(log) + 1
    log.append((seq, topic, data))
    return json.dumps({"seq": seq, "topic": topic, "data": data})


async def handler(ws):
    number = next(connection_numbers)
    topics = subscribers.setdefault(ws, set())
    cursor = None  # set by a resume request
    try:
        async for raw in ws:
            request = json.loads(raw)
            kind = request.get("type")
            if kind == "subscribe":
                topics.add(request["topic"])
                print(f"{number} {request['topic']}", file=sys.stderr, flush=True)
                if cursor is not None:
                    for seq, topic, data in log:
                        if seq > cursor and topic == request["topic"]:
                            await ws.send(json.dumps({"seq": seq, "topic": topic, "data": data}))
            elif kind == "unsubscribe":
                topics.discard(request["topic"])
            elif kind == "resume":
                cursor = request["after"]
                for seq, topic, data in log:
                    if seq > request["after"] and topic in topics:
                        await ws.send(json.dumps({"seq": seq, "topic": topic, "data": data}))
            elif kind == "publish":
                message = append(request["topic"], request["data"])
                for other, their_topics in list(subscribers.items()):
                    if request["topic"] in their_topics:
                        try:
                            await other.send(message)
                        except Exception:
                            pass
            elif kind == "publish-then-reset":
                append(request["topic"], request["data"])
                reset(ws)
                return
            elif kind == "reset":
                reset(ws)
                return
            elif kind == "close":
                await ws.close(int(request["code"]), request.get("reason", ""))
                return
    finally:
        subscribers.pop(ws, None)


async def main():
    peer_common.exit_with_parent()
    async with serve(handler, "127.0.0.1", 0, ping_interval=None, compression=None) as server:
        peer_common.announce(server.sockets[0].getsockname()[1])
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    asyncio.run(main())
