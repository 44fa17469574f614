#!/usr/bin/env python3
"""An independent implementation of PeerBench's QUIC application protocol
(docs/protocol/quic.md) on aioquic, used to prove interoperability and as a
speed reference.

  peerbench_quic_peer.py server --certs DIR [--host 127.0.0.1] [--port 0] [--cell ID:REP:SEED]
      Serves one client session, prints "LISTENING <port>" once bound and a JSON
      summary when the session is over. With --cell, HELLO must carry that cell's token.
  peerbench_quic_peer.py client --certs DIR --host H --port P [--cell ID:REP:SEED]
                                [--probes N] [--count N] [--size N] [--streams single|perMessage] [--flows N]
      Runs the standard workload (HELLO with the cell's token first; 32 zero bytes
      without --cell) and prints one JSON line of results. With --flows N (2 to 16) the
      upload is N flow streams at once (section 4c, "Parallel streams"): FLOW(i), the
      flow's share of the messages, FIN; each answered with FLOW_REPORT.
  peerbench_quic_peer.py stray --certs DIR --host H --port P [--repeat N] [--interval S] [--hold S]
      A client that is not the cell's: completes a full handshake with our ALPN
      (certificate not verified), holds the connection --hold seconds, closes it;
      --repeat times, --interval seconds apart. Prints "HANDSHAKE <n> <CLOCK_MONOTONIC ns>"
      as each completes, then {"handshakes": n}.
"""
import argparse
import hashlib
import asyncio
import json
import os
import struct
import sys
import time

from aioquic.asyncio import connect, serve
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamDataReceived

ALPN = "peerbench-quic/2"
# The type bytes: one numbering with the tcp frames (docs/protocol/quic.md section 3).
PING, PONG, DATA, DONE, REPORT, HELLO, SERIES = 0x02, 0x03, 0x10, 0x11, 0x12, 0x01, 0x14
FLOW, FLOW_REPORT = 0x2A, 0x2B
CONTROL_BODY = {PING: 8, PONG: 8, DONE: 24, REPORT: 32, HELLO: 32, FLOW: 8, FLOW_REPORT: 32}
MAX_FLOWS = 16
WINDOW = 16 * 1024 * 1024


class ProtocolError(Exception):
    pass


