"""fastblock: fast block ciphers (DES, Triple-DES, AES, RC6, MARS, Twofish, Serpent).

Cipher names are those of the C library and the CLI (``fastblock list``):
``des-cbc``, ``des-ede-cbc`` (two-key 3DES), ``des-ede3-cbc``, ``aes-128-ctr``,
``twofish-256-xts``, ``serpent-192-cfb8``, ``rc6-128-ofb``, ``mars-256-ecb``.

One-shot::

    ct = fastblock.encrypt("aes-128-cbc", key, data, iv)      # PKCS#7 by default
    pt = fastblock.decrypt("aes-128-cbc", key, ct, iv)

Streaming (the same bytes for any split of the input)::

    enc = fastblock.Cipher("des-ede3-cbc", key, iv).encryptor()
    out = enc.update(part1) + enc.update(part2) + enc.finalize()

Many independent messages in one call::

    cts = fastblock.batch_encrypt("des-ede3-cbc", key, records, ivs=ivs)

Errors raise subclasses of :class:`fastblock.Error` carrying the C library's
code and message; nothing is returned on error. A context (encryptor or
decryptor) must not be used by two threads at once; distinct contexts and all
the module-level functions are thread-safe, and the GIL is released for inputs
of ``NOGIL_MIN`` bytes or more.
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence, Union

from . import _fastblock
from ._fastblock import (  # noqa: F401  (re-exported)
    CipherContext,
    NOGIL_MIN,
    cpu_description,
    decrypt,
    des_check_parity,
    des_is_weak_key,
    des_set_parity,
    encrypt,
    library_version,
    output_bound,
    strerror,
)

__version__ = "0.1.0"

Buffer = Union[bytes, bytearray, memoryview, Any]

__all__ = [
    "encrypt", "decrypt", "Cipher", "CipherContext", "batch_encrypt", "batch_decrypt",
    "ciphers", "implementations", "cpu_description", "library_version", "output_bound",
    "des_check_parity", "des_set_parity", "des_is_weak_key", "strerror", "NOGIL_MIN",
    "CipherInfo", "ImplementationInfo", "mac", "kcv", "mac_batch", "kcv_batch",
    "Error", "UnknownCipherError", "InvalidKeyError", "WeakKeyError", "IVLengthError",
    "DataLengthError", "PaddingError", "ImplementationError", "StateError", "ArgumentError",
]


# ---- Errors -------------------------------------------------------------------

class Error(Exception):
    """A fastblock error: ``code`` is the C library's (negative) error code,
    ``message`` its text (``fb_strerror``), ``where`` the cipher or record."""

    def __init__(self, message: str, code: int = 0, where: Optional[str] = None):
        super().__init__(message if where is None else f"{where}: {message}")
        self.message = message
        self.code = code
        self.where = where


class UnknownCipherError(Error, LookupError):
    """No cipher or mode by that name (FB_ERR_UNKNOWN_CIPHER)."""


class InvalidKeyError(Error, ValueError):
    """Key refused: wrong length, equal XTS halves (FB_ERR_KEY_LENGTH, FB_ERR_XTS_KEYS)."""


class WeakKeyError(InvalidKeyError):
    """Weak or degenerate DES key refused under strict_keys (FB_ERR_WEAK_KEY)."""


class IVLengthError(Error, ValueError):
    """IV missing or of the wrong length (FB_ERR_IV_LENGTH)."""


class DataLengthError(Error, ValueError):
    """Data not a multiple of the block where the mode needs it, or too short (FB_ERR_DATA_LENGTH)."""


class PaddingError(Error, ValueError):
    """Padding check failed, or padding asked of a mode that has none
    (FB_ERR_BAD_PADDING, FB_ERR_PADDING_MODE)."""


class ImplementationError(Error):
    """Implementation unknown, not run by this CPU, or not constant-time when
    constant_time=True (FB_ERR_IMPL_UNAVAILABLE, FB_ERR_NOT_CONSTANT_TIME)."""


class StateError(Error):
    """Context already finalized (FB_ERR_STATE)."""


class ArgumentError(Error, ValueError):
    """Invalid argument, overlapping buffers or output space (FB_ERR_ARGUMENT,
    FB_ERR_OVERLAP, FB_ERR_OUTPUT_SPACE)."""


_fastblock._register_errors(Error, {
    _fastblock.ERR_UNKNOWN_CIPHER: UnknownCipherError,
    _fastblock.ERR_KEY_LENGTH: InvalidKeyError,
    _fastblock.ERR_XTS_KEYS: InvalidKeyError,
    _fastblock.ERR_WEAK_KEY: WeakKeyError,
    _fastblock.ERR_IV_LENGTH: IVLengthError,
    _fastblock.ERR_DATA_LENGTH: DataLengthError,
    _fastblock.ERR_BAD_PADDING: PaddingError,
    _fastblock.ERR_PADDING_MODE: PaddingError,
    _fastblock.ERR_IMPL_UNAVAILABLE: ImplementationError,
    _fastblock.ERR_NOT_CONSTANT_TIME: ImplementationError,
    _fastblock.ERR_STATE: StateError,
    _fastblock.ERR_ARGUMENT: ArgumentError,
    _fastblock.ERR_OVERLAP: ArgumentError,
    _fastblock.ERR_OUTPUT_SPACE: ArgumentError,
})


# ---- Catalogue -------------------------------------------------------------------

class CipherInfo(NamedTuple):
    """One cipher+mode name: key_len is the length the name implies (XTS: both keys)."""
    name: str
    family: str
    mode: str
    key_len: int
    block_size: int
    iv_len: int


class ImplementationInfo(NamedTuple):
    """One compiled implementation. constant_time: no secret-dependent branches
    or memory addresses; supported: this CPU runs it; batch: natural batch in blocks."""
    name: str
    family: str
    note: str
    constant_time: bool
    supported: bool
    batch: int
    cpu_needs: str

    @property
    def description(self) -> str:
        ct = "constant-time" if self.constant_time else "NOT constant-time"
        runs = "runs on this CPU" if self.supported else "not on this CPU"
        return f"{self.name}: {self.note} ({ct}; {runs})"


def ciphers() -> List[CipherInfo]:
    """Every cipher+mode name the library knows (the catalogue of ``fastblock list``)."""
    return [CipherInfo(*t) for t in _fastblock._ciphers()]


def implementations() -> List[ImplementationInfo]:
    """Every compiled implementation, with its constant-time flag and whether this CPU runs it."""
    return [ImplementationInfo(*t) for t in _fastblock._implementations()]


# ---- Streaming ---------------------------------------------------------------------

class Cipher:
    """A cipher+mode with its key, IV and options; makes streaming contexts.

    ``Cipher(name, key, iv=None, padding=None, impl=None, constant_time=False,
    strict_keys=False, threads=False)``. With ``threads``, updates and messages of
    2 MB or more in the parallel modes (ECB, CTR, XTS, CBC and CFB decryption) run
    on every CPU the process may use, with the same bytes. The arguments are checked at once (a bad key or IV
    raises here). ``encryptor()`` and ``decryptor()`` return new
    :class:`CipherContext` objects with ``update``, ``update_into`` and
    ``finalize``. The key is kept (as bytes) by this object; contexts wipe
    their copy when finalized or freed.
    """

    __slots__ = ("name", "_key", "_iv", "padding", "impl", "constant_time", "strict_keys", "threads")

    def __init__(self, name: str, key: Buffer, iv: Optional[Buffer] = None, padding: Optional[str] = None,
                 impl: Optional[str] = None, constant_time: bool = False, strict_keys: bool = False,
                 threads: bool = False):
        self.name = name
        self._key = bytes(memoryview(key).cast("B")) if not isinstance(key, bytes) else key
        self._iv = None if iv is None else (iv if isinstance(iv, bytes) else bytes(memoryview(iv).cast("B")))
        self.padding = padding
        self.impl = impl
        self.constant_time = bool(constant_time)
        self.strict_keys = bool(strict_keys)
        self.threads = bool(threads)
        self._new(True)  # raises on any bad argument

    def _new(self, enc: bool) -> CipherContext:
        return _fastblock._stream(self.name, enc, self._key, self._iv, self.padding, self.impl,
                                  self.constant_time, self.strict_keys, self.threads)

    def encryptor(self) -> CipherContext:
        """A new encryption context."""
        return self._new(True)

    def decryptor(self) -> CipherContext:
        """A new decryption context."""
        return self._new(False)

    def encrypt(self, data: Buffer) -> bytes:
        """One-shot encryption with this object's key, IV and options."""
        return encrypt(self.name, self._key, data, self._iv, self.padding, impl=self.impl,
                       constant_time=self.constant_time, strict_keys=self.strict_keys, threads=self.threads)

    def decrypt(self, data: Buffer) -> bytes:
        """One-shot decryption with this object's key, IV and options."""
        return decrypt(self.name, self._key, data, self._iv, self.padding, impl=self.impl,
                       constant_time=self.constant_time, strict_keys=self.strict_keys, threads=self.threads)

    def __repr__(self) -> str:
        return f"fastblock.Cipher({self.name!r}, padding={self.padding!r}, impl={self.impl!r})"


