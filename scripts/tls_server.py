#!/usr/bin/env python3
"""HTTPS servers for the tests of TLSConfiguration: a private certificate authority, made here with the `openssl`
command, and one server per case it signs (or does not). Python's standard library only.

    python3 scripts/tls_server.py DIRECTORY     writes the certificates and DIRECTORY/servers.json, then prints
                                                `ready DIRECTORY` once every server listens

servers.json holds {"ports": {NAME: PORT}, "pins": {NAME: PIN}, "passphrase": ...}. A pin is the base64 SHA-256 of a
certificate's SubjectPublicKeyInfo, made with the openssl pipeline that users run. The servers, all on 127.0.0.1, all
with certificates for the name localhost unless said otherwise:
  trusted            a leaf of ca.pem (TLS 1.2 and 1.3)
  chain              a leaf of intermediate.pem (itself of ca.pem); the server sends the intermediate along
  other-ca           a leaf of other-ca.pem
  self-signed        a certificate that signs itself
  expired            a leaf of ca.pem that expired in 2020
  wrong-host         a leaf of ca.pem for other.example only
  tls12-only         as trusted, TLS 1.2 at most
  client-auth        as trusted, and asks for a client certificate of client-ca.pem, which it requires
  client-auth-tls12  the same, TLS 1.2 at most
  optional-client-auth  as trusted, and asks for a client certificate of client-ca.pem, which it does not require
  hangup             as trusted, and closes each connection once its handshake is done, answering nothing
Files for clients: ca.pem, other-ca.pem, intermediate.pem; client.pem with client-key.pem (unencrypted) and
client-key-encrypted.pem (the passphrase); stranger.pem and stranger-key.pem (a client of a CA nobody trusts);
not-pem.txt (text that is no PEM).

Every server answers any request with JSON: {"path": ..., "tls": "TLSv1.3", "client": CN of the client certificate
or null, "headers": [the request's field names, lowercased]}, and closes the connection.

Two forward proxies (plain HTTP, on 127.0.0.1), for proxy tests through `https_proxy` and `http_proxy`:
  proxy              CONNECT tunnels (to 127.0.0.1 or localhost only) and absolute-form requests, no credentials
  proxy-auth         the same, and 407 without `Proxy-Authorization: Basic` of nal:proxy-secret
Each keeps a journal: GET /__journal, sent to the proxy itself, answers a JSON list of {"method", "target",
"proxyAuthorization": whether the field came, "authorized"}.
"""

import base64
import json
import select
import os
import socket
import ssl
import subprocess
import sys
import threading

PASSPHRASE = "nal test passphrase"
PROXY_CREDENTIALS = "nal:proxy-secret"

CA_CONFIG = """[ca]
default_ca = signing
[signing]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[anything]
commonName = supplied
[server]
subjectAltName = DNS:$ENV::NAL_SAN
basicConstraints = critical,CA:FALSE
extendedKeyUsage = serverAuth
[client]
basicConstraints = critical,CA:FALSE
extendedKeyUsage = clientAuth
[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
"""


def openssl(directory, *arguments, environment=None):
    subprocess.run(["openssl", *arguments], cwd=directory, check=True, capture_output=True,
                   env={**os.environ, "NAL_SAN": "localhost", **(environment or {})})


def make_authority(directory, name, common_name):
    openssl(directory, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}-key.pem", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={common_name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")


def sign(directory, authority, name, common_name, extensions, dates=("-days", "2"), san="localhost"):
    """A key and a certificate for `name`, signed by `authority`."""
    openssl(directory, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}-key.pem", "-out", f"{name}.csr", "-subj", f"/CN={common_name}")
    openssl(directory, "ca", "-batch", "-config", "ca.cnf", "-cert", f"{authority}.pem", "-keyfile",
            f"{authority}-key.pem", "-in", f"{name}.csr", "-out", f"{name}.pem", "-extensions", extensions,
            "-notext", *dates, environment={"NAL_SAN": san})


