#!/usr/bin/env python3
"""An HTTP/1.1 proxy for tests that loses one answer: the first request whose request line
contains MATCH is forwarded to the upstream server, which answers, and then the client's
connection is closed without that answer, as when a network drops mid-request. With HOW `502`,
the client gets the proxy's own 502 Bad Gateway (HTML, as nginx sends when its upstream went away
mid-answer) instead: the write was applied, and the client was told it failed.

usage: drop-first-response.py LISTEN_PORT UPSTREAM_PORT MATCH [drop|502]
Prints "ready" when listening and "dropped" when it has dropped the answer."""
import socket, sys, threading

listen_port, upstream_port, match = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
how = sys.argv[4] if len(sys.argv) > 4 else "drop"
PAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
BAD_GATEWAY = b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (len(PAGE), PAGE)
dropped = threading.Event()


def read_message(sock, buffered=b""):
    """One HTTP message (head and Content-Length body) from sock, and what was read past it."""
    data = buffered
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        rest += chunk
    return head + b"\r\n\r\n" + rest[:length], rest[length:]


def serve(client):
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    buffered = b""
    try:
        while True:
            request, buffered = read_message(client, buffered)
            if request is None:
                return
            upstream.sendall(request)
            response, _ = read_message(upstream)
            if response is None:
                return
            if match in request.split(b"\r\n", 1)[0] and not dropped.is_set():
                dropped.set()
                print("dropped", flush=True)
                if how == "502":
                    client.sendall(BAD_GATEWAY)
                    continue
                return
            client.sendall(response)
    finally:
        client.close()
        upstream.close()


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(16)
print("ready", flush=True)
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