# ---- Batches -------------------------------------------------------------------------

def _is_arrow(records: Any) -> bool:
    t = type(records)
    return t.__module__.startswith("pyarrow") and (hasattr(records, "buffers") or hasattr(records, "combine_chunks"))


def _ivs_arg(ivs: Any, n: int) -> tuple:
    """(ivs, stride) for the C batch: an Arrow array of IVs of one length is
    passed as one flat buffer of n IVs (no Python object per record)."""
    if not _is_arrow(ivs):
        return ivs, 0
    import pyarrow as pa
    import pyarrow.compute as pc
    arr = ivs.combine_chunks() if isinstance(ivs, pa.ChunkedArray) else ivs
    if len(arr) != n:
        raise ValueError(f"ivs: {len(arr)} given for {n} records")
    if arr.null_count or not n:
        return arr.to_pylist(), 0  # a null IV is refused record by record, as in a list
    if pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type):
        lo, hi = pc.min_max(pc.binary_length(arr)).values()
        if lo.as_py() != hi.as_py():
            return arr.to_pylist(), 0  # the C batch names the record with the wrong length
        arr = arr.cast(pa.binary(lo.as_py()))
    if not pa.types.is_fixed_size_binary(arr.type):
        raise TypeError(f"ivs: a pyarrow Binary or FixedSizeBinary array is needed, not {arr.type}")
    w = arr.type.byte_width
    if not w:
        return arr.to_pylist(), 0
    return memoryview(arr.buffers()[1])[arr.offset * w:(arr.offset + n) * w], w


