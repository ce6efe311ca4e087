"""The submitter's private contact (LEADERBOARD-RULES §4: e-mail private, encrypted at rest).

The venv has no cryptography package, so this uses only the standard library: an
encrypt-then-MAC construction with HMAC-SHA256 as the PRF — keystream blocks are
HMAC(k_enc, nonce || counter) (CTR mode), the tag is HMAC(k_mac, nonce || ciphertext).
Keys are derived from ``IOSCORE_CONTACT_KEY`` (default: SECRET_KEY). If the
``cryptography`` package is ever added, switch to Fernet behind the same two functions.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from django.conf import settings

VERSION = b"c1"
NONCE_BYTES = 16
TAG_BYTES = 32


class ContactDecryptError(Exception):
    """The stored value was altered or was encrypted with another key."""


def _keys() -> tuple[bytes, bytes]:
    secret = str(getattr(settings, "IOSCORE_CONTACT_KEY", "") or settings.SECRET_KEY).encode()
    return (
        hmac.new(secret, b"ioscore-contact-enc", hashlib.sha256).digest(),
        hmac.new(secret, b"ioscore-contact-mac", hashlib.sha256).digest(),
    )


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (
        hmac.new(key, nonce + i.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range((length + 31) // 32)
    )
    return b"".join(blocks)[:length]


def encrypt(plain: str) -> str:
    if not plain:
        return ""
    enc_key, mac_key = _keys()
    nonce = secrets.token_bytes(NONCE_BYTES)
    data = plain.encode("utf-8")
    cipher = bytes(a ^ b for a, b in zip(data, _keystream(enc_key, nonce, len(data)), strict=True))
    tag = hmac.new(mac_key, VERSION + nonce + cipher, hashlib.sha256).digest()
    return (VERSION + base64.urlsafe_b64encode(nonce + cipher + tag)).decode("ascii")


def decrypt(token: str) -> str:
    if not token:
        return ""
    if not token.startswith(VERSION.decode()):
        raise ContactDecryptError("unknown contact encoding")
    raw = base64.urlsafe_b64decode(token[len(VERSION) :].encode("ascii"))
    nonce, cipher, tag = raw[:NONCE_BYTES], raw[NONCE_BYTES:-TAG_BYTES], raw[-TAG_BYTES:]
    enc_key, mac_key = _keys()
    expected = hmac.new(mac_key, VERSION + nonce + cipher, hashlib.sha256).digest()
    if len(raw) < NONCE_BYTES + TAG_BYTES or not hmac.compare_digest(tag, expected):
        raise ContactDecryptError("contact data failed its integrity check")
    return bytes(
        a ^ b for a, b in zip(cipher, _keystream(enc_key, nonce, len(cipher)), strict=True)
    ).decode("utf-8")
