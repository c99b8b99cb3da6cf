#!/usr/bin/env python3
"""GitHub's and GitLab's REST APIs for pull/merge request comments, as `aasactl plan --comment`
uses them (issue 39), recording every comment in DIR/comments.json.

usage: forge-api.py PORT DIR TOKEN

GitHub (Authorization: Bearer TOKEN):
  GET   /repos/{owner}/{repo}/issues/{n}/comments     POST the same: {"body"}
  PATCH /repos/{owner}/{repo}/issues/comments/{id}    {"body"}
GitLab (PRIVATE-TOKEN: TOKEN):
  GET   /api/v4/projects/{id}/merge_requests/{iid}/notes   POST the same: {"body"}
  PUT   /api/v4/projects/{id}/merge_requests/{iid}/notes/{note_id}   {"body"}
DIR/comments.json: [{"id", "thread", "body", "writes"}], `writes` counting the POST and each edit.
"""
import json, os, re, sys, threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import child_of_test  # noqa: F401,E402  (stops with the test that started it)
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, root, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()
comments = []


def save():
    with open(os.path.join(root, "comments.json"), "w") as f:
        json.dump(comments, f)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def authorized(self):
        return (self.headers.get("Authorization") == "Bearer " + token
                or self.headers.get("PRIVATE-TOKEN") == token)

    def body(self):
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

    def route(self, method):
        if not self.authorized():
            return self.send(401, {"message": "Bad credentials"})
        path = self.path.split("?")[0]
        thread = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path) or \
            re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes", path)
        edit = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", path) or \
            re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/\d+/notes/(\d+)", path)
        with lock:
            if thread and method == "GET":
                key = thread.group(1) + "#" + thread.group(2)
                return self.send(200, [{"id": c["id"], "body": c["body"]} for c in comments if c["thread"] == key])
            if thread and method == "POST":
                item = {"id": len(comments) + 1, "thread": thread.group(1) + "#" + thread.group(2),
                        "body": self.body()["body"], "writes": 1}
                comments.append(item)
                save()
                return self.send(201, {"id": item["id"], "body": item["body"]})
            if edit and method in ("PATCH", "PUT"):
                for c in comments:
                    if c["id"] == int(edit.group(1)):
                        c["body"] = self.body()["body"]
                        c["writes"] += 1
                        save()
                        return self.send(200, {"id": c["id"], "body": c["body"]})
        return self.send(404, {"message": "Not Found"})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PATCH(self):
        self.route("PATCH")

    def do_PUT(self):
        self.route("PUT")


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
print("ready", flush=True)
server.serve_forever()