def _batch(enc: bool, name: str, key_or_keys: Any, records: Any, ivs: Any, padding: Optional[str],
           impl: Optional[str], constant_time: bool, strict_keys: bool) -> Any:
    if not _is_arrow(records):
        n = len(records) if _is_arrow(ivs) else 0
        ivs, stride = _ivs_arg(ivs, n)
        return _fastblock._batch(name, enc, key_or_keys, records, ivs, stride, padding, impl, constant_time,
                                 strict_keys)
    import pyarrow as pa  # only when given an Arrow array
    arr = records
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_binary(arr.type):
        width, out_type = 4, pa.binary()
    elif pa.types.is_large_binary(arr.type):
        width, out_type = 8, pa.large_binary()
    else:
        raise TypeError(f"records: a pyarrow Binary or LargeBinary array is needed, not {arr.type}")
    if arr.null_count:
        return _batch_with_nulls(enc, name, key_or_keys, arr, ivs, padding, impl, constant_time, strict_keys)
    _validity, offsets, data = arr.buffers()
    n = len(arr)
    # the array may be a slice: its offsets start at arr.offset
    off_view = memoryview(offsets)[arr.offset * width:(arr.offset + n + 1) * width] if n else b"\0" * (2 * width)
    data_view = memoryview(data) if data is not None else b""
    ivs, stride = _ivs_arg(ivs, n)
    out_data, out_offsets = _fastblock._batch_flat(name, enc, key_or_keys, data_view, off_view, width, n, ivs,
                                                   stride, padding, impl, constant_time, strict_keys)
    return pa.Array.from_buffers(out_type, n, [None, pa.py_buffer(out_offsets), pa.py_buffer(out_data)])


def _per_record(values: Any, n: int) -> bool:
    """True if values holds one entry per record (a sequence or Arrow array
    of n items that are not themselves bytes), not one value for all."""
    if values is None or isinstance(values, (bytes, bytearray, memoryview)):
        return False
    try:
        return len(values) == n and not isinstance(values[0], int)
    except TypeError:
        return False


def _batch_with_nulls(enc: bool, name: str, key_or_keys: Any, arr: Any, ivs: Any, padding: Optional[str],
                      impl: Optional[str], constant_time: bool, strict_keys: bool) -> Any:
    """An Arrow array with nulls: the valid records (with their own keys and
    IVs, where those are per record) go through the batch, and every null
    stays null at its position."""
    import pyarrow as pa
    import pyarrow.compute as pc
    n = len(arr)
    valid = arr.is_valid()
    keep = [i for i, v in enumerate(valid.to_pylist()) if v]

    def pick(values: Any) -> Any:
        if not _per_record(values, n):
            return values
        if isinstance(values, (pa.Array, pa.ChunkedArray)):
            return values.take(pa.array(keep, type=pa.int64()))
        return [values[i] for i in keep]

    done = _batch(enc, name, pick(key_or_keys), arr.filter(valid), pick(ivs), padding, impl, constant_time,
                  strict_keys)
    # position i takes result (number of valid records before i), or null
    idx = pc.subtract(pc.cumulative_sum(pc.cast(valid, pa.int64())), 1)
    return done.take(pc.if_else(valid, idx, pa.scalar(None, pa.int64())))


