#!/usr/bin/env python3
"""A deliberately misbehaving WebSocket server built on the PyPI `wsproto` package.

wsproto does the opening handshake and parses what the client sends back (so it also
checks that every client frame is masked); the frames the server sends are written by
hand, so they can break RFC 6455 in the ways Autobahn|Testsuite's groups probe.

  ws://127.0.0.1:PORT/case/NAME?id=ID   run scenario NAME, record what the client sends
  ws://127.0.0.1:PORT/report?id=ID      one text message: the record, one event a line

Recorded events: "text T", "binary N", "ping HEX", "pong HEX", "close CODE REASON"
("close 1005" is an empty close: wsproto reports it so, and refuses 1005 on the wire), "invalid-frame WHY" (the client broke the protocol), "eof".
Usage: adversarial_server.py  (prints "PORT n")
"""
import asyncio
import base64
import hashlib
import struct
from urllib.parse import parse_qs, urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request
from wsproto.frame_protocol import FrameProtocol, Opcode, ParseFailed

import peer_common

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload=b"", fin=True, rsv=0, mask=None, length=None):
    """A server frame, including ones no correct server would send."""
    if isinstance(payload, str):
        payload = payload.encode()
    length = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    mask_bit = 0x80 if mask else 0
    if length <= 125:
        head += bytes([mask_bit | length])
    elif length <= 0xFFFF:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if mask:
        head += mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + payload


def close(code, reason=b""):
    return frame(0x8, struct.pack("!H", code) + reason)


BAD_UTF8 = "κόσμε".encode() + b"\xed\xa0\x80" + b"edited"
GOOD_UTF8 = "κόσμε 𝄞 €".encode()
# The limit-* scenarios' message: 100 000 bytes, the limit the tests set or one byte over it.
LIMIT_TEXT = ("é" * 50_000).encode()
LIMIT_BINARY = bytes(i % 251 for i in range(100_000))


def fragmented(opcode, payload):
    """Three fragments (the first ends inside a two-byte character), a ping after the first."""
    return [frame(opcode, payload[:33_333], fin=False), frame(0x9, b"mid"),
            frame(0x0, payload[33_333:66_666], fin=False), frame(0x0, payload[66_666:])]


# Each scenario: the bytes to send after the handshake (a list: each item is written and
# drained separately, so a list of single bytes arrives as many tiny TCP segments).
SCENARIOS = {
    # 1: framing
    "text-lengths": [frame(0x1, "x" * n) for n in (0, 125, 126, 65535, 65536)] + [close(1000)],
    "binary-lengths": [frame(0x2, bytes([n % 256]) * n) for n in (0, 125, 126, 65535, 65536)] + [close(1000)],
    "byte-by-byte": [bytes([b]) for b in frame(0x1, "hello") + frame(0x2, b"\x01\x02\x03") + close(1000)],
    # 2: ping and pong
    "ping": [frame(0x9, b"abc"), close(1000)],
    "ping-125": [frame(0x9, b"p" * 125), close(1000)],
    "ping-126": [frame(0x9, b"p" * 126)],
    "unsolicited-pong": [frame(0xA, b"nobody asked"), frame(0x1, "after"), close(1000)],
    # 3: reserved bits
    "rsv1": [frame(0x1, "x", rsv=4)],
    "rsv2": [frame(0x1, "x", rsv=2)],
    "rsv3-ping": [frame(0x9, b"", rsv=1)],
    # 4: opcodes
    "opcode-3": [frame(0x3)],
    "opcode-7": [frame(0x7)],
    "opcode-11": [frame(0xB)],
    "opcode-15": [frame(0xF)],
    # 5: fragmentation
    "fragments-with-ping": [frame(0x1, "frag", fin=False), frame(0x9, b"mid"), frame(0x0, "ment", fin=False),
                            frame(0x0, "ed"), close(1000)],
    "continuation-first": [frame(0x0, "orphan")],
    "fragmented-ping": [frame(0x9, b"a", fin=False), frame(0x0, b"b")],
    "text-inside-fragments": [frame(0x1, "a", fin=False), frame(0x1, "b")],
    # 6: UTF-8
    "bad-utf8": [frame(0x1, BAD_UTF8)],
    "bad-utf8-fragmented": [frame(0x1, BAD_UTF8[:6], fin=False), frame(0x0, BAD_UTF8[6:8], fin=False),
                            frame(0x0, BAD_UTF8[8:])],
    "good-utf8-fragmented": [frame(0x1, GOOD_UTF8[:1], fin=False), frame(0x0, GOOD_UTF8[1:4], fin=False),
                             frame(0x0, GOOD_UTF8[4:]), close(1000)],
    # 7: close handling
    "close-4001": [close(4001, b"token expired")],
    "close-empty": [frame(0x8)],
    "close-1-byte": [frame(0x8, b"\x03")],
    "close-999": [close(999)],
    "close-1005": [close(1005)],
    "close-1006": [close(1006)],
    "close-1015": [close(1015)],
    "close-2999": [close(2999)],
    "close-5000": [close(5000)],
    "close-bad-reason": [close(1000, b"\xff\xfe")],
    "close-then-text": [close(1000), frame(0x1, "too late")],
    # 9: limits (the tests set the client's limit)
    "message-2mib": [frame(0x2, bytes(2 << 20)), close(1000)],
    "length-2-62": [frame(0x2, b"", length=1 << 62)],
    "limit-text": [frame(0x1, LIMIT_TEXT), close(1000)],
    "limit-binary": [frame(0x2, LIMIT_BINARY), close(1000)],
    "limit-text-fragmented": fragmented(0x1, LIMIT_TEXT) + [close(1000)],
    "limit-binary-fragmented": fragmented(0x2, LIMIT_BINARY) + [close(1000)],
    # masking and length encoding
    "masked": [frame(0x1, "hidden", mask=b"\x01\x02\x03\x04")],
    "length-top-bit": [bytes([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1])],
}

