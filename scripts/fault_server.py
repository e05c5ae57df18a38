#!/usr/bin/env python3
"""A small HTTP/1.1 server on raw sockets that misbehaves on purpose, for what httpbin cannot do.

Standard library only. It speaks HTTP/1.1 with keep-alive, keeps a journal of every request it parsed, and answers
these paths (query parameters in brackets):

  /echo                     the request as JSON: method, path, query, headers (in order), body (text and base64)
  /status/<code>            that status; [header=Name:Value, repeatable] [body=text] [reason=status line phrase]
  /redirect                 [status=302] [location=URL]: a redirect
  /lengths                  value=V [value=W ...]: a 200 with one Content-Length field per value, exactly as given,
                            then the body "abcd" and a close (values that disagree or are not numbers)
  /set-cookie               [name=flavor] [key=K]: sets the cookie name=cookie-K-77 (a value the request never held)
  /loop                     a 302 to itself, forever
  /huge-head                [bytes=300000] [single=1]: a 200 whose head has about that many bytes (in one field)
  /delay                    [ms=1000]: waits, then a small 200
  /fast                     a small 200 at once
  /hold                     [ms=300] [key=K]: a 200 after MS milliseconds
  /drip                     [bytes=20] [interval_ms=100]: one byte per interval, with a Content-Length
  /gated                    key=K [first=4] [rest=4]: FIRST bytes "a", then waits (up to 20 s) until /_open?key=K,
                            then REST bytes "b"; "T" instead when nobody opened it in time. A client that hands over
                            the first bytes as they arrive can open the gate from them; one that buffers cannot.
  /close-mid-body           [length=1000] [send=100]: announces length bytes, sends some, closes
  /close-soon               [ms=300]: a whole 200 that keeps the connection alive by every sign, then closes it
                            ms later without reading another request (a keep-alive timeout racing the next call)
  /bad-chunking             a chunked body whose chunk-size line is not hex
  /chunked-with-length      [length=8388608]: the body "hello", chunked, with a Content-Length of LENGTH beside
                            Transfer-Encoding (a length the chunks override, RFC 9112 §6.3)
  /not-gzip                 Content-Encoding: gzip over a body that is not gzip
  /truncated-gzip           a 12,000-byte gzip body cut to its first 6 bytes, Content-Length 6
  /coded                    [size=N coding=gzip|deflate raw=1 members=M keep=P chunked=1 garbage=G]: N known bytes
                            in a content coding, or several stacked (coding=deflate,gzip; identity passes), (X-Plain-SHA256 names them), cut to P percent with a consistent
                            Content-Length, in M gzip members, raw deflate, chunked, with G zero bytes after, or
                            [first=F] its first F coded bytes sent alone
  /chunked                  [total=N] [chunk=65536]: N bytes, chunked, as fast as the socket takes them
  /gzip-bomb                [total=N]: N zero bytes gzip-compressed (about N/1000 on the wire), chunked
  /flaky                    [key=K] [failures=2] [status=503] [retry_after=S]: the first `failures` requests with this
                            key get `status` (with Retry-After if given), later ones 200 "ok after N"
  /protected                [token=T]: 401 with WWW-Authenticate unless Authorization is "Bearer T", else 200
  /sink                     [pace_ms=M]: reads the body as it streams, M ms per MiB (any size, Content-Length or chunked) and answers JSON
                            {"bytes": n, "sha256": hex}; [multipart=1]: parses multipart/form-data on the fly and
                            answers {"parts": [{"name", "filename", "contentType", "bytes", "sha256"}]}
  /source/<N>               N deterministic bytes with an ETag, honouring Range and If-Range; [etag=v1] names the
                            content (another etag is other bytes); [ranges=0]: ignore Range, no Accept-Ranges;
                            [key=K] [cut=F]: the first full request with this key closes the connection after the
                            fraction F of the body; [changed=v2]: after that cut the content is v2 (a changed file);
                            [digest=1]: answer {"sha256": hex, "etag": ...} of the content instead;
                            [pace_ms=M]: pause M ms after each MiB sent; [key=K] [hold_ms=M]: the first request
                            for K pauses M ms after its first MiB; [bad_range=1]: a 206 whose Content-Range
                            starts one byte later than asked; [huge_range=1]: a 206 whose Content-Range ends at
                            byte 2^63-1 of an unknown total (a length past 63 bits); [range_extra=K]: a 206 whose
                            Content-Length and body are K bytes longer than its Content-Range (`endless`: no Content-Length, and
                            bytes past the range until the client closes, 256 MiB at most); [range_total=M]: a
                            206 whose Content-Range names M as the total; [unsatisfiable=S]: every range request gets 416
                            with `bytes */S` (these three also as headers X-Fault-Range-Extra, -Range-Total and
                            -Unsatisfiable, so that a resumed download keeps its URL); [gzip_range=1]: a 206 that
                            says Content-Encoding: gzip but is not; [weak_etag=1]: a weak ETag (W/"…") and no
                            Last-Modified; [gzip=1]: the whole content gzip-compressed, with Content-Encoding: gzip and
                            the compressed length (a cut applies to the compressed bytes);
                            [disposition=name]:
                            a Content-Disposition with that file name
  /sse                      event streams (text/event-stream, the body ends with the connection):
                            [script=resume]: events 1-3 and half of 4, then a drop; a request with Last-Event-ID N
                            gets N+1 to 5, and one with 5 a 204; [script=retry] [retry_ms=300]: `retry:` and event 1,
                            a drop, event 2, a drop, then 204; [script=storm]: retry: 0, one event and a close on
                            every connection, for ever; [script=endless] [interval_ms=20] [key=K]: an event
                            every interval until the client closes; [script=plain]: a text/plain body
  /_open                    key=K: opens /gated's gate for K
  /_holds                   [key=K]: {"peak": most requests of K held at once, "connections": distinct client ports,
                            "requests": how many}
  /_sse_closed              [key=K]: {"closedAt": seconds since the epoch when the endless stream K saw its close,
                            "clientPort": the client's port of that connection}
  /_journal                 GET: the requests parsed so far as JSON (each with "at", seconds since the epoch),
                            [contains=S] only those whose target contains S;
                            DELETE: forget them

The port is printed on stdout as `port <n>` once the server listens. Stop it with SIGTERM or SIGINT.
"""

