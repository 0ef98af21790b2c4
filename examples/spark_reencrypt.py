#!/usr/bin/env python3
"""Re-encrypts a legacy 3DES-CBC column of a Parquet table under AES-256, with PySpark.

The input table has a binary column of 3DES-CBC ciphertexts (PKCS#7), each
record with its own 8-byte IV, either in another column or as the first 8
bytes of the ciphertext. The job decrypts the column and encrypts it again
under a new AES-256 key, in CTR or CBC, with a fresh random IV per record,
and writes Parquet: the other columns as they were, the new ciphertext and
its IV (a column, or a prefix). The old column and its IVs are dropped.

Every Arrow record batch goes through ``DataFrame.mapInArrow`` to two calls
of fastblock's batch API (``batch_decrypt``, ``batch_encrypt``), which read
the Arrow buffers in place with the GIL released: no record passes through
Python on its own. ``--engine cryptography`` runs the same job with a
per-record loop over the ``cryptography`` package, the baseline.

Keys never come from the command line: ``--old-key-file`` and
``--new-key-file`` name files that hold a key as hex or raw bytes (on a
cluster, a secret mounted as a file), or the environment variables
FB_OLD_KEY_HEX and FB_NEW_KEY_HEX hold them. The keys are checked on the
driver before the job starts, and reach the executors inside the job's
serialized function, never as a column or literal of the query plan.

    spark_reencrypt.py generate --rows 1000000 --out legacy.parquet --truth truth.parquet
    spark_reencrypt.py run --in legacy.parquet --out new.parquet --column ct --iv-column iv \\
        --old-key-file old.key --new-key-file new.key --mode ctr [--master local[2]]
    spark_reencrypt.py bench --rows 1000000 (records/s, fastblock against the baseline)

See docs/scale.md for running it on a cluster.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Callable, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import fastblock

OLD_CIPHER = "des-ede3-cbc"
OLD_IV = 8
NEW_IV = 16


class Secret:
    """Key bytes that never print: a stray log line or repr shows no key."""

    __slots__ = ("_v",)

    def __init__(self, value: bytes):
        self._v = bytes(value)

    def get(self) -> bytes:
        return self._v

    def __repr__(self) -> str:
        return "Secret(<hidden>)"

    __str__ = __repr__


def read_key(path: Optional[str], env: str) -> Secret:
    """A key from a file (hex on one line, or raw bytes) or from env (hex)."""
    if path:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.strip()
        try:
            if text and len(text) % 2 == 0:
                return Secret(bytes.fromhex(text.decode("ascii")))
        except (UnicodeDecodeError, ValueError):
            pass
        return Secret(raw)
    value = os.environ.get(env)
    if value is None:
        raise SystemExit(f"no key: give a key file, or set {env} (hex) in the environment")
    try:
        return Secret(bytes.fromhex(value.strip()))
    except ValueError:
        raise SystemExit(f"{env} is not hex") from None


# ---- the per-batch work ----------------------------------------------------------------------

class Layout:
    """Where IVs live: a column (name) or the ciphertext's first bytes (prefix)."""

    def __init__(self, column: str, iv_column: Optional[str], out_column: str, out_iv_column: Optional[str]):
        self.column, self.iv_column = column, iv_column
        self.out_column, self.out_iv_column = out_column, out_iv_column

    def split(self, batch: pa.RecordBatch) -> tuple:
        ct = batch.column(self.column)
        if self.iv_column:
            return batch.column(self.iv_column), ct
        return pc.binary_slice(ct, 0, OLD_IV), tail(ct, OLD_IV)

    def join(self, batch: pa.RecordBatch, ivs: pa.Array, ct: pa.Array) -> pa.RecordBatch:
        keep = [n for n in batch.schema.names if n not in (self.column, self.iv_column)]
        cols = [batch.column(n) for n in keep]
        ivs = ivs.cast(pa.binary())  # Spark has no fixed-size binary type
        if self.out_iv_column:
            return pa.RecordBatch.from_arrays(cols + [ct, ivs], names=keep + [self.out_column, self.out_iv_column])
        both = pc.binary_join_element_wise(ivs, ct, b"")
        return pa.RecordBatch.from_arrays(cols + [both], names=keep + [self.out_column])

    def out_schema(self, schema: pa.Schema) -> pa.Schema:
        fields = [f for f in schema if f.name not in (self.column, self.iv_column)]
        fields.append(pa.field(self.out_column, pa.binary()))
        if self.out_iv_column:
            fields.append(pa.field(self.out_iv_column, pa.binary()))
        return pa.schema(fields)


def tail(arr: pa.Array, start: int) -> pa.Array:
    """Each value from byte start on. (binary_slice without a stop fails in
    pyarrow 26 with "Negative buffer resize": the stop is given.)"""
    longest = pc.max(pc.binary_length(arr)).as_py() or start
    return pc.binary_slice(arr, start, max(longest, start))


def random_ivs(n: int) -> pa.Array:
    """n fresh random 16-byte IVs as one FixedSizeBinary array (one urandom call)."""
    return pa.Array.from_buffers(pa.binary(NEW_IV), n, [None, pa.py_buffer(os.urandom(NEW_IV * n))])


