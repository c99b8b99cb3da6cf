#!/usr/bin/env python3
"""Set-up and read-back for the object-store tests, against a moto server, with boto3 (a client
we did not write). usage: moto-admin.py ENDPOINT COMMAND [ARGS…]; prints JSON.

  setup BUCKET…          the first, unauthenticated actions: an IAM user with an access key and an
                         allow-all policy; then, signed with that key: the buckets, a CloudFront
                         distribution and a role for web identity. Prints the keys, the
                         distribution ID and the role ARN.
  get KEYID SECRET BUCKET KEY      an object's bytes (base64), content type, cache-control, metadata
  put KEYID SECRET BUCKET KEY HEX CONTENT_TYPE   overwrite an object behind aasad's back
  delete KEYID SECRET BUCKET KEY
  invalidations KEYID SECRET DIST  every invalidation moto holds, each as JSON text
  deny KEYID SECRET KEY            deny PutObject on one key to the user ("" lifts it)
  mkbucket KEYID SECRET BUCKET
"""
import base64, json, socket, sys, time
import boto3

endpoint, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]

# moto_server takes a moment to listen: wait for it (20 s at most) before the first action.
host, port = endpoint.split("//")[1].split(":")
for _ in range(200):
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
        break
    except OSError:
        time.sleep(0.1)


def client(service, key="x", secret="y"):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret)


ALLOW = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}

if command == "setup":
    iam = client("iam")
    iam.create_user(UserName="aasad")
    iam.put_user_policy(UserName="aasad", PolicyName="all", PolicyDocument=json.dumps(ALLOW))
    key = iam.create_access_key(UserName="aasad")["AccessKey"]
    kid, secret = key["AccessKeyId"], key["SecretAccessKey"]
    s3 = client("s3", kid, secret)
    for bucket in args:
        s3.create_bucket(Bucket=bucket)
    cf = client("cloudfront", kid, secret)
    dist = cf.create_distribution(DistributionConfig={
        "CallerReference": "aasa-test", "Comment": "", "Enabled": True,
        "Origins": {"Quantity": 1, "Items": [{"Id": "o", "DomainName": args[0] + ".s3.amazonaws.com",
                                               "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
        "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "allow-all",
                                 "MinTTL": 0, "ForwardedValues": {"QueryString": False, "Cookies": {"Forward": "none"}},
                                 "TrustedSigners": {"Enabled": False, "Quantity": 0}},
    })["Distribution"]["Id"]
    iam2 = client("iam", kid, secret)
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "token.actions.githubusercontent.com"},
                                                      "Action": "sts:AssumeRoleWithWebIdentity"}]}
    role = iam2.create_role(RoleName="aasad-publisher", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    iam2.put_role_policy(RoleName="aasad-publisher", PolicyName="all", PolicyDocument=json.dumps(ALLOW))
    print(json.dumps({"accessKeyID": kid, "secretAccessKey": secret, "distributionID": dist, "roleARN": role}))
elif command == "get":
    kid, secret, bucket, key = args
    o = client("s3", kid, secret).get_object(Bucket=bucket, Key=key)
    print(json.dumps({"base64": base64.b64encode(o["Body"].read()).decode(), "contentType": o.get("ContentType"),
                      "cacheControl": o.get("CacheControl"), "metadata": o.get("Metadata", {})}))
elif command == "put":
    kid, secret, bucket, key, hexbody, content_type = args
    client("s3", kid, secret).put_object(Bucket=bucket, Key=key, Body=bytes.fromhex(hexbody), ContentType=content_type)
    print("{}")
elif command == "delete":
    kid, secret, bucket, key = args
    client("s3", kid, secret).delete_object(Bucket=bucket, Key=key)
    print("{}")
elif command == "invalidations":
    # moto 5.2.5 cannot list them through CloudFront's API while it checks signatures (its GET
    # handler reads a missing Authorization header), so they are read from moto's own state.
    import urllib.request
    state = json.load(urllib.request.urlopen(endpoint + "/moto-api/data.json"))
    print(json.dumps([json.dumps(item) for item in state.get("cloudfront", {}).get("Invalidation", [])]))
elif command == "deny":
    kid, secret, key = args
    statements = list(ALLOW["Statement"])
    if key:
        statements.append({"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::" + key})
    client("iam", kid, secret).put_user_policy(UserName="aasad", PolicyName="all",
                                               PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": statements}))
    print("{}")
elif command == "mkbucket":
    kid, secret, bucket = args
    client("s3", kid, secret).create_bucket(Bucket=bucket)
    print("{}")
else:
    sys.exit("unknown command " + command)