import base64
import gzip
import hashlib
import json
import random
import select
import signal
import socket
import socketserver
import sys
import threading
import time
import zlib
from urllib.parse import parse_qs, quote, urlsplit

JOURNAL = []
JOURNAL_LOCK = threading.Lock()
BOMB_CACHE = {}
FLAKY = {}
FLAKY_LOCK = threading.Lock()
BOMB_LOCK = threading.Lock()
SOURCE_CUTS = {}
SOURCE_LOCK = threading.Lock()
# The source's content repeats a pseudo-random block whose odd length never lines up with chunks or ranges.
SOURCE_BLOCK_LENGTH = (1 << 20) + 7
SOURCE_BLOCKS = {}
DIGESTS = {}

# Paths whose body the handler reads itself, as it streams, instead of the request parser.
STREAMED_PATHS = ("/sink",)


class ClientGone(Exception):
    """The peer closed the connection."""


class Request:
    def __init__(self, method, target, version, headers, body):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers  # list of (name, value) in the order received
        self.body = body
        parts = urlsplit(target)
        self.path = parts.path
        self.query = parse_qs(parts.query, keep_blank_values=True)

    def header(self, name):
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return None

    def arg(self, name, default=None):
        values = self.query.get(name)
        return values[0] if values else default

    def int_arg(self, name, default):
        return int(self.arg(name, str(default)))


