#!/usr/bin/env python3
"""A TCP proxy for tests that can make the connections it carries go silent, as a hung server or a
dead network path looks: the sockets stay open and nothing more is forwarded either way. Unlike
stopping a PostgreSQL backend with SIGSTOP, nothing outside these connections is touched (a stopped
backend never absorbs the barrier every DROP DATABASE of the cluster waits for, and so held up every
other test's clean-up).

usage: freeze-proxy.py LISTEN_PORT UPSTREAM_PORT
Prints "ready" when listening. Reads commands on standard input, one per line, and answers each
with a line once done:
  freeze PORT  the connection whose end toward the server has local port PORT (PostgreSQL's
               pg_stat_activity.client_port) stops forwarding; the others are carried as usual
  release      the frozen connections are closed (the server's end of each then goes away)"""
import select, socket, sys, threading, time

listen_port, upstream_port = int(sys.argv[1]), int(sys.argv[2])
lock = threading.Lock()
pairs = []  # [client, upstream, frozen, the upstream end's local port]


def pump(pair):
    client, upstream = pair[0], pair[1]
    peers = {client: upstream, upstream: client}
    try:
        while True:
            with lock:
                frozen = pair[2]
            if frozen:
                time.sleep(0.2)  # read nothing, so nothing is forwarded
                continue
            readable, _, _ = select.select([client, upstream], [], [], 0.2)
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                peers[sock].sendall(data)
    except OSError:
        return
    finally:
        with lock:
            frozen = pair[2]
            if not frozen and pair in pairs:
                pairs.remove(pair)
        if not frozen:
            for sock in (client, upstream):
                try:
                    sock.close()
                except OSError:
                    pass


def accept(server):
    while True:
        client, _ = server.accept()
        upstream = socket.create_connection(("127.0.0.1", upstream_port))
        pair = [client, upstream, False, upstream.getsockname()[1]]
        with lock:
            pairs.append(pair)
        threading.Thread(target=pump, args=(pair,), daemon=True).start()


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(256)
threading.Thread(target=accept, args=(server,), daemon=True).start()
print("ready", flush=True)
for line in sys.stdin:
    command, _, argument = line.strip().partition(" ")
    with lock:
        if command == "freeze":
            for pair in pairs:
                if pair[3] == int(argument):
                    pair[2] = True
        elif command == "release":
            for pair in [p for p in pairs if p[2]]:
                for sock in pair[:2]:  # the pump of a frozen pair has left them open
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                        sock.close()
                    except OSError:
                        pass
                pairs.remove(pair)
    print(command, flush=True)
