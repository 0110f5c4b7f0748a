#!/usr/bin/env python3
"""A WebSocket server that answers the client's pings only when told, built on the PyPI `wsproto` package.

Libraries that serve WebSocket (websockets, wsproto's usual loop) answer every ping at once
with its own payload, so a client's pong matching is never tested against a server that
answers late, answers an old ping again or pongs unasked. This one records the client's
pings in the order they arrive (ping 1, ping 2, ...) and sends pongs only on command.
The client scripts it with text messages, each answered with one text reply:

  wait N        reply "pings N" once N pings have arrived (so ping N is outstanding)
  pong K        send a pong echoing ping K's payload, then reply "ponged K"
  unsolicited   send a pong whose payload no ping carried, then reply "ponged unsolicited"

`pong K` waits for ping K too. The pong goes out before the reply, so when the client has
read the reply it has read the pong. A wait gives up after 120 s and replies "timeout ...".

Usage: pong_server.py  (prints "PORT n")
"""
import asyncio

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Ping, Pong, Request, TextMessage

import peer_common

UNSOLICITED = b"unsolicited pong"
WAIT_LIMIT = 120


class Session:
    def __init__(self, writer):
        self.writer = writer
        self.connection = WSConnection(ConnectionType.SERVER)
        self.pings = []
        self.arrived = asyncio.Condition()
        self.commands = asyncio.Queue()

    async def send(self, event):
        self.writer.write(self.connection.send(event))
        await self.writer.drain()

    async def wait_for_pings(self, count):
        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: len(self.pings) >= count), WAIT_LIMIT)

    async def run_commands(self):
        while True:
            command, _, argument = (await self.commands.get()).partition(" ")
            try:
                if command == "wait":
                    await self.wait_for_pings(int(argument))
                    reply = f"pings {argument}"
                elif command == "pong":
                    await self.wait_for_pings(int(argument))
                    await self.send(Pong(payload=self.pings[int(argument) - 1]))
                    reply = f"ponged {argument}"
                elif command == "unsolicited" and UNSOLICITED in self.pings:
                    reply = "a ping carried the unsolicited payload"
                elif command == "unsolicited":
                    await self.send(Pong(payload=UNSOLICITED))
                    reply = "ponged unsolicited"
                else:
                    reply = f"unknown command {command}"
            except asyncio.TimeoutError:
                reply = f"timeout waiting for ping {argument}"
            await self.send(TextMessage(data=reply))

    async def read(self, reader):
        """Feeds wsproto until the client closes; pings are recorded, never answered here."""
        text = ""
        while True:
            data = await reader.read(65536)
            if not data:
                return
            self.connection.receive_data(data)
            for event in self.connection.events():
                if isinstance(event, Request):
                    await self.send(AcceptConnection())
                elif isinstance(event, Ping):
                    async with self.arrived:
                        self.pings.append(bytes(event.payload))
                        self.arrived.notify_all()
                elif isinstance(event, TextMessage):
                    text += event.data
                    if event.message_finished:
                        self.commands.put_nowait(text)
                        text = ""
                elif isinstance(event, CloseConnection):
                    await self.send(event.response())
                    return


async def handle(reader, writer):
    session = Session(writer)
    commands = asyncio.create_task(session.run_commands())
    try:
        await session.read(reader)
    except ConnectionError:
        pass
    finally:
        commands.cancel()
        writer.close()


if __name__ == "__main__":
    peer_common.serve(handle)
