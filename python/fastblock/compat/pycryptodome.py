"""The shape of pycryptodome's ``Crypto.Cipher`` over fastblock.

Code written for ``from Crypto.Cipher import AES, DES, DES3`` can switch with
``from fastblock.compat.pycryptodome import AES, DES, DES3``; ``Twofish``,
``Serpent``, ``RC6`` and ``MARS`` have the same shape. ``new(key, mode, ...)``
with ``MODE_ECB``, ``MODE_CBC``, ``MODE_CFB`` (``segment_size`` 8 or the block
in bits; 8 by default, as in pycryptodome), ``MODE_OFB`` and ``MODE_CTR``
(``nonce`` and ``initial_value``); objects with ``encrypt(data, output=None)``
and ``decrypt(data, output=None)``, ``iv``/``IV``, ``nonce``, ``block_size``.

What differs from pycryptodome (docs/python.md):
  * DES3 accepts degenerate keys (K1 = K2 or K2 = K3), which pycryptodome
    refuses; DES3.adjust_key_parity does not refuse them either.
  * MODE_CTR: the whole counter block is incremented as one big-endian
    integer, so a counter that overflows its field carries into the nonce
    (pycryptodome raises OverflowError); ``counter=`` objects are not taken.
  * No MODE_EAX, MODE_GCM, MODE_CCM, MODE_SIV, MODE_OCB, MODE_OPENPGP.
  * Errors are fastblock's exceptions (subclasses of ValueError for bad keys,
    IVs and lengths, as pycryptodome raises ValueError).
"""
from __future__ import annotations

import os
from typing import Any, Optional

import fastblock

MODE_ECB = 1
MODE_CBC = 2
MODE_CFB = 3
MODE_OFB = 5
MODE_CTR = 6
_MODES = {MODE_ECB: "ecb", MODE_CBC: "cbc", MODE_CFB: "cfb", MODE_OFB: "ofb", MODE_CTR: "ctr"}


class _CipherObject:
    """One pycryptodome-style cipher object: encrypt or decrypt (not both), in
    as many calls as wanted (ECB and CBC: whole blocks per call)."""

    def __init__(self, name: str, key: bytes, mode: int, init: Optional[bytes], block_size: int, **extra: Any):
        self.block_size = block_size
        self.mode = mode
        self._name = name
        self._key = bytes(key)
        self._iv = init
        self._ctx = None
        self._dir = None
        for k, v in extra.items():
            setattr(self, k, v)
        fastblock.Cipher(name, self._key, init, "none" if mode in (MODE_ECB, MODE_CBC) else None)  # check now

    def _run(self, enc: bool, data: Any, output: Any) -> Optional[bytes]:
        if self._dir is None:
            c = fastblock.Cipher(self._name, self._key, self._iv,
                                 "none" if self.mode in (MODE_ECB, MODE_CBC) else None)
            self._ctx = c.encryptor() if enc else c.decryptor()
            self._dir = enc
        elif self._dir != enc:
            raise TypeError("encrypt() and decrypt() cannot be mixed on one cipher object")
        n = len(memoryview(data).cast("B")) if not isinstance(data, (bytes, bytearray)) else len(data)
        if self.mode in (MODE_ECB, MODE_CBC) and n % self.block_size:
            raise ValueError(f"Data must be aligned to block boundary in {'ECB' if self.mode == MODE_ECB else 'CBC'}"
                             " mode")
        if output is None:
            return self._ctx.update(data)
        if len(memoryview(output).cast("B")) != n:
            raise ValueError("output must have the same length as the input")
        if self.mode in (MODE_ECB, MODE_CBC):
            # whole blocks, no padding: as long as the input, but update_into
            # asks room for a held-back block
            memoryview(output).cast("B")[:] = self._ctx.update(data)
        else:
            self._ctx.update_into(data, output)
        return None

    def encrypt(self, plaintext: Any, output: Any = None) -> Optional[bytes]:
        """Encrypts; with output= writes there and returns None."""
        return self._run(True, plaintext, output)

    def decrypt(self, ciphertext: Any, output: Any = None) -> Optional[bytes]:
        """Decrypts; with output= writes there and returns None."""
        return self._run(False, ciphertext, output)


