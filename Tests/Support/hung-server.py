#!/usr/bin/env python3
"""A TCP server for tests that accepts every connection and never answers, as a hung object store
or webhook receiver does: the request is read and kept, the socket stays open until the client
gives up.

usage: hung-server.py   (listens on a port the kernel picks; prints "ready PORT")"""
import socket, threading

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(256)
print("ready", server.getsockname()[1], flush=True)
held = []


def hold(connection):
    held.append(connection)
    try:
        while connection.recv(65536):
            pass
    except OSError:
        pass


while True:
    connection, _ = server.accept()
    threading.Thread(target=hold, args=(connection,), daemon=True).start()
