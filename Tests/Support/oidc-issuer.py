#!/usr/bin/env python3
"""An OIDC issuer stand-in for the token-exchange tests (issue 39): TLS with the test CA, the
discovery document and JWKS a CI provider serves, and a test-only mint for ID tokens.

usage: oidc-issuer.py PORT CERT KEY DIR

GET  /.well-known/openid-configuration  {"issuer": "https://<Host>", "jwks_uri": "https://<Host>/keys"}
GET  /keys                              the current public keys (RSA "rsa1", P-256 "ec1" at start)
POST /mint    {"claims": {...}, "kid": "rsa1", "alg": "RS256"|"ES256"|"none"|"HS256-public",
               "signWith": "<another kid>"}  -> the token, as text. HS256-public signs with HMAC keyed
               by the RSA key's public PEM (algorithm confusion); signWith signs with another key
               under the header's kid (a wrong signature).
POST /rotate  {"add": [{"kid": "rsa2", "kty": "RSA"|"EC"}], "remove": ["rsa1"]}
POST /outage  {"down": true|false}  while down, discovery and JWKS answer 503 (the mint still works)
GET  /github/token?audience=A           GitHub's ACTIONS_ID_TOKEN_REQUEST_URL: with the bearer in
               DIR/github-request-token, {"value": <RS256 token of DIR/github-claims.json, aud A>}.
Each discovery and JWKS request appends a line to DIR/oidc-requests.
"""
import base64, hashlib, hmac, json, os, ssl, sys, threading, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import child_of_test  # noqa: F401,E402  (stops with the test that started it)
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

port, cert, key, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
lock = threading.Lock()
keys = {}  # kid -> private key
outage = {"down": False}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n, size=None):
    size = size or (n.bit_length() + 7) // 8
    return b64(n.to_bytes(size, "big"))


def make_key(kid, kty):
    if kty == "EC":
        keys[kid] = ec.generate_private_key(ec.SECP256R1())
    else:
        keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(kid, private):
    if isinstance(private, rsa.RSAPrivateKey):
        n = private.public_key().public_numbers()
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": uint(n.n), "e": uint(n.e)}
    n = private.public_key().public_numbers()
    return {"kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256", "x": uint(n.x, 32), "y": uint(n.y, 32)}


def sign(private, data):
    if isinstance(private, rsa.RSAPrivateKey):
        return private.sign(data, padding.PKCS1v15(), hashes.SHA256())
    r, s = decode_dss_signature(private.sign(data, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def mint(request):
    kid, alg = request.get("kid", "rsa1"), request.get("alg", "RS256")
    header = {"typ": "JWT", "alg": "HS256" if alg == "HS256-public" else alg, "kid": kid}
    header.update(request.get("header", {}))
    signing_input = (b64(json.dumps(header).encode()) + "." + b64(json.dumps(request["claims"]).encode())).encode()
    with lock:
        if alg == "none":
            signature = b""
        elif alg == "HS256-public":
            pem = keys.get(kid, keys.get("rsa1")).public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            signature = hmac.new(pem, signing_input, hashlib.sha256).digest()
        else:
            # A kid the issuer does not publish is signed with its first key (the header still lies).
            signature = sign(keys.get(request.get("signWith", kid)) or next(iter(keys.values())), signing_input)
    return signing_input.decode() + "." + b64(signature)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json"):
        body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def note(self, what):
        with open(os.path.join(root, "oidc-requests"), "a") as log:
            log.write(what + "\n")

    def do_GET(self):
        url = urlparse(self.path)
        base = "https://" + self.headers.get("Host", "")
        if url.path in ("/.well-known/openid-configuration", "/keys") and outage["down"]:
            self.note("refused")
            return self.send(503, {"message": "down for maintenance"})
        if url.path == "/.well-known/openid-configuration":
            self.note("discovery")
            return self.send(200, {"issuer": base, "jwks_uri": base + "/keys",
                                   "id_token_signing_alg_values_supported": ["RS256", "ES256"]})
        if url.path == "/keys":
            self.note("jwks")
            with lock:
                return self.send(200, {"keys": [public_jwk(kid, k) for kid, k in sorted(keys.items())]})
        if url.path == "/github/token":
            expected = open(os.path.join(root, "github-request-token")).read().strip()
            if self.headers.get("Authorization") != "Bearer " + expected:
                return self.send(401, {"message": "bad request token"})
            claims = json.load(open(os.path.join(root, "github-claims.json")))
            now = int(time.time())
            claims.update({"aud": parse_qs(url.query).get("audience", [""])[0], "iat": now, "nbf": now - 5,
                           "exp": now + 300, "jti": str(uuid.uuid4())})
            return self.send(200, {"value": mint({"claims": claims, "kid": "rsa1"})})
        return self.send(404, {"message": "not found"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if self.path == "/mint":
            return self.send(200, mint(body).encode(), "text/plain")
        if self.path == "/rotate":
            with lock:
                for item in body.get("add", []):
                    make_key(item["kid"], item.get("kty", "RSA"))
                for kid in body.get("remove", []):
                    keys.pop(kid, None)
            return self.send(204, b"")
        if self.path == "/outage":
            outage["down"] = bool(body.get("down"))
            return self.send(204, b"")
        return self.send(404, {"message": "not found"})


make_key("rsa1", "RSA")
make_key("ec1", "EC")
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.socket = context.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()
