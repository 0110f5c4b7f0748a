#!/usr/bin/env python3
"""A minimal WebSocket server for livesim's process tests (Python standard library only).

Usage: ws_peer.py MODE, where MODE is
  silent    complete the handshake, then never send a frame (a peer that hangs)
  record    answer pings, and on a close frame print "CLOSE <code>" and answer it
  terminal  complete the handshake, then close with 1008 (policy violation)
Prints "PORT <n>" once listening. Exits when its standard input closes, so it never
outlives the test that started it.
"""
import base64, hashlib, socket, struct, sys, threading, os

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def handshake(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return False
        data += chunk
    key = b""
    for line in data.split(b"\r\n"):
        if line.lower().startswith(b"sec-websocket-key:"):
            key = line.split(b":", 1)[1].strip()
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    return True


def read_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_frame(conn):
    b0, b1 = read_exact(conn, 2)
    length = b1 & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(conn, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(conn, 8))[0]
    mask = read_exact(conn, 4) if b1 & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exact(conn, length)))
    return b0 & 0x0F, payload


def send_frame(conn, opcode, payload):
    conn.sendall(bytes([0x80 | opcode, len(payload)]) + payload)


def serve(conn, mode):
    try:
        if not handshake(conn):
            return
        if mode == "silent":
            threading.Event().wait()
        if mode == "terminal":
            send_frame(conn, 0x8, struct.pack("!H", 1008) + b"policy")
        while True:
            opcode, payload = read_frame(conn)
            if opcode == 0x9:
                send_frame(conn, 0xA, payload)
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                print("CLOSE %d" % code, flush=True)
                send_frame(conn, 0x8, payload[:2])
                return
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def main():
    mode = sys.argv[1]
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    print("PORT %d" % server.getsockname()[1], flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, mode), daemon=True).start()


main()