class _Family:
    """A cipher module's shape: AES.new(...), AES.block_size, AES.MODE_CBC, ..."""

    MODE_ECB, MODE_CBC, MODE_CFB, MODE_OFB, MODE_CTR = MODE_ECB, MODE_CBC, MODE_CFB, MODE_OFB, MODE_CTR

    def __init__(self, prefix: str, block_size: int, key_sizes: tuple):
        self._prefix = prefix
        self.block_size = block_size
        self.key_size = key_sizes

    def _base(self, key: bytes) -> str:
        if len(key) not in self.key_size:
            raise fastblock.InvalidKeyError(fastblock.strerror(-2), -2, f"{self._prefix}: {len(key)}-byte key")
        return f"{self._prefix}-{len(key) * 8}"

    def new(self, key: Any, mode: int, *args: Any, **kwargs: Any) -> _CipherObject:
        key = bytes(memoryview(key).cast("B"))
        if mode not in _MODES:
            raise ValueError(f"mode {mode} is not offered by fastblock.compat.pycryptodome")
        bs = self.block_size
        iv = kwargs.pop("iv", None)
        if iv is None:
            iv = kwargs.pop("IV", None)
        if args:
            if mode == MODE_CTR:
                raise TypeError("MODE_CTR takes nonce= and initial_value= as keywords")
            iv = args[0]
        extra: dict = {}
        suffix = _MODES[mode]
        if mode == MODE_ECB:
            iv = None
        elif mode == MODE_CTR:
            if "counter" in kwargs:
                raise TypeError("counter objects are not supported: use nonce= and initial_value=")
            nonce = kwargs.pop("nonce", None)
            if nonce is None:
                nonce = os.urandom(bs // 2)
            nonce = bytes(nonce)
            if len(nonce) >= bs:
                raise ValueError("Nonce is too long")
            init = kwargs.pop("initial_value", 0)
            width = bs - len(nonce)
            if isinstance(init, (bytes, bytearray)):
                if len(init) != width:
                    raise ValueError("initial_value has the wrong length")
                init = int.from_bytes(init, "big")
            if not 0 <= init < (1 << (8 * width)):
                raise ValueError("initial_value out of range")
            iv = nonce + init.to_bytes(width, "big")
            extra["nonce"] = nonce
        else:
            if iv is None:
                iv = os.urandom(bs)
            iv = bytes(memoryview(iv).cast("B"))
            if mode == MODE_CFB:
                seg = kwargs.pop("segment_size", 8)
                if seg == 8:
                    suffix = "cfb8"
                elif seg != 8 * bs:
                    raise ValueError(f"segment_size {seg} not offered: 8 or {8 * bs}")
                extra["segment_size"] = seg
            extra["iv"] = iv
            extra["IV"] = iv
        if kwargs:
            raise TypeError(f"unexpected arguments: {', '.join(kwargs)}")
        return _CipherObject(f"{self._base(key)}-{suffix}", key, mode, iv, bs, **extra)


class _DESFamily(_Family):
    def _base(self, key: bytes) -> str:
        n = {8: "des", 16: "des-ede", 24: "des-ede3"}.get(len(key)) if len(key) in self.key_size else None
        if n is None:
            raise fastblock.InvalidKeyError(fastblock.strerror(-2), -2, f"{self._prefix}: {len(key)}-byte key")
        return n

    @staticmethod
    def adjust_key_parity(key: Any) -> bytes:
        """Sets odd parity on every byte (pycryptodome's DES3.adjust_key_parity)."""
        return fastblock.des_set_parity(key)


AES = _Family("aes", 16, (16, 24, 32))
Twofish = _Family("twofish", 16, (16, 24, 32))
Serpent = _Family("serpent", 16, (16, 24, 32))
RC6 = _Family("rc6", 16, (16, 24, 32))
MARS = _Family("mars", 16, (16, 24, 32))
DES = _DESFamily("des", 8, (8,))
DES3 = _DESFamily("des3", 8, (16, 24))

__all__ = ["AES", "DES", "DES3", "Twofish", "Serpent", "RC6", "MARS",
           "MODE_ECB", "MODE_CBC", "MODE_CFB", "MODE_OFB", "MODE_CTR"]
