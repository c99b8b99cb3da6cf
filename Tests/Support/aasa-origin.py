#!/usr/bin/env python3
"""A local HTTPS origin and Apple-CDN stand-in for the probe and CDN monitor tests (no internet).

usage: aasa-origin.py PORT CERT KEY DIR

Per request, DIR/behaviors.json (re-read each time) says what a host does:
  {"good.test": {"mode": "serve"}, "moved.test": {"mode": "redirect"}, ...}
modes: serve (DIR/files/<host>, application/json), redirect (301 to https://www.<host>/…),
ua403 (403 to Apple's User-Agent AASA-Bot, the file to others), html (the file as text/html),
big (200 KB), octet (the file as binary/octet-stream), bucket (a CDN in front of a moto bucket:
{"mode": "bucket", "endpoint", "bucket", "prefix", "key", "secret"}, read with boto3), stall (sleeps 7 s before answering), midstall (sends the headers and half the body,
then sleeps "stall" seconds, 45 by default, before the rest).
GET /.well-known/assetlinks.json serves DIR/assetlinks/<host> (404 when absent).
POST /hook is a webhook receiver (see do_POST). POST /client/v4/zones/<zone>/purge_cache is
Cloudflare's purge API (the bearer must be behaviors["cfToken"]); it and PURGE <path> (an HTTP
purge) append {"method", "host", "path", "auth", "body"} to DIR/purges.jsonl.
GET /v1/assetlinks:check and /v1/statements:list are Google's Digital Asset Links API, in the
shapes of Google's reference, from DIR/dal.json: {"sites": {"https://host": {"package":
{"fingerprints": [...], "debugString": "..."}}}, "throttle": N (answer the next N requests 429),
"fail": N (500), "failSites": ["https://host", ...] (always 500 for those sites), "retryAfter": S (the
429's Retry-After)}; each request's query is appended to DIR/dal-requests.
GET /a/v1/<host> is the CDN: DIR/cdn/<host> as application/json, or 404; each CDN request
appends a line to DIR/cdn-requests; "cdnDelay" (seconds) in behaviors.json slows it, and
"cdnMidStall": {"<host>": seconds} sends half of that host's CDN file and then stalls;
"cdnStatus": {"<host>": status} answers that host's CDN request with that status.
"""
import json, os, ssl, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import child_of_test  # noqa: F401,E402  (stops with the test that started it)
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, cert, key, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]


