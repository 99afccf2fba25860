"""AES-256-GCM payload codec, the same format as client/payload-codec.ts, so the solver worker
reads and writes the encrypted payloads of flows run with AGENT_FLOWS_PAYLOAD_KEY.

An encrypted payload: metadata encoding "binary/encrypted" and "encryption-key-id" (the first 12
hex digits of the key's SHA-256), data = 12-byte IV + ciphertext of the serialized Payload +
16-byte tag. Unencrypted payloads pass through decode unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import os
from typing import Iterable, List, Optional

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

ENCRYPTED_ENCODING = b"binary/encrypted"


def _parse_key(text: str) -> tuple[str, bytes]:
    key = base64.b64decode(text.strip())
    if len(key) != 32:
        raise ValueError(f"AGENT_FLOWS_PAYLOAD_KEY must be 32 bytes, base64-encoded (got {len(key)} bytes)")
    return hashlib.sha256(key).hexdigest()[:12], key


class AesGcmPayloadCodec(PayloadCodec):
    """The first key encrypts; every key given decrypts (key rotation)."""

    def __init__(self, keys: Iterable[str]) -> None:
        parsed = [_parse_key(k) for k in keys]
        if not parsed:
            raise ValueError("no payload key")
        self._encrypt_id = parsed[0][0]
        self._keys = dict(parsed)

    async def encode(self, payloads: Iterable[Payload]) -> List[Payload]:
        return [self.encode_one(p) for p in payloads]

    async def decode(self, payloads: Iterable[Payload]) -> List[Payload]:
        return [self.decode_one(p) for p in payloads]

    def encode_one(self, payload: Payload) -> Payload:
        iv = os.urandom(12)
        sealed = AESGCM(self._keys[self._encrypt_id]).encrypt(iv, payload.SerializeToString(), None)
        return Payload(
            metadata={"encoding": ENCRYPTED_ENCODING, "encryption-key-id": self._encrypt_id.encode()},
            data=iv + sealed,
        )

    def decode_one(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCRYPTED_ENCODING:
            return payload
        key_id = payload.metadata.get("encryption-key-id", b"").decode()
        key = self._keys.get(key_id)
        if key is None:
            raise ValueError(f"no key with id {key_id} to decrypt a payload: set AGENT_FLOWS_PAYLOAD_KEY(S)")
        data = payload.data
        return Payload.FromString(AESGCM(key).decrypt(data[:12], data[12:], None))


def codec_from_env(env: Optional[dict] = None) -> Optional[AesGcmPayloadCodec]:
    env = os.environ if env is None else env
    current = (env.get("AGENT_FLOWS_PAYLOAD_KEY") or "").strip()
    if not current:
        return None
    old = [k.strip() for k in (env.get("AGENT_FLOWS_PAYLOAD_OLD_KEYS") or "").split(",") if k.strip()]
    return AesGcmPayloadCodec([current, *old])