class FrameParser:
    """Incremental parser for one stream: control frames whole, DATA bodies counted."""

    def __init__(self):
        self.buf = b""
        self.body_left = None  # remaining DATA body bytes while inside a DATA frame
        self.frames = 0  # frames seen so far (a server's: a FLOW is only a stream's first)

    def at_boundary(self):
        return not self.buf and self.body_left is None

    def feed(self, data, on_data, on_control):
        while data:
            if self.body_left is not None:
                take = min(self.body_left, len(data))
                self.body_left -= take
                data = data[take:]
                on_data(take, self.body_left == 0)
                if self.body_left == 0:
                    self.body_left = None
                continue
            self.buf += data
            data = b""
            while len(self.buf) >= 5:
                ftype, length = self.buf[0], struct.unpack(">I", self.buf[1:5])[0]
                if ftype == DATA:
                    rest = self.buf[5:]
                    self.buf = b""
                    if length == 0:
                        on_data(0, True)
                        data = rest
                    else:
                        self.body_left = length
                        data = rest
                    break
                if ftype == SERIES:
                    # The server's bulk series (u64 interval, u32 n, n x u64): a client
                    # accepts it and, like a server that MAY omit it, needs none of it.
                    if len(self.buf) < 5 + length:
                        break
                    body = self.buf[5:5 + length]
                    self.buf = self.buf[5 + length:]
                    n = struct.unpack(">I", body[8:12])[0] if length >= 12 else -1
                    if length != 12 + 8 * n:
                        raise ProtocolError("SERIES with a %d-byte body" % length)
                    on_control(SERIES, struct.unpack(">Q", body[:8]) + struct.unpack(">%dQ" % n, body[12:]))
                    continue
                if ftype not in CONTROL_BODY:
                    raise ProtocolError("unknown frame type 0x%02x" % ftype)
                if length != CONTROL_BODY[ftype]:
                    raise ProtocolError("frame 0x%02x has a %d-byte body" % (ftype, length))
                if len(self.buf) < 5 + length:
                    break
                body = self.buf[5:5 + length]
                self.buf = self.buf[5 + length:]
                on_control(ftype, struct.unpack(">%dQ" % (length // 8), body))


def cell_token(cell):
    """The HELLO token of cell "ID:REPETITION:SEED" (docs/protocol/quic.md section 4)."""
    cell_id, repetition, seed = cell.rsplit(":", 2)
    data = b"peerbench-quic/1 cell token\0" + cell_id.encode() + b"\0" + struct.pack(">QQ", int(repetition), int(seed))
    return hashlib.sha256(data).digest()


def frame(ftype, *values):
    return bytes([ftype]) + struct.pack(">I", 8 * len(values)) + struct.pack(">%dQ" % len(values), *values)


# ---------------------------------------------------------------- server

class ServerProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.parsers = {}
        # Flow streams by stream ID: [index, messages, bytes, first_ns, last_ns]; counted
        # on their own, not in the session's bulk counts.
        self.flows = {}
        self.messages = self.bytes = self.finished = 0
        self.first = self.last = None
        self.done = None
        self.reported = False
        self.hello = False

    def quic_event_received(self, event):
        if isinstance(event, StreamDataReceived):
            try:
                self.stream_data(event.stream_id, event.data, event.end_stream)
            except ProtocolError as e:
                self._quic.close(error_code=1, reason_phrase=str(e))
            self.transmit()
        elif isinstance(event, ConnectionTerminated):
            self.server_state["closed"].set()

    def stream_data(self, sid, data, fin):
        if sid % 4 != 0:
            raise ProtocolError("stream %d is not client-initiated bidirectional" % sid)
        bulk = sid != 0
        parser = self.parsers.setdefault(sid, FrameParser())

        def on_data(n, complete):
            if not bulk:
                raise ProtocolError("DATA on the control stream")
            parser.frames += 1
            now = time.monotonic_ns()
            flow = self.flows.get(sid)
            if flow is not None:
                flow[3] = flow[3] or now
                flow[4] = now
                flow[2] += n
                flow[1] += 1 if complete else 0
                return
            self.first = self.first or now
            self.last = now
            self.bytes += n
            self.messages += 1 if complete else 0

        def on_control(ftype, values):
            parser.frames += 1
            if bulk and ftype == FLOW and parser.frames == 1:
                if values[0] >= MAX_FLOWS or len(self.flows) >= MAX_FLOWS:
                    raise ProtocolError("FLOW %d: at most %d flows, indices below %d" % (values[0], MAX_FLOWS, MAX_FLOWS))
                self.flows[sid] = [values[0], 0, 0, 0, 0]
                return
            if bulk:
                raise ProtocolError("control frame on a bulk stream")
            if ftype == HELLO:
                token = struct.pack(">4Q", *values)
                if self.hello:
                    raise ProtocolError("second HELLO")
                if self.server_state["token"] is not None and token != self.server_state["token"]:
                    raise ProtocolError("HELLO carries another cell's token")
                self.hello = True
                return
            if not self.hello:
                raise ProtocolError("the first control frame was not HELLO")
            if ftype == PING:
                self._quic.send_stream_data(0, frame(PONG, *values))
            elif ftype == DONE:
                self.done = values
            else:
                raise ProtocolError("client sent frame 0x%02x" % ftype)

        parser.feed(data, on_data, on_control)
        if fin:
            if not parser.at_boundary():
                raise ProtocolError("stream %d ended inside a frame" % sid)
            flow = self.flows.get(sid)
            if flow is not None:
                self._quic.send_stream_data(sid, frame(FLOW_REPORT, *flow[1:]), end_stream=True)
            elif bulk:
                self.finished += 1
                self._quic.send_stream_data(sid, b"", end_stream=True)
        if not self.reported and self.done is not None and self.finished >= self.done[2]:
            self.reported = True
            span = (self.last - self.first) if self.first else 0
            self._quic.send_stream_data(0, frame(REPORT, self.messages, self.bytes, self.finished, span))
            self.server_state["summary"] = {"messages": self.messages, "bytes": self.bytes, "streams": self.finished,
                                            "flows": sorted([f[0], f[1], f[2]] for f in self.flows.values())}


async def run_server(args):
    config = QuicConfiguration(is_client=False, alpn_protocols=[ALPN], max_data=WINDOW, max_stream_data=WINDOW,
                               idle_timeout=args.idle)
    config.load_cert_chain(os.path.join(args.certs, "server.pem"), os.path.join(args.certs, "server-key.pem"))
    state = {"closed": asyncio.Event(), "summary": None, "token": cell_token(args.cell) if args.cell else None}

    def make(*a, **kw):
        p = ServerProtocol(*a, **kw)
        p.server_state = state
        return p

    server = await serve(args.host, args.port, configuration=config, create_protocol=make)
    port = server._transport.get_extra_info("sockname")[1]
    print("LISTENING %d" % port, flush=True)
    try:
        await asyncio.wait_for(state["closed"].wait(), timeout=args.timeout)
    finally:
        server.close()
    print(json.dumps(state["summary"]), flush=True)


# ---------------------------------------------------------------- client

class ClientProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.parser = FrameParser()
        # Flow streams by stream ID: their parser and, once it came, FLOW_REPORT's values.
        self.flow_parsers = {}
        self.flow_reports = {}
        self.pongs = {}
        self.waiter = None
        self.report = None
        self.terminated = None

    def quic_event_received(self, event):
        if isinstance(event, ConnectionTerminated):
            self.terminated = event
        if isinstance(event, StreamDataReceived):
            sid = event.stream_id
            if sid == 0:
                self.parser.feed(event.data, self.on_data, self.on_control)
            elif sid in self.flow_parsers:
                self.flow_parsers[sid].feed(event.data, self.on_data, lambda ftype, values: self.on_flow(sid, ftype, values))
            elif event.data:
                raise ProtocolError("data on bulk stream %d" % sid)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def on_data(self, n, complete):
        raise ProtocolError("DATA from the server")

    def on_flow(self, sid, ftype, values):
        if ftype != FLOW_REPORT or sid in self.flow_reports:
            raise ProtocolError("server sent frame 0x%02x on flow stream %d" % (ftype, sid))
        self.flow_reports[sid] = values

    def on_control(self, ftype, values):
        if ftype == PONG:
            self.pongs[values[0]] = time.monotonic_ns()
        elif ftype == REPORT:
            self.report = values
        elif ftype == SERIES:
            self.series = values
        else:
            raise ProtocolError("server sent frame 0x%02x" % ftype)

    async def until(self, condition):
        while not condition():
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter


async def run_client(args):
    config = QuicConfiguration(is_client=True, alpn_protocols=[ALPN], max_data=WINDOW, max_stream_data=WINDOW,
                               server_name=args.server_name or args.host, cafile=os.path.join(args.certs, "ca.pem"))
    start = time.monotonic_ns()
    async with connect(args.host, args.port, configuration=config, create_protocol=ClientProtocol) as c:
        handshake = time.monotonic_ns() - start
        quic = c._quic
        control = quic.get_next_available_stream_id()
        assert control == 0
        quic.send_stream_data(control, bytes([HELLO]) + struct.pack(">I", 32) + (cell_token(args.cell) if args.cell else bytes(32)))
        if args.violate:
            # Deliberately break the framing: an unknown frame type on the control stream.
            quic.send_stream_data(control, bytes([0x7F, 0, 0, 0, 0]))
            c.transmit()
            await c.until(lambda: c.terminated is not None)
            t = c.terminated
            print(json.dumps({"error_code": t.error_code, "reason": t.reason_phrase}), flush=True)
            return
        rtts = []
        for seq in range(args.probes):
            sent = time.monotonic_ns()
            quic.send_stream_data(control, frame(PING, seq))
            c.transmit()
            await c.until(lambda: seq in c.pongs)
            rtts.append(c.pongs.pop(seq) - sent)

        message = bytes([DATA]) + struct.pack(">I", args.size) + os.urandom(args.size)
        bulk_start = time.monotonic_ns()
        streams = 0
        flows = []
        if args.flows:
            # Flow i carries count // N messages, the first count % N one more; a flow
            # with none opens no stream. All are handed to QUIC at once.
            for i in range(args.flows):
                n = args.count // args.flows + (1 if i < args.count % args.flows else 0)
                if n == 0:
                    continue
                sid = quic.get_next_available_stream_id()
                c.flow_parsers[sid] = FrameParser()
                flows.append((i, sid, n))
                quic.send_stream_data(sid, frame(FLOW, i) + message * n, end_stream=True)
            c.transmit()
            await c.until(lambda: len(c.flow_reports) == len(flows))
        elif args.count:
            if args.streams == "single":
                sid = quic.get_next_available_stream_id()
                streams = 1
                for i in range(args.count):
                    quic.send_stream_data(sid, message, end_stream=(i == args.count - 1))
                    if i % 64 == 63:
                        c.transmit()
                        await asyncio.sleep(0)
            else:
                for i in range(args.count):
                    sid = quic.get_next_available_stream_id()
                    quic.send_stream_data(sid, message, end_stream=True)
                    streams += 1
                    if i % 64 == 63:
                        c.transmit()
                        await asyncio.sleep(0)
        sent = 0 if args.flows else args.count
        quic.send_stream_data(control, frame(DONE, sent, sent * args.size, streams))
        c.transmit()
        await c.until(lambda: c.report is not None)
        bulk = time.monotonic_ns() - bulk_start
        quic.close(error_code=0)
        c.transmit()
    r = c.report
    print(json.dumps({
        "handshake_ms": handshake / 1e6,
        "rtt_ms": [x / 1e6 for x in rtts],
        "sent_messages": args.count, "sent_bytes": args.count * args.size,
        "received_messages": r[0], "received_bytes": r[1], "bulk_streams": r[2],
        "bulk_seconds": bulk / 1e9,
        "flows": [[i, c.flow_reports[sid][0], c.flow_reports[sid][1]] for i, sid, _ in flows],
        "goodput_MBps": (r[1] / (bulk / 1e9) / 1e6) if bulk else None,
    }), flush=True)


async def run_stray(args):
    """Full handshakes that are not the cell's client, then a clean close."""
    import ssl
    config = QuicConfiguration(is_client=True, alpn_protocols=[ALPN], verify_mode=ssl.CERT_NONE)
    done = 0
    for i in range(args.repeat):
        if i:
            await asyncio.sleep(args.interval)
        async with connect(args.host, args.port, configuration=config) as c:
            await c.wait_connected()
            done += 1
            print("HANDSHAKE %d %d" % (done, time.monotonic_ns()), flush=True)
            if args.hold:
                await asyncio.sleep(args.hold)
    print(json.dumps({"handshakes": done}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("role", choices=["server", "client", "stray"])
    ap.add_argument("--certs", required=True, help="directory with ca.pem, server.pem, server-key.pem")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--server-name", default=None, help="name to verify (default: --host)")
    ap.add_argument("--probes", type=int, default=10)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--streams", choices=["single", "perMessage"], default="single")
    ap.add_argument("--flows", type=int, default=0, choices=[0] + list(range(2, MAX_FLOWS + 1)),
                    help="client: the upload as this many flow streams at once (0: the --streams upload)")
    ap.add_argument("--violate", action="store_true", help="client: send an unknown frame and report how the server closes")
    ap.add_argument("--timeout", type=float, default=120, help="server: give up after this many seconds")
    ap.add_argument("--idle", type=float, default=30)
    ap.add_argument("--cell", default=None, help="ID:REPETITION:SEED of the cell whose token HELLO carries or must carry")
    ap.add_argument("--repeat", type=int, default=1, help="stray: handshakes to make")
    ap.add_argument("--interval", type=float, default=0.2, help="stray: seconds between them")
    ap.add_argument("--hold", type=float, default=0, help="stray: seconds to keep each connection open")
    args = ap.parse_args()
    try:
        roles = {"server": run_server, "client": run_client, "stray": run_stray}
        asyncio.run(roles[args.role](args))
    except (ProtocolError, ConnectionError, asyncio.TimeoutError) as e:
        print("error: %s" % (e or type(e).__name__), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
