#!/usr/bin/env python3
"""A passkey registration from an Android app, verified by a WebAuthn server library we did not write.

    webauthn-verify.py RP_ID SIGNING_CERT_SHA256 ORIGINS_JSON

Plays a software authenticator on Android: the registration's clientDataJSON carries the origin
Android gives the app signed by SIGNING_CERT_SHA256 (colon-separated hex), computed here from
Google's definition (base64url, unpadded, of the certificate digest's 32 bytes), independently of
aasad. py_webauthn (`webauthn` on PyPI) then verifies the registration with ORIGINS_JSON (the list
aasad exported, a JSON array) as `expected_origin`. Prints `verified` and exits 0, or prints
`refused: <why>` and exits 1.
"""
import base64
import hashlib
import json
import os
import sys

import cbor2
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn import verify_registration_response


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def android_origin(fingerprint: str) -> str:
    return "android:apk-key-hash:" + b64url(bytes.fromhex(fingerprint.replace(":", "")))


def registration(rp_id: str, origin: str, challenge: bytes) -> dict:
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    cose_key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
    credential_id = os.urandom(16)
    auth_data = (
        hashlib.sha256(rp_id.encode()).digest()
        + bytes([0x45])  # user present, user verified, attested credential data
        + (0).to_bytes(4, "big")
        + bytes(16)  # AAGUID
        + len(credential_id).to_bytes(2, "big")
        + credential_id
        + cose_key
    )
    attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
    client_data = json.dumps(
        {"type": "webauthn.create", "challenge": b64url(challenge), "origin": origin, "crossOrigin": False}
    ).encode()
    return {
        "id": b64url(credential_id),
        "rawId": b64url(credential_id),
        "type": "public-key",
        "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation)},
        "clientExtensionResults": {},
    }


def main() -> int:
    rp_id, fingerprint, origins_json = sys.argv[1], sys.argv[2], sys.argv[3]
    expected = json.loads(origins_json)
    challenge = os.urandom(32)
    credential = registration(rp_id, android_origin(fingerprint), challenge)
    try:
        verify_registration_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=expected
        )
    except Exception as error:  # the library's refusal, whatever its class
        print(f"refused: {error}")
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