def pin(directory, certificate):
    """The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as `openssl pkey | openssl dgst` prints it."""
    command = (f"openssl x509 -in {certificate} -pubkey -noout | openssl pkey -pubin -outform der"
               " | openssl dgst -sha256 -binary | base64")
    return subprocess.run(command, shell=True, cwd=directory, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_files(directory):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "ca.cnf"), "w") as config:
        config.write(CA_CONFIG)
    open(os.path.join(directory, "index.txt"), "w").close()
    with open(os.path.join(directory, "serial"), "w") as serial:
        serial.write("1000\n")
    make_authority(directory, "ca", "NAL Test CA")
    make_authority(directory, "other-ca", "NAL Other CA")
    make_authority(directory, "client-ca", "NAL Client CA")
    make_authority(directory, "stranger-ca", "NAL Stranger CA")
    sign(directory, "ca", "intermediate", "NAL Test Intermediate", "intermediate")
    sign(directory, "ca", "trusted", "localhost", "server")
    sign(directory, "intermediate", "chain-leaf", "localhost", "server")
    sign(directory, "other-ca", "other", "localhost", "server")
    sign(directory, "ca", "expired", "localhost", "server", dates=("-startdate", "20200101000000Z", "-enddate",
                                                                    "20200102000000Z"))
    sign(directory, "ca", "wrong-host", "other.example", "server", san="other.example")
    sign(directory, "client-ca", "client", "nal-client", "client")
    sign(directory, "stranger-ca", "stranger", "stranger", "client")
    openssl(directory, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "self-signed-key.pem", "-out", "self-signed.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost")
    openssl(directory, "pkey", "-in", "client-key.pem", "-aes256", "-passout", f"pass:{PASSPHRASE}", "-out",
            "client-key-encrypted.pem")
    with open(os.path.join(directory, "chain.pem"), "w") as chain:
        for part in ("chain-leaf.pem", "intermediate.pem"):
            with open(os.path.join(directory, part)) as certificate:
                chain.write(certificate.read())
    with open(os.path.join(directory, "not-pem.txt"), "w") as text:
        text.write("this is a text file, not a certificate\n")


def context(directory, certificate, key, maximum=None, client_authority=None, required=True):
    made = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    made.minimum_version = ssl.TLSVersion.TLSv1_2
    if maximum:
        made.maximum_version = maximum
    made.load_cert_chain(os.path.join(directory, certificate), os.path.join(directory, key))
    if client_authority:
        made.verify_mode = ssl.CERT_REQUIRED if required else ssl.CERT_OPTIONAL
        made.load_verify_locations(os.path.join(directory, client_authority))
    return made


def answer(connection):
    with connection:
        try:
            connection.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                head += chunk
            target = head.split(b"\r\n", 1)[0].split(b" ")
            client = None
            peer = connection.getpeercert()
            if peer:
                client = dict(field[0] for field in peer.get("subject", ())).get("commonName")
            names = [line.split(b":", 1)[0].decode("latin-1").strip().lower()
                     for line in head.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:] if b":" in line]
            body = json.dumps({"path": target[1].decode("latin-1") if len(target) > 1 else "",
                               "tls": connection.version(), "client": client, "headers": names}).encode()
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                               + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        except (OSError, ssl.SSLError) as error:
            print(f"connection ended: {error}", file=sys.stderr, flush=True)


def serve(listener, tls, hangs_up=False):
    while True:
        plain, _ = listener.accept()
        def handshake(plain=plain):
            try:
                connection = tls.wrap_socket(plain, server_side=True)
            except (OSError, ssl.SSLError) as error:
                print(f"handshake failed: {error}", file=sys.stderr, flush=True)
                plain.close()
                return
            if hangs_up:
                connection.close()
                return
            answer(connection)
        threading.Thread(target=handshake, daemon=True).start()


def read_head(connection):
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        chunk = connection.recv(4096)
        if not chunk:
            return None, b""
        head += chunk
    head, _, rest = head.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def relay(one, other):
    """Copies bytes both ways until either side closes."""
    sockets = [one, other]
    while True:
        readable, _, _ = select.select(sockets, [], [], 30)
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (other if source is one else one).sendall(data)


