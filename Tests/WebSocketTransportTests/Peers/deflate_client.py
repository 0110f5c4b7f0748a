#!/usr/bin/env python3
"""A permessage-deflate client on PyPI `websockets`, to judge our server's side of RFC 7692.

Usage: deflate_client.py URL JSON MODE
  JSON   keyword arguments of websockets' ClientPerMessageDeflateFactory, e.g.
         '{"server_max_window_bits": 10, "client_max_window_bits": true}'
  MODE   echo: send texts and binaries of 0 to 300,000 bytes (repeats too, for context
               takeover), check every echo, and print as JSON what websockets agreed
               ("agreed"), the server's Sec-WebSocket-Extensions ("answer"), the message
               bytes echoed ("message_bytes") and the bytes read from the socket ("wire_bytes")
         bomb: send 20,000,000 zeros as one text (about 20 KB compressed) and print the
               close code the server answered with, as JSON ("code")
Every wait has a deadline (120 s: the server runs inside a test process whose two pool
threads other tests can hold for a minute); any mismatch exits 1 with the reason on stderr.
"""
import json
import random
import socket
import sys
from urllib.parse import urlparse

from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect


DEADLINE = 120


class CountingSocket(socket.socket):
    """A socket that counts what it reads: the bytes that crossed the wire, compressed or not."""

    read = 0

    def recv(self, size, *args):
        data = super().recv(size, *args)
        self.read += len(data)
        return data

    def recv_into(self, buffer, *args):
        count = super().recv_into(buffer, *args)
        self.read += count
        return count


def messages():
    noise = random.Random(7)
    for length in [0, 1, 5, 5, 125, 4000, 70_000, 70_000, 300_000]:
        yield "héllo " * (length // 7)
        yield bytes(noise.randrange(40) for _ in range(length))


def main():
    url, options, mode = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    target = urlparse(url)
    sock = CountingSocket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(DEADLINE)
    sock.connect((target.hostname, target.port))
    with connect(
        url, sock=sock, compression=None, extensions=[ClientPerMessageDeflateFactory(**options)], proxy=None,
        open_timeout=DEADLINE, close_timeout=DEADLINE, ping_interval=None, max_size=None,
    ) as ws:
        if mode == "bomb":
            ws.send("0" * 20_000_000)
            try:
                ws.recv(timeout=DEADLINE)
                sys.exit("the server echoed the bomb")
            except ConnectionClosed as closed:
                print(json.dumps({"code": closed.rcvd.code if closed.rcvd else None}))
            return
        sent = list(messages())
        for message in sent:
            ws.send(message)
        for index, message in enumerate(sent):
            echo = ws.recv(timeout=DEADLINE)
            if echo != message:
                sys.exit(f"message {index} ({type(message).__name__}, {len(message)}) came back different")
        [extension] = ws.protocol.extensions or [None]
        agreed = None
        if extension is not None:
            agreed = {
                "server_max_window_bits": extension.remote_max_window_bits or 15,
                "client_max_window_bits": extension.local_max_window_bits or 15,
                "server_no_context_takeover": extension.remote_no_context_takeover,
                "client_no_context_takeover": extension.local_no_context_takeover,
            }
        print(json.dumps({
            "agreed": agreed,
            "answer": ws.response.headers.get("Sec-WebSocket-Extensions"),
            "message_bytes": sum(len(m.encode() if isinstance(m, str) else m) for m in sent),
            "wire_bytes": sock.read,
        }))


main()
