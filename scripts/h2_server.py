#!/usr/bin/env python3
"""An HTTPS server that speaks HTTP/2 when the client offers it (ALPN) and HTTP/1.1 otherwise, for the tests of
CurlTransport's HTTP/2 and TLS. It needs the `h2` package (scripts/lib/servers.sh installs it beside httpbin) and the
`openssl` command, which makes a throwaway self-signed certificate for the name localhost only (so that a client
reaching it as 127.0.0.1 must refuse it).

    python3 scripts/h2_server.py DIRECTORY      prints `port N`, `http1port N` and `ca PATH` once it listens

`port` offers HTTP/2 and HTTP/1.1 (ALPN); `http1port` offers HTTP/1.1 only, over the same certificate.

Every path answers JSON about the request:
  {"protocol": "h2" or "http/1.1", "path": ..., "method": ..., "connection": N (counted from 1),
   "peakStreams": most streams this connection had open at once, so far, "cookie": ...,
   "resumed": whether the connection's TLS handshake resumed an earlier session}
  [?ms=M] holds the answer M milliseconds (streams of one connection are held side by side);
  [?close=1] closes the connection once the answer is sent (HTTP/2: GOAWAY first);
  /big/<tag>?n=N (HTTP/2 only) answers N bytes of "<tag>|" repeated instead, as fast as flow control lets it, and
  stops when the client resets the stream: whose bytes a body holds shows which stream they came from;
  [end_after_ms=M] ends the stream M ms after the last byte, in a DATA frame of its own that carries [late=K]
  more bytes of "<tag>|" beyond the Content-Length (0 by default);
  /sent/<tag> adds "sent": how many bytes of /big/<tag> the server has sent so far (what flow control let out);
  "cookie": the request's Cookie field, if any; /set-cookie?name=N sets the cookie N=h2-baked.
Over HTTP/2 the answer also describes the request body: "bodyLength", "bodySHA256" (hex), "contentType" and
"contentLength" (the request's fields, or null).
"""

import hashlib
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.events

CONNECTIONS = [0]
COUNT_LOCK = threading.Lock()
# Bytes of each /big/<tag> sent so far, for /sent/<tag>; behind COUNT_LOCK.
SENT = {}


def make_certificate(directory):
    os.makedirs(directory, exist_ok=True)
    certificate, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True)
    return certificate, key


def answer(protocol, method, target, connection, peak, resumed, cookie=None, upload=None):
    parts = urlsplit(target)
    fields = {"protocol": protocol, "path": parts.path, "method": method, "connection": connection,
              "peakStreams": peak, "cookie": cookie, "resumed": resumed}
    if upload is not None:
        fields.update(upload)
    if parts.path.startswith("/sent/"):
        with COUNT_LOCK:
            fields["sent"] = SENT.get(parts.path[len("/sent/"):], 0)
    return json.dumps(fields).encode()


def closes_after(target):
    return parse_qs(urlsplit(target).query).get("close", ["0"])[0] == "1"


def cookie_to_set(target):
    """`/set-cookie?name=N` sets N=h2-baked, in a lowercase field as HTTP/2 requires."""
    parts = urlsplit(target)
    if parts.path != "/set-cookie":
        return []
    name = parse_qs(parts.query).get("name", ["flavor"])[0]
    return [("set-cookie", "%s=h2-baked; Path=/" % name)]


def hold_time(target):
    values = parse_qs(urlsplit(target).query).get("ms", ["0"])
    return int(values[0]) / 1000 if values[0].isdigit() else 0