def batch_encrypt(name: str, key_or_keys: Any, records: Any, ivs: Any = None, padding: Optional[str] = None, *,
                  impl: Optional[str] = None, constant_time: bool = False, strict_keys: bool = False) -> Any:
    """Encrypts many independent messages in one call.

    ``key_or_keys``: one key for all records, or a sequence of one key per record.
    ``records``: a sequence of bytes-like objects (returns a list of bytes), or a
    pyarrow Binary/LargeBinary array (read in place; returns an array of the same type,
    with every null record left null).
    ``ivs``: one IV per record (a sequence, or a pyarrow FixedSizeBinary or Binary
    array, read as one buffer when its IVs have one length), one IV for all, or None for ECB.
    DES and Triple-DES in CBC, CFB and OFB run through the multi-stream engine
    (``fb_multi_crypt``), other ciphers record by record in C. The GIL is released.
    On any error nothing is returned; the exception names the record.
    """
    return _batch(True, name, key_or_keys, records, ivs, padding, impl, constant_time, strict_keys)


def batch_decrypt(name: str, key_or_keys: Any, records: Any, ivs: Any = None, padding: Optional[str] = None, *,
                  impl: Optional[str] = None, constant_time: bool = False, strict_keys: bool = False) -> Any:
    """Decrypts many independent messages in one call (see :func:`batch_encrypt`)."""
    return _batch(False, name, key_or_keys, records, ivs, padding, impl, constant_time, strict_keys)


# ---- MACs and key check values ------------------------------------------------------

_MAC_ALGS = {"cbc": 1, "retail": 2, "cmac": 3}


def _mac_args(algorithm: str, padding: Optional[int]) -> tuple:
    alg = _MAC_ALGS.get(algorithm)
    if alg is None:
        raise ValueError("algorithm must be 'cbc', 'retail' or 'cmac', not %r" % (algorithm,))
    if padding is None:
        padding = 0 if alg == 3 else 1
    if padding not in (0, 1, 2, 3):
        raise ValueError("padding must be an ISO/IEC 9797-1 method 1, 2 or 3 (0 for CMAC), not %r" % (padding,))
    return alg, padding


def mac(name: str, key: Buffer, data: Buffer, *, algorithm: str = "cmac", padding: Optional[int] = None,
        length: Optional[int] = None) -> bytes:
    """The MAC of a whole message (``fb_mac``).

    ``algorithm``: ``"cmac"`` (NIST SP 800-38B, any cipher), ``"cbc"`` (ISO/IEC
    9797-1 MAC algorithm 1) or ``"retail"`` (algorithm 3, ANSI X9.19: ``name``
    ``"des-ede"`` or ``"des-ede3"``). ``name`` is a cipher and key size; its mode
    is ignored (``"aes-128"`` forms need a mode: ``"aes-128-ecb"``).
    ``padding``: ISO/IEC 9797-1 method 1 (zeros, the default), 2 or 3 for cbc and
    retail; CMAC pads itself. ``length``: bytes kept (the leftmost), default the
    block size. The GIL is released.
    """
    alg, pad = _mac_args(algorithm, padding)
    return _fastblock._mac(alg, name, key, data, pad, 0 if length is None else length)


def kcv(name: str, key: Buffer, *, cmac: bool = False, length: int = 3) -> bytes:
    """Key check value: the leftmost ``length`` bytes of E(K, 0...0), or with
    ``cmac=True`` of the CMAC of one zero block (``fb_kcv``)."""
    return _fastblock._kcv(name, key, cmac, length)


def mac_batch(name: str, keys: Sequence[Buffer], messages: Sequence[Buffer], *, algorithm: str = "cmac",
              padding: Optional[int] = None, length: Optional[int] = None) -> List[bytes]:
    """MACs of many messages, each under its own key, in one call
    (``fb_mac_batch``): DES and Triple-DES CBC and retail MACs run through the
    multi-lane engine, many keys at once. All keys have one length. Arguments as
    :func:`mac`; returns one MAC per message, or raises with nothing returned.
    """
    alg, pad = _mac_args(algorithm, padding)
    return _fastblock._mac_batch(alg, name, keys, messages, pad, 0 if length is None else length)


def kcv_batch(name: str, keys: Sequence[Buffer], *, cmac: bool = False, length: int = 3) -> List[bytes]:
    """Key check values of many keys in one call (``fb_kcv_batch``); see :func:`kcv`."""
    return _fastblock._kcv_batch(name, keys, cmac, length)
