"""The browser's side of Web Push for tests/push.rs, by implementations independent of
the server's: http_ece (RFC 8188/8291 decryption) and py_vapid (RFC 8292 tokens).

  webpush.py keygen   -> {"private": b64url, "p256dh": b64url, "auth": b64url}
  webpush.py open     stdin {"private", "auth", "body_b64", "authorization", "endpoint"}
                      -> {"plain": ..., "claims": {...}, "k": ...}  (exit 1 if anything fails)
"""
import base64
import json
import os
import sys
import time

import http_ece
import py_vapid
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import serialization


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def keygen():
    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.private_numbers().private_value.to_bytes(32, "big")
    pub = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    print(json.dumps({"private": b64e(raw), "p256dh": b64e(pub), "auth": b64e(os.urandom(16))}))


def open_push():
    req = json.load(sys.stdin)
    key = ec.derive_private_key(int.from_bytes(b64d(req["private"]), "big"), ec.SECP256R1())
    plain = http_ece.decrypt(b64d(req["body_b64"]), private_key=key,
                             auth_secret=b64d(req["auth"]), version="aes128gcm")
    scheme, params = req["authorization"].split(" ", 1)
    assert scheme == "vapid", scheme
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    token, k = parts["t"], parts["k"]
    assert py_vapid.Vapid02.verify(req["authorization"]), "the VAPID signature does not verify"
    claims = json.loads(b64d(token.split(".")[1]))
    header = json.loads(b64d(token.split(".")[0]))
    assert header["alg"] == "ES256", header
    now = time.time()
    assert now < claims["exp"] <= now + 24 * 3600, claims
    print(json.dumps({"plain": plain.decode(), "claims": claims, "k": k}))


if __name__ == "__main__":
    {"keygen": keygen, "open": open_push}[sys.argv[1]]()