def load_behaviors():
    """DIR/behaviors.json, read again per request so a test can change it between two."""
    try:
        return json.load(open(os.path.join(root, "behaviors.json")))
    except (OSError, ValueError):
        return {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_half_then_stall(self, body, seconds):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        half = len(body) // 2
        try:
            self.wfile.write(body[:half])
            self.wfile.flush()
            time.sleep(seconds)
            self.wfile.write(body[half:])
        except OSError:
            pass  # the client gave up, as it should

    def dal(self):
        from urllib.parse import parse_qs, urlsplit
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        with open(os.path.join(root, "dal-requests"), "a") as log:
            log.write(json.dumps(dict(query, at=time.time())) + "\n")
        path = os.path.join(root, "dal.json")
        try:
            state = json.load(open(path))
        except (OSError, ValueError):
            state = {}
        for key, status in (("throttle", 429), ("fail", 500)):
            if state.get(key, 0) > 0:
                state[key] -= 1
                json.dump(state, open(path, "w"))
                extra = [("Retry-After", str(state["retryAfter"]))] if status == 429 and "retryAfter" in state else []
                return self.send(status, json.dumps({"error": {"code": status, "message": "try later",
                                                               "status": "RESOURCE_EXHAUSTED"}}).encode(), extra=extra)
        site = query.get("source.web.site", "")
        if site in state.get("failSites", []):
            return self.send(500, json.dumps({"error": {"code": 500, "message": "Internal error encountered.",
                                                        "status": "INTERNAL"}}).encode())
        packages = state.get("sites", {}).get(site, {})
        relation = "delegate_permission/common.handle_all_urls"
        if urlsplit(self.path).path.endswith("statements:list"):
            statements = [{"source": {"web": {"site": site + "."}}, "relation": relation,
                           "target": {"androidApp": {"packageName": name,
                                                     "certificate": {"sha256Fingerprint": fp}}}}
                          for name, entry in packages.items() for fp in entry.get("fingerprints", [])]
            return self.send(200, json.dumps({"statements": statements, "maxAge": "3600s",
                                              "debugString": "********************* Errors *********************\nNone!"}).encode())
        entry = packages.get(query.get("target.androidApp.packageName"), {})
        linked = query.get("target.androidApp.certificate.sha256Fingerprint") in entry.get("fingerprints", [])
        body = {"linked": linked, "maxAge": "3600s"}
        if not linked:
            body["debugString"] = entry.get("debugString", "********************* Errors *********************\n"
                                            "No statements were found that match the specified target.")
        return self.send(200, json.dumps(body).encode())

    def do_GET(self):
        if self.path.startswith("/v1/assetlinks:check") or self.path.startswith("/v1/statements:list"):
            return self.dal()
        behaviors = load_behaviors()
        if self.path.startswith("/a/v1/"):
            host = self.path[len("/a/v1/"):]
            with open(os.path.join(root, "cdn-requests"), "a") as log:
                log.write(host + "\n")
            time.sleep(float(behaviors.get("cdnDelay", 0)))
            path = os.path.join(root, "cdn", host)
            failing = behaviors.get("cdnStatus", {}).get(host)
            if failing is not None:
                return self.send(int(failing), b"<h1>upstream error</h1>", "text/html")
            stall = behaviors.get("cdnMidStall", {}).get(host)
            if os.path.exists(path) and stall is not None:
                return self.send_half_then_stall(open(path, "rb").read(), float(stall))
            if os.path.exists(path):
                return self.send(200, open(path, "rb").read(), extra=[("Age", "120"), ("X-Cache", "Hit from cloudfront")])
            return self.send(404, b"")
        host = (self.headers.get("Host") or "").split(":")[0]
        if behaviors.get(host, {}).get("mode") == "bucket":
            return self.from_bucket(behaviors[host])
        if self.path == "/.well-known/assetlinks.json":
            path = os.path.join(root, "assetlinks", host)
            if os.path.exists(path):
                return self.send(200, open(path, "rb").read())
            return self.send(404, b"")
        mode = behaviors.get(host, {}).get("mode", "serve")
        path = os.path.join(root, "files", host)
        body = open(path, "rb").read() if os.path.exists(path) else None
        if mode == "redirect":
            return self.send(301, b"", "text/html", [("Location", "https://www." + host + self.path)])
        if mode == "ua403" and "AASA-Bot" in (self.headers.get("User-Agent") or ""):
            return self.send(403, b"<h1>Forbidden</h1>", "text/html")
        if mode == "octet" and body is not None:
            return self.send(200, body, "binary/octet-stream")
        if mode == "big":
            return self.send(200, b'{"applinks":{"details":[]},"pad":"' + b"x" * 200_000 + b'"}')
        if mode == "stall":
            time.sleep(7)
        if mode == "midstall" and body is not None:
            return self.send_half_then_stall(body, float(behaviors.get(host, {}).get("stall", 45)))
        if body is None:
            return self.send(404, b"")
        return self.send(200, body, "text/html" if mode == "html" else "application/json", [("ETag", '"v1"')])


    def from_bucket(self, b):
        import boto3, botocore.exceptions
        s3 = boto3.client("s3", endpoint_url=b["endpoint"], region_name="us-east-1",
                          aws_access_key_id=b["key"], aws_secret_access_key=b["secret"])
        try:
            o = s3.get_object(Bucket=b["bucket"], Key=b.get("prefix", "") + self.path.lstrip("/"))
        except botocore.exceptions.ClientError:
            return self.send(404, b"<h1>Not Found</h1>", "text/html")
        return self.send(200, o["Body"].read(), o.get("ContentType") or "binary/octet-stream")

    def read_body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def record_purge(self, body=b""):
        entry = {"method": self.command, "host": self.headers.get("Host"), "path": self.path,
                 "auth": self.headers.get("Authorization"), "body": body.decode()}
        with open(os.path.join(root, "purges.jsonl"), "a") as log:
            log.write(json.dumps(entry) + "\n")

    def do_PURGE(self):
        self.record_purge()
        return self.send(200, b'{"status": "ok"}')

    def do_POST(self):
        if self.path.startswith("/client/v4/zones/") and self.path.endswith("/purge_cache"):
            body = self.read_body()
            behaviors = load_behaviors()
            files = (json.loads(body or b"{}") or {}).get("files")
            if self.headers.get("Authorization") != "Bearer " + behaviors.get("cfToken", ""):
                return self.send(403, json.dumps({"success": False, "errors": [{"code": 10000, "message": "Authentication error"}], "messages": [], "result": None}).encode())
            if not isinstance(files, list) or not files:
                return self.send(400, json.dumps({"success": False, "errors": [{"code": 1012, "message": "Request must contain one of 'purge_everything', 'files', 'tags', 'hosts' or 'prefixes'"}], "messages": [], "result": None}).encode())
            self.record_purge(body)
            zone = self.path.split("/")[4]
            return self.send(200, json.dumps({"success": True, "errors": [], "messages": [], "result": {"id": zone}}).encode())
        return self.webhook()

    def webhook(self):
        """A webhook receiver: POST /hook appends {"headers", "body"} as one JSON line to
        DIR/hooks.jsonl and answers 204; "hookDown": true in behaviors.json answers 503 instead
        (each refused attempt is counted in DIR/hooks-refused); POST /hook/stall answers once the test
        creates DIR/release-stall (at most 60 s): the test, not a clock, decides when it ends."""
        body = self.read_body()
        behaviors = load_behaviors()
        if self.path == "/hook/stall":
            for _ in range(1200):
                if os.path.exists(os.path.join(root, "release-stall")):
                    break
                time.sleep(0.05)
            return self.send(204, b"")
        if behaviors.get("hookDown"):
            with open(os.path.join(root, "hooks-refused"), "a") as log:
                log.write(self.headers.get("X-AASA-Delivery", "") + "\n")
            return self.send(503, b"down")
        line = json.dumps({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body.decode()})
        with open(os.path.join(root, "hooks.jsonl"), "a") as log:
            log.write(line + "\n")
        return self.send(204, b"")

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.socket = context.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()
