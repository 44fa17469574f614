#!/usr/bin/env python3
"""A minimal exec plugin for the contract suite: one TCP connection; b'p' probes are
echoed; b'b' + 8-byte length is a bulk of that many bytes, answered with the 8-byte
count received; b'q' ends. Run as `stream_peer.py server` or `stream_peer.py client`."""
import json, socket, struct, sys, time

cell = json.load(sys.stdin)


def read_exactly(sock, n):
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(min(n - len(out), 1 << 16))
        if not chunk:
            raise SystemExit("peer closed the connection")
        out += chunk
    return bytes(out)


if sys.argv[1] == "server":
    listener = socket.create_server((cell["listen"]["host"], 0))
    print(json.dumps({"port": listener.getsockname()[1]}), flush=True)
    conn, _ = listener.accept()
    while True:
        op = read_exactly(conn, 1)
        if op == b"p":
            conn.sendall(b"p")
        elif op == b"b":
            (length,) = struct.unpack(">Q", read_exactly(conn, 8))
            got = len(read_exactly(conn, length))
            conn.sendall(struct.pack(">Q", got))
        else:
            break
else:
    server = cell["server"]
    t0 = time.monotonic_ns()
    conn = socket.create_connection((server["host"], server["port"]))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connect_ms = (time.monotonic_ns() - t0) / 1e6
    rtts = []
    for _ in range(cell["rtt_probes"]):
        t = time.monotonic_ns()
        conn.sendall(b"p")
        read_exactly(conn, 1)
        rtts.append(time.monotonic_ns() - t)
    count, size = cell["payload"]["count"], cell["payload"]["size"]
    t = time.monotonic_ns()
    conn.sendall(b"b" + struct.pack(">Q", count * size) + b"x" * (count * size))
    (got,) = struct.unpack(">Q", read_exactly(conn, 8))
    bulk_ns = time.monotonic_ns() - t
    conn.sendall(b"q")
    print(json.dumps({"connect_ms": connect_ms, "rtt_ns": rtts, "bulk_ns": bulk_ns,
                      "delivery": {"sent_messages": count, "received_messages": got // size,
                                   "sent_bytes": count * size, "received_bytes": got}}))