class Connection:
    """Buffered reading of one socket."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def read_line(self, limit=65536):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > limit:
                raise ValueError("header line too long")
            data = self.sock.recv(65536)
            if not data:
                raise ClientGone()
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def read_exactly(self, count):
        while len(self.buffer) < count:
            data = self.sock.recv(max(65536, count - len(self.buffer)))
            if not data:
                raise ClientGone()
            self.buffer += data
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_some(self, limit):
        """Up to `limit` bytes: what is buffered, or one read from the socket."""
        if not self.buffer:
            data = self.sock.recv(limit)
            if not data:
                raise ClientGone()
            return data
        data, self.buffer = self.buffer[:limit], self.buffer[limit:]
        return data

    def body_pieces(self, request):
        """The request's body in pieces as they arrive, for Content-Length or chunked framing."""
        if (request.header("Transfer-Encoding") or "").lower() == "chunked":
            while True:
                size = int(self.read_line().split(b";")[0], 16)
                if size == 0:
                    while self.read_line() != b"":
                        pass
                    return
                while size > 0:
                    piece = self.read_some(min(size, 1 << 20))
                    size -= len(piece)
                    yield piece
                self.read_line()
        else:
            remaining = int(request.header("Content-Length") or "0")
            while remaining > 0:
                piece = self.read_some(min(remaining, 1 << 20))
                remaining -= len(piece)
                yield piece

    def read_request(self):
        line = self.read_line()
        while line == b"":  # tolerate stray CRLF between requests
            line = self.read_line()
        method, target, version = line.decode("latin-1").split(" ", 2)
        headers = []
        while True:
            line = self.read_line()
            if line == b"":
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers.append((name.strip(), value.strip()))
        request = Request(method, target, version, headers, b"")
        if request.path in STREAMED_PATHS:
            return request
        if (request.header("Transfer-Encoding") or "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.read_line().split(b";")[0], 16)
                if size == 0:
                    while self.read_line() != b"":
                        pass
                    break
                chunks.append(self.read_exactly(size))
                self.read_line()
            request.body = b"".join(chunks)
        else:
            length = int(request.header("Content-Length") or "0")
            request.body = self.read_exactly(length) if length else b""
        return request


def head(status, headers, reason=None):
    reasons = {200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
               307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
               206: "Partial Content", 404: "Not Found", 416: "Range Not Satisfiable", 500: "Internal Server Error",
               503: "Service Unavailable"}
    lines = ["HTTP/1.1 %d %s" % (status, reason or reasons.get(status, "Status"))]
    lines += ["%s: %s" % (name, value) for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def respond(sock, status, body=b"", headers=(), content_type="text/plain", reason=None):
    all_headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))] + list(headers)
    sock.sendall(head(status, all_headers, reason) + body)


def bomb(total):
    """gzip of `total` zero bytes, compressed once and cached."""
    with BOMB_LOCK:
        if total not in BOMB_CACHE:
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
            block = bytes(1 << 20)
            parts = []
            remaining = total
            while remaining > 0:
                size = min(remaining, len(block))
                parts.append(compressor.compress(block[:size]))
                remaining -= size
            parts.append(compressor.flush())
            BOMB_CACHE[total] = b"".join(parts)
        return BOMB_CACHE[total]


def send_chunked(sock, pieces):
    for piece in pieces:
        if piece:
            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
    sock.sendall(b"0\r\n\r\n")


def source_block(etag):
    """The repeating block of the content named `etag`, doubled so that any window of a block is one slice."""
    with SOURCE_LOCK:
        if etag not in SOURCE_BLOCKS:
            block = random.Random("nal-source-" + etag).randbytes(SOURCE_BLOCK_LENGTH)
            SOURCE_BLOCKS[etag] = memoryview(block + block)
        return SOURCE_BLOCKS[etag]


def source_pieces(etag, start, end):
    """Bytes start..<end of the content named `etag`, in pieces of at most one block."""
    block = source_block(etag)
    position = start
    while position < end:
        offset = position % SOURCE_BLOCK_LENGTH
        size = min(end - position, SOURCE_BLOCK_LENGTH)
        yield block[offset:offset + size]
        position += size


def source_digest(total, etag):
    key = (total, etag)
    with SOURCE_LOCK:
        cached = DIGESTS.get(key)
    if cached is None:
        digest = hashlib.sha256()
        for piece in source_pieces(etag, 0, total):
            digest.update(piece)
        cached = digest.hexdigest()
        with SOURCE_LOCK:
            DIGESTS[key] = cached
    return cached


def fault_arg(request, name):
    """A fault asked for in the query (`name`) or in a header (`X-Fault-Name-With-Dashes`)."""
    header = "X-Fault-" + "-".join(part.capitalize() for part in name.split("_"))
    return request.arg(name) or request.header(header)


