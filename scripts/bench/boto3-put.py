#!/usr/bin/env python3
"""The object-store benchmark's baseline: boto3's own put_object of the same bytes, one object per
domain, one at a time, against the same moto. usage: boto3-put.py ENDPOINT BUCKET FILE...
Prints {"seconds": total, "times": [per put]}."""
import json, sys, time
import boto3

endpoint, bucket, files = sys.argv[1], sys.argv[2], sys.argv[3:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id="bench", aws_secret_access_key="bench")
bodies = [open(f, "rb").read() for f in files]
s3.put_object(Bucket=bucket, Key="warm-up", Body=b"{}")  # the client's first-call set-up is not timed
times = []
start = time.perf_counter()
for i, body in enumerate(bodies):
    t0 = time.perf_counter()
    s3.put_object(Bucket=bucket, Key="baseline/d%d/.well-known/apple-app-site-association" % i, Body=body,
                  ContentType="application/json", CacheControl="max-age=3600")
    times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": time.perf_counter() - start, "times": times}))