def serve_h2(sock, number):
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    connection.initiate_connection()
    lock = threading.Lock()
    requests = {}
    # What each stream's request body has brought so far: its SHA-256, length and type.
    uploads = {}
    state = {"open": 0, "peak": 0}
    # A /big/ stream waits here for the client to open its flow-control window, or to reset the stream.
    window_changed = threading.Condition(lock)
    reset_streams = set()
    sock.sendall(connection.data_to_send())

    def send_big(stream_id, target):
        parts = urlsplit(target)
        tag = parts.path.rsplit("/", 1)[-1]
        unit = (tag + "|").encode()
        query = parse_qs(parts.query)

        def number(name, default):
            value = query.get(name, [str(default)])[0]
            return int(value) if value.isdigit() else default

        total = number("n", 1000000)
        end_after, late = number("end_after_ms", -1), number("late", 0)
        body = (unit * ((total + late) // len(unit) + 1))[:total + late]
        with lock:
            connection.send_headers(stream_id, [(":status", "200"), ("content-length", str(total))])
            sock.sendall(connection.data_to_send())
        sent = 0
        while sent < total:
            with lock:
                while stream_id not in reset_streams:
                    window = min(connection.local_flow_control_window(stream_id), connection.max_outbound_frame_size)
                    if window > 0:
                        break
                    window_changed.wait(1)
                if stream_id in reset_streams:
                    return
                chunk = body[sent:min(sent + window, total)]
                connection.send_data(stream_id, chunk, end_stream=end_after < 0 and sent + len(chunk) >= total)
                sock.sendall(connection.data_to_send())
                sent += len(chunk)
            with COUNT_LOCK:
                SENT[tag] = sent
        if end_after >= 0:
            time.sleep(end_after / 1000)
            with lock:
                if stream_id not in reset_streams:
                    connection.send_data(stream_id, body[total:], end_stream=True)
                    sock.sendall(connection.data_to_send())

    def respond(stream_id, method, target, cookie, upload):
        if urlsplit(target).path.startswith("/big/"):
            with lock:
                state["open"] -= 1
            try:
                return send_big(stream_id, target)
            except Exception:
                return
        time.sleep(hold_time(target))
        with lock:
            body = answer("h2", method, target, number, state["peak"], sock.session_reused, cookie, upload)
            state["open"] -= 1
            try:
                connection.send_headers(stream_id, [(":status", "200"), ("content-type", "application/json"),
                                                    ("content-length", str(len(body)))] + cookie_to_set(target))
                connection.send_data(stream_id, body, end_stream=True)
                if closes_after(target):
                    connection.close_connection()
                sock.sendall(connection.data_to_send())
                if closes_after(target):
                    sock.shutdown(socket.SHUT_RDWR)
            except Exception:
                pass

    while True:
        data = sock.recv(65536)
        if not data:
            return
        with lock:
            events = connection.receive_data(data)
            for event in events:
                if isinstance(event, h2.events.RequestReceived):
                    headers = {name.decode() if isinstance(name, bytes) else name:
                               value.decode() if isinstance(value, bytes) else value
                               for name, value in event.headers}
                    requests[event.stream_id] = (headers.get(":method", "GET"), headers.get(":path", "/"),
                                                 headers.get("cookie"))
                    uploads[event.stream_id] = {"hash": hashlib.sha256(), "length": 0,
                                                "contentType": headers.get("content-type"),
                                                "contentLength": headers.get("content-length")}
                    state["open"] += 1
                    state["peak"] = max(state["peak"], state["open"])
                if isinstance(event, h2.events.DataReceived):
                    # Counted and acknowledged, so that the client's window opens again for a large body.
                    upload = uploads.get(event.stream_id)
                    if upload is not None:
                        upload["hash"].update(event.data)
                        upload["length"] += len(event.data)
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                if isinstance(event, h2.events.StreamReset):
                    reset_streams.add(event.stream_id)
                if isinstance(event, (h2.events.WindowUpdated, h2.events.StreamReset,
                                      h2.events.RemoteSettingsChanged)):
                    window_changed.notify_all()
                if isinstance(event, h2.events.StreamEnded) and event.stream_id in requests:
                    method, target, cookie = requests.pop(event.stream_id)
                    upload = uploads.pop(event.stream_id, None)
                    received = None if upload is None else {
                        "bodyLength": upload["length"], "bodySHA256": upload["hash"].hexdigest(),
                        "contentType": upload["contentType"], "contentLength": upload["contentLength"]}
                    threading.Thread(target=respond, args=(event.stream_id, method, target, cookie, received),
                                     daemon=True).start()
            sock.sendall(connection.data_to_send())


def serve_http1(sock, number):
    stream = sock.makefile("rb")
    while True:
        line = stream.readline()
        if not line:
            return
        method, target = line.decode("latin-1").split(" ")[:2]
        length = 0
        while True:
            header = stream.readline().decode("latin-1").strip()
            if not header:
                break
            name, _, value = header.partition(":")
            if name.lower() == "content-length":
                length = int(value.strip() or 0)
        stream.read(length)
        time.sleep(hold_time(target))
        body = answer("http/1.1", method, target, number, 1, sock.session_reused)
        closing = b"Connection: close\r\n" if closes_after(target) else b""
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n"
                     % (closing, len(body)) + body)
        if closing:
            return


def handle(raw, context):
    try:
        sock = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    with COUNT_LOCK:
        CONNECTIONS[0] += 1
        number = CONNECTIONS[0]
    try:
        if sock.selected_alpn_protocol() == "h2":
            serve_h2(sock, number)
        else:
            serve_http1(sock, number)
    except (OSError, ValueError, h2.exceptions.ProtocolError):
        pass
    finally:
        sock.close()


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else ".build/h2-tls"
    certificate, key = make_certificate(directory)
    listeners = []
    for protocols in (["h2", "http/1.1"], ["http/1.1"]):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        context.set_alpn_protocols(protocols)
        listeners.append((socket.create_server(("127.0.0.1", 0)), context))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print("port %d" % listeners[0][0].getsockname()[1], flush=True)
    print("http1port %d" % listeners[1][0].getsockname()[1], flush=True)
    print("ca %s" % os.path.abspath(certificate), flush=True)
    threading.Thread(target=accept, args=listeners[1], daemon=True).start()
    accept(*listeners[0])


def accept(listener, context):
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=handle, args=(raw, context), daemon=True).start()


if __name__ == "__main__":
    main()
