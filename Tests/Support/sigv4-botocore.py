#!/usr/bin/env python3
"""Signs requests with botocore's own SigV4 (S3SigV4Auth for s3, SigV4Auth otherwise) for the
differential test of aasad's signer. stdin: a JSON list of {method, url, headers: [[name, value]],
body (hex), service, region, accessKey, secretKey, token, timestamp ("20261127T093000Z")};
stdout: a JSON list of the Authorization headers botocore gives."""
import datetime, json, sys
import botocore.auth
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

out = []
for r in json.load(sys.stdin):
    when = datetime.datetime.strptime(r["timestamp"], "%Y%m%dT%H%M%SZ")
    botocore.auth.get_current_datetime = lambda when=when: when
    body = bytes.fromhex(r["body"])
    request = AWSRequest(method=r["method"], url=r["url"], data=body)
    for name, value in r["headers"]:
        request.headers[name] = value
    credentials = Credentials(r["accessKey"], r["secretKey"], r.get("token"))
    signer = (S3SigV4Auth if r["service"] == "s3" else SigV4Auth)(credentials, r["service"], r["region"])
    signer.add_auth(request)
    out.append(request.headers["Authorization"])
print(json.dumps(out))