def serve_source(sock, request, total):
    """The /source/<N> endpoint: deterministic bytes with ranges, validators and optional cuts."""
    key = request.arg("key")
    etag_name = request.arg("etag", "v1")
    with SOURCE_LOCK:
        cut_done = SOURCE_CUTS.get(key, False) if key else False
    if cut_done and request.arg("changed"):
        etag_name = request.arg("changed")
    etag = '"%s-%d"' % (etag_name, total)
    if request.arg("weak_etag") == "1":
        etag = "W/" + etag
    if request.arg("digest") == "1":
        body = json.dumps({"sha256": source_digest(total, etag_name), "etag": etag, "bytes": total}).encode()
        respond(sock, 200, body, content_type="application/json")
        return True
    ranges = request.arg("ranges", "1") != "0"
    start, end, status = 0, total, 200
    wanted = request.header("Range") if ranges else None
    if_range = request.header("If-Range")
    if wanted and wanted.startswith("bytes=") and (if_range is None or if_range == etag):
        first, _, last = wanted[len("bytes="):].partition("-")
        if first.isdigit():
            start = int(first)
            end = min(total, int(last) + 1) if last.isdigit() else total
            unsatisfiable = fault_arg(request, "unsatisfiable")
            if start >= total or unsatisfiable:
                claimed = int(unsatisfiable or total)
                respond(sock, 416, b"", headers=[("Content-Range", "bytes */%d" % claimed)])
                return True
            status = 206
    extra_arg = fault_arg(request, "range_extra") if status == 206 else None
    endless = extra_arg == "endless"
    extra = 0 if endless else int(extra_arg or 0)
    headers = [("Content-Type", "application/octet-stream"), ("ETag", etag)]
    if endless:
        headers.append(("Connection", "close"))
    else:
        headers.append(("Content-Length", str(end - start + extra)))
    if ranges:
        headers.append(("Accept-Ranges", "bytes"))
    if request.arg("disposition"):
        headers.append(("Content-Disposition", "attachment; filename*=UTF-8''" + quote(request.arg("disposition"))))
    if status == 206 and request.arg("gzip_range") == "1":
        headers.append(("Content-Encoding", "gzip"))
    if status == 206:
        # [bad_range=1]: a Content-Range that starts one byte after what was asked, as a broken server sends.
        shift = 1 if request.arg("bad_range") == "1" else 0
        claimed_total = int(fault_arg(request, "range_total") or total)
        if request.arg("huge_range") == "1":
            headers.append(("Content-Range", "bytes %d-9223372036854775807/*" % start))
        else:
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start + shift, end - 1, claimed_total)))
    stop = end
    cut = request.arg("cut")
    if cut and key and not cut_done and status == 200:
        stop = int(total * float(cut))
        with SOURCE_LOCK:
            SOURCE_CUTS[key] = True
    if request.arg("gzip") == "1" and status == 200:
        # The whole content compressed, and cut (if asked) in its compressed bytes.
        packed = gzip.compress(b"".join(source_pieces(etag_name, 0, total)))
        headers = [(name, value) for name, value in headers if name != "Content-Length"]
        headers += [("Content-Encoding", "gzip"), ("Content-Length", str(len(packed)))]
        if stop != end:
            packed_stop = int(len(packed) * float(cut))
        else:
            packed_stop = len(packed)
        sock.sendall(head(status, headers))
        sock.sendall(packed[:packed_stop])
        return packed_stop == len(packed)
    sock.sendall(head(status, headers))
    pause = request.int_arg("pace_ms", 0) / 1000
    # [hold_ms=M] with a key: the first request for the key waits M ms after its first MiB, once; later ones do not.
    hold = request.int_arg("hold_ms", 0) / 1000
    if hold and key:
        with SOURCE_LOCK:
            if ("hold", key) in SOURCE_CUTS:
                hold = 0
            SOURCE_CUTS[("hold", key)] = True
    for piece in source_pieces(etag_name, start, stop):
        sock.sendall(piece)
        if pause:
            time.sleep(pause * len(piece) / (1 << 20))
        if hold:
            time.sleep(hold)
            hold = 0
    if extra:
        sock.sendall(b"x" * extra)
    if endless:
        # A body framed by the close: bytes past the range until the client hangs up, or 256 MiB. The cap frees a
        # client that cannot hang up at once: FoundationNetworking cancels on the work queue all its sessions
        # share, which a loopback sender faster than it reads can keep busy (seen as a minute-long stall of a
        # whole test run).
        try:
            for _ in range(4096):
                sock.sendall(b"x" * 65536)
        except OSError:
            pass
        return False
    return stop == end


