#!/usr/bin/env python3
"""A fast HTTP/1.1 keep-alive server for the loopback benchmark: every request gets the same small JSON body, or,
with `--body-bytes N`, the same N bytes (a large body's receive path).

    scripts/loopback_server.py [PORT] [--body-bytes N]

Standard library only (asyncio). Prints `port <n>` once it listens. Stop it with SIGTERM or SIGINT.
"""

import asyncio
import signal
import sys

BODY = b'{"login":"octocat","id":583231,"name":"The Octocat","public_repos":8,"site_admin":false}'
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(BODY)) + BODY


def large_response(size):
    body = bytes(i % 251 for i in range(size))
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n" % size) + body


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length:
                await reader.readexactly(length)
            writer.write(RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    global RESPONSE
    arguments = sys.argv[1:]
    if "--body-bytes" in arguments:
        at = arguments.index("--body-bytes")
        RESPONSE = large_response(int(arguments[at + 1]))
        del arguments[at:at + 2]
    port = int(arguments[0]) if arguments else 0
    server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=512)
    print("port %d" % server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
