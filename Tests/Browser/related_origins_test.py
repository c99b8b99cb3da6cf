#!/usr/bin/env python3
"""WebAuthn's Related Origin Requests in a real browser, against aasad's /.well-known/webauthn.

    related_origins_test.py AASAD_URL ADMIN_TOKEN WORK_DIR

Sets up, through aasad's API, the domain shop.test listing the related origin
https://shop.example.de, and publishes it. A TLS front (the test CA's certificate for all three
names) serves https://shop.test/.well-known/webauthn from aasad (by Host) and a sign-up page at
https://shop.example.de/ and https://other.example.fr/. Debian's chromium, under Playwright, with a
virtual authenticator (the DevTools protocol's WebAuthn domain), creates a passkey for the RP ID
shop.test from each page: chromium fetches shop.test's /.well-known/webauthn itself, and must
accept the listed origin and refuse the other.
"""
import base64
import hashlib
import http.server
import json
import os
import socketserver
import ssl
import subprocess
import sys
import threading
import urllib.request

from playwright.sync_api import sync_playwright

aasad, admin, work = sys.argv[1], sys.argv[2], sys.argv[3]
RP, LISTED, OTHER = "shop.test", "shop.example.de", "other.example.fr"


def api(method, path, body=None):
    request = urllib.request.Request(
        aasad + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


PAGE = b"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head>
<body><main><h1>Sign up</h1></main></body></html>"""


class Front(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0]
        if host == RP:
            # What aasad serves for the RP ID's host, as a browser would be answered.
            request = urllib.request.Request(aasad + self.path, headers={"Host": RP})
            try:
                with urllib.request.urlopen(request) as reply:
                    status, body, kind = reply.status, reply.read(), reply.headers.get("Content-Type", "")
            except urllib.error.HTTPError as error:
                status, body, kind = error.code, error.read(), "application/problem+json"
            fetched.append(self.path)
        else:
            status, body, kind = 200, PAGE, "text/html"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class ThreadingServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


fetched = []


def main():
    # With several environments a domain names its own: the last, production, as a real RP ID.
    _, environments = api("GET", "/v1/environments")
    environment = environments["items"][-1]["name"]
    for method, path, body in [
        ("POST", "/v1/domains", {"host": RP, "environment": environment}),
        ("POST", f"/v1/domains/{RP}/related-origins", {"origin": f"https://{LISTED}"}),
        ("POST", f"/v1/domains/{RP}/publish", {"reason": "related origins in a browser"}),
    ]:
        status, answer = api(method, path, body)
        if status != 201:
            print(f"FAIL: {method} {path}: {status} {answer}")
            return 1

    subprocess.run(
        ["bash", os.path.join(os.path.dirname(__file__), "..", "Support", "make-test-ca.sh"), work, RP, LISTED, OTHER],
        check=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(work, "server.pem"), os.path.join(work, "server.key"))
    server = ThreadingServer(("127.0.0.1", 0), Front)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Chromium trusts the test certificate by its public key (no system store to change); the
    # three names reach the front on its port, as :443.
    der = subprocess.run(
        ["openssl", "x509", "-in", os.path.join(work, "server.pem"), "-pubkey", "-noout"],
        check=True, capture_output=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True,
                          capture_output=True).stdout
    pin = base64.b64encode(hashlib.sha256(spki).digest()).decode()
    rules = ",".join(f"MAP {name}:443 127.0.0.1:{port}" for name in (RP, LISTED, OTHER))

    create = """async (rp) => {
        try {
            const credential = await navigator.credentials.create({publicKey: {
                rp: {id: rp, name: "Shop"},
                user: {id: crypto.getRandomValues(new Uint8Array(16)), name: "ada", displayName: "Ada"},
                challenge: crypto.getRandomValues(new Uint8Array(32)),
                pubKeyCredParams: [{type: "public-key", alg: -7}],
                authenticatorSelection: {residentKey: "required", userVerification: "required"},
                timeout: 20000,
            }});
            return {ok: true, origin: JSON.parse(new TextDecoder().decode(credential.response.clientDataJSON)).origin};
        } catch (error) {
            return {ok: false, error: error.name + ": " + error.message};
        }
    }"""
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=[f"--host-resolver-rules={rules}", f"--ignore-certificate-errors-spki-list={pin}"])
        version = browser.version
        page = browser.new_page()
        cdp = page.context.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}})
        page.goto(f"https://{LISTED}/")
        listed = page.evaluate(create, RP)
        page.goto(f"https://{OTHER}/")
        other = page.evaluate(create, RP)
        browser.close()
    server.shutdown()
    print(f"chromium {version}: from https://{LISTED}: {listed}; from https://{OTHER}: {other}; "
          f"fetched from {RP}: {fetched}")
    failures = []
    if not (listed.get("ok") and listed.get("origin") == f"https://{LISTED}"):
        failures.append(f"the listed origin could not create a passkey for {RP}: {listed}")
    if other.get("ok"):
        failures.append(f"an origin {RP} does not list created a passkey for it: {other}")
    if "/.well-known/webauthn" not in fetched:
        failures.append(f"chromium never fetched https://{RP}/.well-known/webauthn")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