def sink(sock, connection, request):
    """The /sink endpoint: counts and hashes the body as it streams, or each part of a multipart body."""
    pieces = connection.body_pieces(request)
    pace = request.int_arg("pace_ms", 0) / 1000
    if pace:
        def paced(source):
            for piece in source:
                time.sleep(pace * len(piece) / (1 << 20))
                yield piece
        pieces = paced(pieces)
    if request.arg("multipart") != "1":
        digest, count = hashlib.sha256(), 0
        for piece in pieces:
            digest.update(piece)
            count += len(piece)
        body = {"bytes": count, "sha256": digest.hexdigest()}
    else:
        content_type = request.header("Content-Type") or ""
        boundary = content_type.split("boundary=", 1)[1].strip('"') if "boundary=" in content_type else ""
        body = {"parts": MultipartSink(boundary.encode()).consume(pieces)}
    respond(sock, 200, json.dumps(body).encode(), content_type="application/json")


class MultipartSink:
    """Parses a multipart/form-data stream without holding it: each part's headers, size and SHA-256."""

    def __init__(self, boundary):
        self.delimiter = b"\r\n--" + boundary
        self.parts = []

    def consume(self, pieces):
        buffer = b"\r\n"  # so that the first delimiter looks like every other
        part = None
        in_headers = False
        for piece in pieces:
            buffer += piece
            while True:
                if in_headers:
                    end = buffer.find(b"\r\n\r\n")
                    if end < 0:
                        break
                    part = self.start_part(buffer[:end])
                    buffer = buffer[end + 4:]
                    in_headers = False
                    continue
                found = buffer.find(self.delimiter)
                if found < 0:
                    keep = len(self.delimiter) + 4
                    if part is not None and len(buffer) > keep:
                        self.feed(part, buffer[:-keep])
                        buffer = buffer[-keep:]
                    break
                if part is not None:
                    self.feed(part, buffer[:found])
                    self.finish(part)
                    part = None
                after = buffer[found + len(self.delimiter):]
                if len(after) < 2:
                    break
                if after.startswith(b"--"):
                    return self.parts
                buffer = after[2:]  # the CRLF after the delimiter
                in_headers = True
        return self.parts

    def start_part(self, raw):
        entry = {"name": None, "filename": None, "contentType": None, "bytes": 0, "digest": hashlib.sha256()}
        for line in raw.decode("utf-8", "replace").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "content-type":
                entry["contentType"] = value.strip()
            elif name.lower() == "content-disposition":
                for parameter in value.split(";")[1:]:
                    key, _, quoted = parameter.strip().partition("=")
                    if key in ("name", "filename"):
                        entry[key] = quoted[1:-1] if quoted.startswith('"') else quoted
        return entry

    def feed(self, part, data):
        part["bytes"] += len(data)
        part["digest"].update(data)

    def finish(self, part):
        part["sha256"] = part.pop("digest").hexdigest()
        self.parts.append(part)


HOLDS = {}
HOLD_LOCK = threading.Lock()
GATES = {}
GATE_LOCK = threading.Lock()


def gate(key):
    with GATE_LOCK:
        return GATES.setdefault(key, threading.Event())
SSE_CLOSED = {}
SSE_CLIENT_PORT = {}
SSE_LOCK = threading.Lock()


def event_block(number, data=None):
    return b"id: %d\ndata: %s\n\n" % (number, (data or "event %d" % number).encode())


def serve_events(sock, request):
    """Event streams for reconnection tests; the body ends when the connection closes."""
    script = request.arg("script", "resume")
    last = request.header("Last-Event-ID")
    stream_head = head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                             ("Connection", "close")])
    if script == "plain":
        respond(sock, 200, b"these are not events", content_type="text/plain")
        return
    if script == "resume":
        # Events 1 to 3, then half of event 4 and a drop; a reconnection resumes after its Last-Event-ID up to 5,
        # and one that has seen 5 gets a 204.
        seen = int(last) if last and last.isdigit() else 0
        if seen >= 5:
            respond(sock, 204)
            return
        if seen == 0:
            sock.sendall(stream_head + b"".join(event_block(n) for n in (1, 2, 3)) + b"id: 4\ndata: half of")
            return
        sock.sendall(stream_head + b"".join(event_block(n) for n in range(seen + 1, 6)))
        return
    if script == "retry":
        # A retry: of RETRY_MS with event 1, a drop, then event 2 and a drop, then a 204.
        seen = int(last) if last and last.isdigit() else 0
        if seen >= 2:
            respond(sock, 204)
            return
        prefix = b"retry: %d\n" % request.int_arg("retry_ms", 300) if seen == 0 else b""
        sock.sendall(stream_head + prefix + event_block(seen + 1))
        return
    if script == "storm":
        # Every connection: retry: 0, one event, and a close, for ever: a client without a floor reconnects at once.
        sock.sendall(stream_head + b"retry: 0\ndata: storm\n\n")
        return
    if script == "endless":
        # An event every INTERVAL_MS until the client closes; when it did is kept for /_sse_closed?key=.
        interval = request.int_arg("interval_ms", 20) / 1000
        key = request.arg("key", "")
        with SSE_LOCK:
            SSE_CLIENT_PORT[key] = sock.getpeername()[1]
        sock.sendall(stream_head)
        number = 0
        try:
            while True:
                number += 1
                sock.sendall(b"data: tick %d\n\n" % number)
                readable, _, _ = select.select([sock], [], [], interval)
                if readable and not sock.recv(1024):
                    break
        except OSError:
            pass
        with SSE_LOCK:
            SSE_CLOSED[key] = time.time()
        return
    respond(sock, 404, b"no such script")