def fastblock_batch(old: Secret, new: Secret, mode: str, lay: Layout) -> Callable:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            old_ivs, ct = lay.split(b)
            pt = fastblock.batch_decrypt(OLD_CIPHER, old.get(), ct, old_ivs)
            ivs = random_ivs(b.num_rows)
            out = fastblock.batch_encrypt(f"aes-256-{mode}", new.get(), pt, ivs)
            yield lay.join(b, ivs, out)
    return run


def cryptography_batch(old: Secret, new: Secret, mode: str, lay: Layout) -> Callable:
    """The baseline: one record at a time through the cryptography package."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # imported here, on the executor: the modules do not pickle
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        try:
            from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
        except ImportError:
            TripleDES = algorithms.TripleDES
        tdes, aes = TripleDES(old.get()), algorithms.AES(new.get())
        for b in batches:
            old_ivs, ct = lay.split(b)
            n = b.num_rows
            new_ivs = os.urandom(NEW_IV * n)
            out = []
            for i, (iv, c) in enumerate(zip(old_ivs.to_pylist(), ct.to_pylist())):
                d = Cipher(tdes, modes.CBC(iv)).decryptor()
                u = padding.PKCS7(64).unpadder()
                p = u.update(d.update(c) + d.finalize()) + u.finalize()
                iv2 = new_ivs[NEW_IV * i:NEW_IV * (i + 1)]
                if mode == "cbc":
                    pd = padding.PKCS7(128).padder()
                    p = pd.update(p) + pd.finalize()
                    e = Cipher(aes, modes.CBC(iv2)).encryptor()
                else:
                    e = Cipher(aes, modes.CTR(iv2)).encryptor()
                out.append(e.update(p) + e.finalize())
            ivs = pa.Array.from_buffers(pa.binary(NEW_IV), n, [None, pa.py_buffer(new_ivs)])
            yield lay.join(b, ivs, pa.array(out, pa.binary()))
    return run


ENGINES = {"fastblock": fastblock_batch, "cryptography": cryptography_batch}


# ---- the job -------------------------------------------------------------------------------------

def spark_session(master: str, app: str = "fastblock-reencrypt"):
    from pyspark.sql import SparkSession
    # Local mode: the Python workers run this interpreter (its fastblock and
    # pyarrow). A cluster sets PYSPARK_PYTHON to the executors' environment.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (SparkSession.builder.master(master).appName(app)
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.sql.execution.arrow.maxRecordsPerBatch", "65536")
         .config("spark.driver.memory", "2g")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    return s


def check_keys(old: Secret, new: Secret, mode: str) -> None:
    """Refuses bad keys on the driver, with the library's error, before any task runs."""
    fastblock.Cipher(OLD_CIPHER, old.get(), b"\0" * OLD_IV)
    fastblock.Cipher(f"aes-256-{mode}", new.get(), b"\0" * NEW_IV)


def reencrypt(spark, src: str, dst: str, old: Secret, new: Secret, mode: str, lay: Layout,
              engine: str = "fastblock", fmt: str = "parquet") -> None:
    """Reads src, re-encrypts, writes dst (Spark's commit protocol: dst gets
    data and _SUCCESS only if every task succeeded)."""
    if mode not in ("ctr", "cbc"):
        raise ValueError("mode must be ctr or cbc")
    check_keys(old, new, mode)
    df = spark.read.parquet(src)
    schema = lay.out_schema(pa.schema([pa.field(f.name, _arrow_type(f.dataType)) for f in df.schema]))
    out = df.mapInArrow(ENGINES[engine](old, new, mode, lay), _spark_schema(schema))
    w = out.write.mode("error")
    if fmt == "noop":
        w.format("noop").mode("overwrite").save()
    else:
        w.parquet(dst)


def _arrow_type(t):
    from pyspark.sql.pandas.types import to_arrow_type
    return to_arrow_type(t)


def _spark_schema(schema: pa.Schema):
    from pyspark.sql.pandas.types import from_arrow_schema
    return from_arrow_schema(schema)


# ---- a legacy table to try it on ------------------------------------------------------------------

