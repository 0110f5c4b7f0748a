#!/usr/bin/env python3
"""The server's floor: a nearly free client doing the same sequential echo round trips.

It sends one pre-encoded masked frame with a blocking socket and reads the echo with
`recv`, no WebSocket library in the loop. Its rate is what the Python server allows; the
time a real client adds per round trip is measured against it.
Usage: python_raw_client.py PORT ROUNDS PAYLOAD_BYTES
  → prints round trips per second, and its own CPU microseconds per round trip
"""
import base64
import os
import socket
import struct
import sys
import time


def main():
    port, rounds, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    mask = b"\x01\x02\x03\x04"
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"x" * size))
    length = bytes([0x80 | size]) if size <= 125 else bytes([0x80 | 126]) + struct.pack("!H", size)
    frame = b"\x81" + length + mask + payload
    reply_length = 2 + size if size <= 125 else 4 + size

    def round_trip():
        sock.sendall(frame)
        received = 0
        while received < reply_length:
            received += len(sock.recv(65536))

    for _ in range(100):
        round_trip()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        round_trip()
    rate = rounds / (time.perf_counter() - start)
    cpu = (time.process_time() - cpu) * 1e6 / rounds
    code = struct.pack("!H", 1000)
    sock.sendall(b"\x88\x82" + mask + bytes(b ^ mask[i] for i, b in enumerate(code)))
    sock.recv(64)  # the server's close frame
    sock.close()
    print(f"{rate:.1f} {cpu:.2f}")


main()