records = {}
finished = {}


async def read_request(reader):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = await reader.read(4096)
        if not chunk:
            return None
        data += chunk
    return data


async def run_case(name, case_id, reader, writer):
    record = records.setdefault(case_id, [])
    for chunk in SCENARIOS[name]:
        writer.write(chunk)
        await writer.drain()
        if len(chunk) == 1:
            await asyncio.sleep(0.001)
    parser = FrameProtocol(client=False, extensions=[])
    try:
        while True:
            data = await asyncio.wait_for(reader.read(65536), timeout=120)
            if not data:
                record.append("eof")
                return
            parser.receive_bytes(data)
            for received in parser.received_frames():
                if received.opcode is Opcode.CLOSE:
                    code, reason = received.payload
                    record.append(f"close {int(code)} {reason}".rstrip())
                    return
                if received.opcode is Opcode.PING:
                    record.append(f"ping {bytes(received.payload).hex()}")
                elif received.opcode is Opcode.PONG:
                    record.append(f"pong {bytes(received.payload).hex()}")
                elif received.opcode is Opcode.TEXT:
                    record.append(f"text {received.payload}")
                else:
                    record.append(f"binary {len(received.payload)}")
    except ParseFailed as failure:
        record.append(f"invalid-frame {failure}")
    except asyncio.TimeoutError:
        record.append("timeout")
    except ConnectionError:
        record.append("eof")


async def handle(reader, writer):
    try:
        data = await read_request(reader)
        if data is None:
            return
        connection = WSConnection(ConnectionType.SERVER)
        connection.receive_data(data)
        request = next(event for event in connection.events() if isinstance(event, Request))
        url = urlsplit(request.target)
        case_id = parse_qs(url.query).get("id", [""])[0]
        if url.path == "/case/bad-subprotocol" or url.path == "/case/bad-accept":
            key = next(v for k, v in request.extra_headers if k.lower() == b"sec-websocket-key")
            accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
            if url.path == "/case/bad-accept":
                accept = base64.b64encode(hashlib.sha1(b"wrong" + GUID).digest())
            extra = b"Sec-WebSocket-Protocol: evil\r\n" if url.path == "/case/bad-subprotocol" else b""
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         b"Sec-WebSocket-Accept: " + accept + b"\r\n" + extra + b"\r\n")
            await writer.drain()
            await asyncio.sleep(1)
            return
        writer.write(connection.send(AcceptConnection()))
        await writer.drain()
        if url.path == "/report":
            done = finished.setdefault(case_id, asyncio.Event())
            try:
                await asyncio.wait_for(done.wait(), timeout=150)
            except asyncio.TimeoutError:
                records.setdefault(case_id, []).append("report-timeout")
            writer.write(frame(0x1, "\n".join(records.get(case_id, []))) + close(1000))
            await writer.drain()
            await asyncio.sleep(0.5)
            return
        name = url.path.removeprefix("/case/")
        try:
            await run_case(name, case_id, reader, writer)
        finally:
            finished.setdefault(case_id, asyncio.Event()).set()
    except ConnectionError:
        pass
    finally:
        writer.close()


if __name__ == "__main__":
    peer_common.serve(handle)