def generate(rows: int, out: str, truth: Optional[str], old: Secret, iv_prefix: bool = False,
             files: int = 4, seed_pan: int = 0) -> None:
    """rows records: id, a card-number-like plaintext of 16 to 19 digits
    under 3DES-CBC with its own IV (a column `iv`, or a prefix of `ct`).
    truth (optional): id and the plaintext, to check a run against."""
    import numpy as np
    rng = np.random.default_rng(seed_pan or None)
    os.makedirs(out, exist_ok=True)
    per = (rows + files - 1) // files
    tw = pq.ParquetWriter(truth, pa.schema([("id", pa.int64()), ("pan", pa.binary())])) if truth else None
    for f in range(files):
        lo, hi = f * per, min(rows, (f + 1) * per)
        if lo >= hi:
            break
        n = hi - lo
        lens = rng.integers(16, 20, n)
        digits = (rng.integers(0, 10, int(lens.sum())) + ord("0")).astype(np.uint8).tobytes()
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        pans = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offs.tobytes()), pa.py_buffer(digits)])
        ivs = pa.Array.from_buffers(pa.binary(OLD_IV), n, [None, pa.py_buffer(os.urandom(OLD_IV * n))])
        ct = fastblock.batch_encrypt(OLD_CIPHER, old.get(), pans, ivs)
        ids = pa.array(np.arange(lo, hi, dtype=np.int64))
        if iv_prefix:
            t = pa.table({"id": ids, "ct": pc.binary_join_element_wise(ivs.cast(pa.binary()), ct, b"")})
        else:
            t = pa.table({"id": ids, "iv": ivs, "ct": ct})
        pq.write_table(t, os.path.join(out, f"part-{f:05d}.parquet"))
        if tw:
            tw.write_table(pa.table({"id": ids, "pan": pans}))
    if tw:
        tw.close()


# ---- command line ----------------------------------------------------------------------------------

def _layout(a) -> Layout:
    return Layout(a.column, None if a.iv_prefix else a.iv_column, a.out_column,
                  None if a.out_iv_prefix else a.out_iv_column)


def _bench(a) -> None:
    """records/s of the whole job (read, re-encrypt, write Parquet), median of
    a.repeat runs after one warm-up, per engine and master, on one table."""
    old, new = Secret(os.urandom(24)), Secret(os.urandom(32))
    work = tempfile.mkdtemp(prefix="fb-spark-bench-")
    try:
        src = os.path.join(work, "legacy")
        generate(a.rows, src, None, old, files=a.files)
        lay = Layout("ct", "iv", "ct_aes", "iv_aes")
        print(f"spark_reencrypt bench: {a.rows} records, 3DES-CBC -> AES-256-{a.mode.upper()}, "
              f"median of {a.repeat} runs (Parquet read and write included)")
        for master in a.masters:
            spark = spark_session(master)
            for engine in a.engines:
                times = []
                for r in range(a.repeat + 1):
                    dst = os.path.join(work, f"out-{engine}-{r}")
                    t0 = time.perf_counter()
                    reencrypt(spark, src, dst, old, new, a.mode, lay, engine)
                    if r:  # the first run warms the JVM and the Python workers
                        times.append(time.perf_counter() - t0)
                    shutil.rmtree(dst, ignore_errors=True)
                med = statistics.median(times)
                print(f"  {master:9s} {engine:13s} {a.rows / med:12,.0f} records/s   ({med:.2f} s)", flush=True)
            spark.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write a legacy table to try the job on")
    g.add_argument("--rows", type=int, default=1_000_000)
    g.add_argument("--out", required=True)
    g.add_argument("--truth", help="also write id and plaintext here (a Parquet file)")
    g.add_argument("--old-key-file")
    g.add_argument("--iv-prefix", action="store_true", help="IVs as the first 8 bytes of ct, not a column")
    g.add_argument("--files", type=int, default=4)
    r = sub.add_parser("run", help="re-encrypt a table")
    r.add_argument("--in", dest="src", required=True)
    r.add_argument("--out", dest="dst", required=True)
    r.add_argument("--column", default="ct")
    r.add_argument("--iv-column", default="iv")
    r.add_argument("--iv-prefix", action="store_true", help="the old IV is the first 8 bytes of --column")
    r.add_argument("--out-column", default="ct_aes")
    r.add_argument("--out-iv-column", default="iv_aes")
    r.add_argument("--out-iv-prefix", action="store_true", help="write the new IV in front of the ciphertext")
    r.add_argument("--mode", choices=("ctr", "cbc"), default="ctr")
    r.add_argument("--old-key-file")
    r.add_argument("--new-key-file")
    r.add_argument("--engine", choices=sorted(ENGINES), default="fastblock")
    r.add_argument("--master", default="local[2]")
    b = sub.add_parser("bench", help="records/s of fastblock's job and of the per-record baseline")
    b.add_argument("--rows", type=int, default=1_000_000)
    b.add_argument("--files", type=int, default=4)
    b.add_argument("--mode", choices=("ctr", "cbc"), default="ctr")
    b.add_argument("--repeat", type=int, default=3)
    b.add_argument("--masters", nargs="+", default=["local[1]", "local[2]"])
    b.add_argument("--engines", nargs="+", default=["fastblock", "cryptography"], choices=sorted(ENGINES))
    a = p.parse_args(argv)
    if a.cmd == "generate":
        generate(a.rows, a.out, a.truth, read_key(a.old_key_file, "FB_OLD_KEY_HEX"), a.iv_prefix, a.files)
    elif a.cmd == "run":
        old, new = read_key(a.old_key_file, "FB_OLD_KEY_HEX"), read_key(a.new_key_file, "FB_NEW_KEY_HEX")
        spark = spark_session(a.master)
        try:
            reencrypt(spark, a.src, a.dst, old, new, a.mode, _layout(a), a.engine)
        finally:
            spark.stop()
    else:
        _bench(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