def proxy(connection, journal, lock, credentials):
    with connection:
        try:
            connection.settimeout(30)
            head, rest = read_head(connection)
            if head is None:
                return
            lines = head.split("\r\n")
            method, target = (lines[0].split(" ") + ["", ""])[:2]
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            if method == "GET" and target == "/__journal":
                with lock:
                    body = json.dumps(journal).encode()
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                   + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
                return
            given = fields.get("proxy-authorization")
            authorized = credentials is None or given == "Basic " + base64.b64encode(credentials.encode()).decode()
            with lock:
                journal.append({"method": method, "target": target, "proxyAuthorization": given is not None,
                                "authorized": authorized})
            if not authorized:
                connection.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                                   b"Proxy-Authenticate: Basic realm=\"nal\"\r\nContent-Length: 0\r\n"
                                   b"Connection: close\r\n\r\n")
                return
            if method == "CONNECT":
                host, _, port = target.rpartition(":")
                if host not in ("127.0.0.1", "localhost"):
                    connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                    return
                upstream = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
                with upstream:
                    connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    if rest:
                        upstream.sendall(rest)
                    relay(connection, upstream)
                return
            # An absolute-form request: forwarded in origin form, without the proxy's fields.
            parts = target.split("/", 3)
            authority = parts[2] if len(parts) > 2 else ""
            path = "/" + (parts[3] if len(parts) > 3 else "")
            host, _, port = authority.rpartition(":")
            upstream = socket.create_connection(("127.0.0.1", int(port or 80)), timeout=30)
            with upstream:
                kept = [line for line in lines[1:] if not line.lower().startswith(("proxy-", "connection:"))]
                upstream.sendall(("\r\n".join([f"{method} {path} HTTP/1.1", *kept, "Connection: close"])
                                  + "\r\n\r\n").encode("latin-1") + rest)
                relay(connection, upstream)
        except (OSError, ValueError) as error:
            print(f"proxy connection ended: {error}", file=sys.stderr, flush=True)


def serve_proxy(listener, credentials):
    journal, lock = [], threading.Lock()
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=proxy, args=(connection, journal, lock, credentials), daemon=True).start()


def listen():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener


def main():
    directory = os.path.abspath(sys.argv[1])
    make_files(directory)
    tls12 = ssl.TLSVersion.TLSv1_2
    servers = {
        "trusted": context(directory, "trusted.pem", "trusted-key.pem"),
        "chain": context(directory, "chain.pem", "chain-leaf-key.pem"),
        "other-ca": context(directory, "other.pem", "other-key.pem"),
        "self-signed": context(directory, "self-signed.pem", "self-signed-key.pem"),
        "expired": context(directory, "expired.pem", "expired-key.pem"),
        "wrong-host": context(directory, "wrong-host.pem", "wrong-host-key.pem"),
        "tls12-only": context(directory, "trusted.pem", "trusted-key.pem", maximum=tls12),
        "client-auth": context(directory, "trusted.pem", "trusted-key.pem", client_authority="client-ca.pem"),
        "client-auth-tls12": context(directory, "trusted.pem", "trusted-key.pem", maximum=tls12,
                                     client_authority="client-ca.pem"),
        "optional-client-auth": context(directory, "trusted.pem", "trusted-key.pem",
                                        client_authority="client-ca.pem", required=False),
        "hangup": context(directory, "trusted.pem", "trusted-key.pem"),
    }
    ports = {}
    for name, tls in servers.items():
        listener = listen()
        ports[name] = listener.getsockname()[1]
        threading.Thread(target=serve, args=(listener, tls, name == "hangup"), daemon=True).start()
    for name, credentials in (("proxy", None), ("proxy-auth", PROXY_CREDENTIALS)):
        listener = listen()
        ports[name] = listener.getsockname()[1]
        threading.Thread(target=serve_proxy, args=(listener, credentials), daemon=True).start()
    pins = {name: pin(directory, f"{name}.pem") for name in
            ("trusted", "chain-leaf", "intermediate", "ca", "other", "self-signed")}
    with open(os.path.join(directory, "servers.json.tmp"), "w") as description:
        json.dump({"ports": ports, "pins": pins, "passphrase": PASSPHRASE,
                   "proxyCredentials": PROXY_CREDENTIALS}, description)
    os.replace(os.path.join(directory, "servers.json.tmp"), os.path.join(directory, "servers.json"))
    print(f"ready {directory}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
