#!/usr/bin/env python3
"""A small HTTP/1.1 server on raw sockets that misbehaves on purpose, for what httpbin cannot do.

Standard library only. It speaks HTTP/1.1 with keep-alive, keeps a journal of every request it parsed, and answers
these paths (query parameters in brackets):

  /echo                     the request as JSON: method, path, query, headers (in order), body (text and base64)
  /status/<code>            that status; [header=Name:Value, repeatable] [body=text]
  /redirect                 [status=302] [location=URL]: a redirect
  /loop                     a 302 to itself, forever
  /delay                    [ms=1000]: waits, then a small 200
  /fast                     a small 200 at once
  /drip                     [bytes=20] [interval_ms=100]: one byte per interval, with a Content-Length
  /close-mid-body           [length=1000] [send=100]: announces length bytes, sends some, closes
  /bad-chunking             a chunked body whose chunk-size line is not hex
  /not-gzip                 Content-Encoding: gzip over a body that is not gzip
  /truncated-gzip           a 12,000-byte gzip body cut to its first 6 bytes, Content-Length 6
  /chunked                  [total=N] [chunk=65536]: N bytes, chunked, as fast as the socket takes them
  /gzip-bomb                [total=N]: N zero bytes gzip-compressed (about N/1000 on the wire), chunked
  /flaky                    [key=K] [failures=2] [status=503] [retry_after=S]: the first `failures` requests with this
                            key get `status` (with Retry-After if given), later ones 200 "ok after N"
  /protected                [token=T]: 401 with WWW-Authenticate unless Authorization is "Bearer T", else 200
  /_journal                 GET: the requests parsed so far as JSON; DELETE: forget them

The port is printed on stdout as `port <n>` once the server listens. Stop it with SIGTERM or SIGINT.
"""

import base64
import gzip
import json
import signal
import socket
import socketserver
import sys
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

JOURNAL = []
JOURNAL_LOCK = threading.Lock()
BOMB_CACHE = {}
FLAKY = {}
FLAKY_LOCK = threading.Lock()
BOMB_LOCK = threading.Lock()


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
               404: "Not Found", 500: "Internal Server Error", 503: "Service Unavailable"}
    lines = ["HTTP/1.1 %d %s" % (status, reason or reasons.get(status, "Status"))]
    lines += ["%s: %s" % (name, value) for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def respond(sock, status, body=b"", headers=(), content_type="text/plain"):
    all_headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))] + list(headers)
    sock.sendall(head(status, all_headers) + body)


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


def handle(sock, request):
    """Answers one request. Returns False when the connection must close afterwards."""
    path = request.path
    if path == "/_journal":
        with JOURNAL_LOCK:
            if request.method == "DELETE":
                JOURNAL.clear()
            body = json.dumps(JOURNAL).encode()
        respond(sock, 200, body, content_type="application/json")
        return True

    with JOURNAL_LOCK:
        JOURNAL.append({
            "method": request.method, "target": request.target, "headers": request.headers,
            "bodyLength": len(request.body),
        })

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
        respond(sock, int(path[len("/status/"):]), request.arg("body", "").encode(), headers=extra)
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
    elif path == "/loop":
        respond(sock, 302, b"", headers=[("Location", request.target)])
    elif path == "/delay":
        time.sleep(request.int_arg("ms", 1000) / 1000)
        respond(sock, 200, b"late")
    elif path == "/fast":
        respond(sock, 200, b"fast")
    elif path == "/drip":
        count = request.int_arg("bytes", 20)
        interval = request.int_arg("interval_ms", 100) / 1000
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(count))]))
        for _ in range(count):
            time.sleep(interval)
            sock.sendall(b"*")
    elif path == "/close-mid-body":
        length = request.int_arg("length", 1000)
        sent = request.int_arg("send", 100)
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Content-Length", str(length))]) + b"x" * sent)
        return False
    elif path == "/bad-chunking":
        sock.sendall(head(200, [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")])
                     + b"5\r\nhello\r\nzz\r\nnot a chunk\r\n0\r\n\r\n")
        return False
    elif path == "/not-gzip":
        respond(sock, 200, b"this body is plain text, not gzip", headers=[("Content-Encoding", "gzip")])
    elif path == "/truncated-gzip":
        whole = gzip.compress(bytes(range(256)) * 47, mtime=0)
        respond(sock, 200, whole[:6], headers=[("Content-Encoding", "gzip")])
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
                if not handle(self.request, request):
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