def handle(sock, request, connection=None):
    """Answers one request. Returns False when the connection must close afterwards."""
    path = request.path
    if path == "/_journal":
        # Copied under the lock, filtered and encoded outside it: a journal of thousands of entries (the race and
        # soak tests) must not hold back every request handler while it is written out.
        with JOURNAL_LOCK:
            if request.method == "DELETE":
                JOURNAL.clear()
            entries = list(JOURNAL)
        contains = request.arg("contains")
        if contains:
            entries = [entry for entry in entries if contains in entry["target"]]
        respond(sock, 200, json.dumps(entries).encode(), content_type="application/json")
        return True

    with JOURNAL_LOCK:
        JOURNAL.append({
            "method": request.method, "target": request.target, "headers": request.headers,
            "bodyLength": len(request.body), "at": time.time(),
        })

    if path == "/_sse_closed":
        with SSE_LOCK:
            key = request.arg("key", "")
            body = json.dumps({"closedAt": SSE_CLOSED.get(key), "clientPort": SSE_CLIENT_PORT.get(key)}).encode()
        respond(sock, 200, body, content_type="application/json")
        return True
    if path == "/_open":
        gate(request.arg("key", "")).set()
        respond(sock, 200, b"open")
        return True
    if path == "/_holds":
        with HOLD_LOCK:
            entry = HOLDS.get(request.arg("key", ""), {"open": 0, "peak": 0, "ports": set(), "requests": 0})
            body = json.dumps({"peak": entry["peak"], "connections": len(entry["ports"]),
                               "requests": entry["requests"]}).encode()
        respond(sock, 200, body, content_type="application/json")
        return True
    if path == "/sse":
        serve_events(sock, request)
        return False
    if path == "/sink":
        sink(sock, connection, request)
        return (request.header("Connection") or "").lower() != "close"
    if path.startswith("/source/"):
        keep_open = serve_source(sock, request, int(path[len("/source/"):]))
        return keep_open and (request.header("Connection") or "").lower() != "close"
    if path == "/echo":
        body = json.dumps({
            "method": request.method, "path": path, "target": request.target,
            "query": {key: values for key, values in request.query.items()},
            "headers": request.headers,
            "body": request.body.decode("utf-8", "replace"),
            "bodyBase64": base64.b64encode(request.body).decode(),
            "bodyLength": len(request.body),
        }).encode()
        respond(sock, 200, body, content_type="application/json")
    elif path.startswith("/status/"):
        extra = [tuple(item.split(":", 1)) for item in request.query.get("header", [])]
        respond(sock, int(path[len("/status/"):]), request.arg("body", "").encode(), headers=extra,
                reason=request.arg("reason"))
    elif path == "/lengths":
        fields = [("Content-Length", value) for value in request.query.get("value", [])]
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Connection", "close")] + fields) + b"abcd")
        return False
    elif path == "/redirect":
        status = request.int_arg("status", 302)
        respond(sock, status, b"redirecting", headers=[("Location", request.arg("location", "/echo"))])
    elif path == "/flaky":
        key = request.arg("key", "")
        with FLAKY_LOCK:
            FLAKY[key] = FLAKY.get(key, 0) + 1
            seen = FLAKY[key]
        if seen <= request.int_arg("failures", 2):
            extra = [("Retry-After", request.arg("retry_after"))] if request.arg("retry_after") else []
            respond(sock, request.int_arg("status", 503), b"try again", headers=extra)
        else:
            respond(sock, 200, b"ok after %d" % (seen - 1))
    elif path == "/protected":
        if request.header("Authorization") == "Bearer " + request.arg("token", ""):
            respond(sock, 200, b"authorized")
        else:
            respond(sock, 401, b"", headers=[("WWW-Authenticate", 'Bearer realm="nal"')])
    elif path == "/set-cookie":
        # A cookie whose value the client never sent: the test knows how it is made, the request does not hold it.
        value = "cookie-%s-77" % request.arg("key", "k")
        respond(sock, 200, b"set", headers=[("Set-Cookie", "%s=%s; Path=/" % (request.arg("name", "flavor"), value))])
    elif path == "/huge-head":
        # A head of about BYTES bytes in 1,000-byte fields.
        total = request.int_arg("bytes", 300000)
        if request.arg("single"):
            fields = [("X-Filler", "f" * total)]
        else:
            fields = [("X-Filler-%d" % index, "f" * 980) for index in range(total // 1000)]
        respond(sock, 200, b"after a huge head", headers=fields)
    elif path == "/loop":
        respond(sock, 302, b"", headers=[("Location", request.target)])
    elif path == "/delay":
        time.sleep(request.int_arg("ms", 1000) / 1000)
        respond(sock, 200, b"late")
    elif path == "/fast":
        respond(sock, 200, b"fast")
    elif path == "/hold":
        # Held for MS milliseconds; /_holds?key= tells how many requests of K were held at once at most, and over
        # how many connections they came.
        with HOLD_LOCK:
            entry = HOLDS.setdefault(request.arg("key", ""), {"open": 0, "peak": 0, "ports": set(), "requests": 0})
            entry["open"] += 1
            entry["requests"] += 1
            entry["peak"] = max(entry["peak"], entry["open"])
            entry["ports"].add(sock.getpeername()[1])
        try:
            time.sleep(request.int_arg("ms", 300) / 1000)
        finally:
            with HOLD_LOCK:
                entry["open"] -= 1
        respond(sock, 200, b"held")
    elif path == "/drip":
        count = request.int_arg("bytes", 20)
        interval = request.int_arg("interval_ms", 100) / 1000
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(count))]))
        for _ in range(count):
            time.sleep(interval)
            sock.sendall(b"*")
    elif path == "/gated":
        first = request.int_arg("first", 4)
        rest = request.int_arg("rest", 4)
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(first + rest))]) + b"a" * first)
        opened = gate(request.arg("key", "")).wait(20)
        sock.sendall((b"b" if opened else b"T") * rest)
    elif path == "/close-soon":
        respond(sock, 200, b"ok")
        time.sleep(request.int_arg("ms", 300) / 1000)
        return False
    elif path == "/close-mid-body":
        length = request.int_arg("length", 1000)
        sent = request.int_arg("send", 100)
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(length))]) + b"x" * sent)
        return False
    elif path == "/chunked-with-length":
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked"),
                                ("Content-Length", request.arg("length", "8388608"))])
                     + b"5\r\nhello\r\n0\r\n\r\n")
        return False
    elif path == "/bad-chunking":
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")])
                     + b"5\r\nhello\r\nzz\r\nnot a chunk\r\n0\r\n\r\n")
        return False
    elif path == "/not-gzip":
        respond(sock, 200, b"this body is plain text, not gzip", headers=[("Content-Encoding", "gzip")])
    elif path == "/coded":
        # SIZE deterministic bytes in a content coding: gzip (several members with MEMBERS), deflate with its zlib
        # wrapper or raw (RAW=1); KEEP percent of the coded bytes sent with a Content-Length that says so (a coding
        # cut short with consistent framing), chunked with CHUNKED=1; GARBAGE bytes after the coded stream.
        size = request.int_arg("size", 50000)
        plain = bytes((i * 7 + i // 251) % 256 for i in range(size))
        # CODING may stack several, applied in the order listed ("deflate,gzip" is gzip over deflate).
        codings = [c.strip() for c in request.arg("coding", "gzip").split(",")]
        coding = ", ".join(codings)
        coded = plain
        for one in codings:
            if one == "identity":
                continue
            if one == "deflate":
                compressor = zlib.compressobj(6, zlib.DEFLATED, -15 if request.int_arg("raw", 0) else 15)
                coded = compressor.compress(coded) + compressor.flush()
            else:
                members = max(1, request.int_arg("members", 1))
                step = max(1, -(-len(coded) // members))
                coded = b"".join(gzip.compress(coded[i:i + step], mtime=0) for i in range(0, len(coded), step))
        coded = coded[:len(coded) * request.int_arg("keep", 100) // 100] + b"\x00" * request.int_arg("garbage", 0)
        headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", coding),
                   ("X-Plain-SHA256", hashlib.sha256(plain).hexdigest())]
        first = request.int_arg("first", 0)
        if request.int_arg("chunked", 0):
            sock.sendall(head(200, headers + [("Transfer-Encoding", "chunked")]))
            send_chunked(sock, (coded[i:i + 4096] for i in range(0, len(coded), 4096)))
        elif first:
            # The first FIRST coded bytes alone, then the rest: a client that decides the coding from them must not
            # lose them.
            sock.sendall(head(200, headers + [("Content-Length", str(len(coded)))]) + coded[:first])
            time.sleep(0.1)
            sock.sendall(coded[first:])
        else:
            sock.sendall(head(200, headers + [("Content-Length", str(len(coded)))]) + coded)
    elif path == "/unknown-coding":
        # A body in a coding no client knows, named in Content-Encoding (IN=content), in Transfer-Encoding and
        # framed by the close (IN=transfer), or in Transfer-Encoding under chunked (IN=transfer-chunked).
        where = request.arg("in", "content")
        body = b"sent as it is, in a coding named x-nal-unknown"
        if where == "transfer":
            sock.sendall(head(200, [("Transfer-Encoding", "x-nal-unknown"), ("Connection", "close")]) + body)
            return False
        if where == "transfer-chunked":
            sock.sendall(head(200, [("Transfer-Encoding", "x-nal-unknown, chunked")]))
            send_chunked(sock, [body])
        else:
            respond(sock, 200, body, headers=[("Content-Encoding", "x-nal-unknown")])
    elif path == "/truncated-gzip":
        whole = gzip.compress(bytes(range(256)) * 47, mtime=0)
        respond(sock, 200, whole[:6], headers=[("Content-Encoding", "gzip")])
    elif path == "/truncated-gzip-length-twice":
        # Content-Length sent twice with the same value, as RFC 9110 8.6 lets a recipient accept.
        whole = gzip.compress(bytes(range(256)) * 47, mtime=0)
        respond(sock, 200, whole[:6], headers=[("Content-Encoding", "gzip"), ("Content-Length", "6")])
    elif path == "/location-twice":
        # Two Location fields: the same target twice, or (?conflict=1) two different ones.
        other = "/status/500" if request.int_arg("conflict", 0) else "/fast"
        respond(sock, 302, b"moved", headers=[("Location", "/fast"), ("location", other)])
    elif path == "/latin1":
        # Field values in ISO-8859-1, not UTF-8 (head() writes them as latin-1): a plain field and a Location.
        respond(sock, 302, b"moved", headers=[("X-Latin", "caf\u00e9"), ("Location", "/latin1-target\u00e9")])
    elif path.startswith("/latin1-target"):
        respond(sock, 200, path.encode("latin-1", "replace"))
    elif path == "/trailer":
        # A chunked body followed by a trailer field (RFC 9112 7.1.2).
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked"),
                                ("Trailer", "X-Checksum")])
                     + b"2\r\nok\r\n0\r\nX-Checksum: 1234\r\n\r\n")
    elif path == "/chunked":
        total = request.int_arg("total", 1 << 20)
        chunk = b"x" * request.int_arg("chunk", 65536)
        sock.sendall(head(200, [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")]))

        def pieces():
            remaining = total
            while remaining > 0:
                piece = chunk if remaining >= len(chunk) else chunk[:remaining]
                remaining -= len(piece)
                yield piece

        send_chunked(sock, pieces())
    elif path == "/gzip-bomb":
        compressed = bomb(request.int_arg("total", 1 << 30))
        sock.sendall(head(200, [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip"),
                                ("Transfer-Encoding", "chunked")]))
        send_chunked(sock, (compressed[i:i + 65536] for i in range(0, len(compressed), 65536)))
    else:
        respond(sock, 404, b"no such path: " + path.encode())
    return (request.header("Connection") or "").lower() != "close"


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = Connection(self.request)
        try:
            while True:
                request = connection.read_request()
                if not handle(self.request, request, connection):
                    break
        except (ClientGone, ConnectionError, BrokenPipeError, OSError, ValueError):
            pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = Server(("127.0.0.1", port), Handler)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print("port %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    server.server_close()


if __name__ == "__main__":
    main()
