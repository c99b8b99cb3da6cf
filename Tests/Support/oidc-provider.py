#!/usr/bin/env python3
"""A real OpenID provider for the console sign-in tests (issue 53): oidc-provider-mock (PyPI,
built on Authlib), served over TLS with the test CA. Nobody here wrote it; this file only starts
it, as its own `run_server_in_thread` does, with TLS and two settings it has no flag for:

- clients must register (`/oauth2/clients`), so a token for another client is a real other client;
- PKCE (RFC 7636) is enforced with Authlib's own `CodeChallenge(required=True)`: the mock registers
  the authorization-code grant without it, and a provider that ignored the verifier would let the
  PKCE test pass for the wrong reason. The mock's stored code has no field for the challenge, so
  it is kept beside the code here and handed to Authlib, which compares the verifier with it.

Run by the virtual environment scripts/test makes (.build/oidc-provider-venv), so its Flask and
Authlib stay apart from moto's in the system Python.

usage: oidc-provider.py PORT CERT KEY TOKEN_MAX_AGE_SECONDS [USER_CLAIMS_JSON ...]
Prints "ready" once it listens. A user's claims change at run time with PUT /users/<sub>.
"""
import json, os, ssl, sys
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import child_of_test  # noqa: F401,E402  (stops with the test that started it)

import authlib.integrations.flask_oauth2 as flask_oauth2  # noqa: E402
from authlib.oauth2.rfc7636 import CodeChallenge  # noqa: E402
import werkzeug.serving  # noqa: E402
import oidc_provider_mock  # noqa: E402
import oidc_provider_mock._app as mock_app  # noqa: E402

port, cert, key, max_age = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
users = []
for claims_json in sys.argv[5:]:
    claims = json.loads(claims_json)
    sub = claims.pop("sub")
    users.append(oidc_provider_mock.User(sub=sub, claims=claims))

challenges = {}  # code -> (code_challenge, code_challenge_method), as the authorization request sent them
_save_code = mock_app.AuthorizationCodeGrant.save_authorization_code


def save_authorization_code(self, code, request):
    challenges[code] = (request.payload.data.get("code_challenge"),
                        request.payload.data.get("code_challenge_method"))
    return _save_code(self, code, request)


mock_app.AuthorizationCodeGrant.save_authorization_code = save_authorization_code


class StoredCodeChallenge(CodeChallenge):
    def get_authorization_code_challenge(self, authorization_code):
        return challenges.get(authorization_code.code, (None, None))[0]

    def get_authorization_code_challenge_method(self, authorization_code):
        return challenges.get(authorization_code.code, (None, None))[1]


_register_grant = flask_oauth2.AuthorizationServer.register_grant


def register_grant(self, grant_cls, extensions=None):
    if grant_cls is mock_app.AuthorizationCodeGrant:
        extensions = list(extensions or []) + [StoredCodeChallenge(required=True)]
    return _register_grant(self, grant_cls, extensions)


flask_oauth2.AuthorizationServer.register_grant = register_grant

app = oidc_provider_mock.app(
    require_client_registration=True, require_nonce=True, issue_refresh_token=False,
    access_token_max_age=timedelta(seconds=max_age), user_claims=users)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server = werkzeug.serving.make_server("127.0.0.1", port, app, threaded=True, ssl_context=context)
print("ready", flush=True)
server.serve_forever()
