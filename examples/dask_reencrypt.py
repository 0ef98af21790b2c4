#!/usr/bin/env python3
"""The Spark job of spark_reencrypt.py with Dask, for machines without a JVM.

Re-encrypts a Parquet table's 3DES-CBC column under AES-256 (CTR or CBC, a
fresh IV per record) with dask.dataframe: each partition is an Arrow-backed
pandas frame. Its Arrow buffers go to the same per-batch function as the
Spark job's, which calls fastblock's batch API once per direction. The GIL
is released there, so Dask's default threaded scheduler runs partitions on
every core.

The table is written to a temporary directory beside the destination and
renamed into place only when every partition has succeeded: a failure
(a bad IV in the data, say) leaves no table. Keys come from files or the
environment, as for the Spark job.

    dask_reencrypt.py --in legacy.parquet --out new.parquet --old-key-file old.key \\
        --new-key-file new.key [--mode ctr|cbc] [--iv-prefix] [--out-iv-prefix] [--workers N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spark_reencrypt as job  # noqa: E402  (the shared per-batch work, keys, layouts)


def _partition(df, run, schema):
    import pandas as pd
    t = pa.Table.from_pandas(df, preserve_index=False).combine_chunks()
    out = pa.Table.from_batches(list(run(iter(t.to_batches()))), schema=schema) if t.num_rows else schema.empty_table()
    return out.to_pandas(types_mapper=pd.ArrowDtype)


def reencrypt(src: str, dst: str, old: job.Secret, new: job.Secret, mode: str, lay: job.Layout,
              workers: int = 0) -> None:
    """src (Parquet) -> dst (Parquet), or nothing at dst on any error."""
    import dask
    import dask.dataframe as dd
    import pandas as pd
    job.check_keys(old, new, mode)
    ddf = dd.read_parquet(src, dtype_backend="pyarrow")
    in_schema = pa.Schema.from_pandas(ddf._meta, preserve_index=False)
    schema = lay.out_schema(in_schema)
    meta = schema.empty_table().to_pandas(types_mapper=pd.ArrowDtype)
    out = ddf.map_partitions(_partition, job.fastblock_batch(old, new, mode, lay), schema, meta=meta)
    tmp = f"{dst.rstrip('/')}.tmp-{os.getpid()}"
    # A pool of our own: when a partition fails, Dask raises at once while
    # other partitions may still be running and writing into tmp, so the
    # pool is drained before tmp is removed (a write after the removal, or
    # during it, left the directory behind).
    pool = ThreadPoolExecutor(max_workers=workers or os.cpu_count())
    try:
        try:
            with dask.config.set(scheduler="threads", pool=pool):
                out.to_parquet(tmp, write_index=False)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        os.rename(tmp, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--in", dest="src", required=True)
    p.add_argument("--out", dest="dst", required=True)
    p.add_argument("--column", default="ct")
    p.add_argument("--iv-column", default="iv")
    p.add_argument("--iv-prefix", action="store_true")
    p.add_argument("--out-column", default="ct_aes")
    p.add_argument("--out-iv-column", default="iv_aes")
    p.add_argument("--out-iv-prefix", action="store_true")
    p.add_argument("--mode", choices=("ctr", "cbc"), default="ctr")
    p.add_argument("--old-key-file")
    p.add_argument("--new-key-file")
    p.add_argument("--workers", type=int, default=0, help="threads (default: the CPUs)")
    a = p.parse_args(argv)
    if os.path.exists(a.dst):
        raise SystemExit(f"{a.dst} exists: give a new path")
    old, new = job.read_key(a.old_key_file, "FB_OLD_KEY_HEX"), job.read_key(a.new_key_file, "FB_NEW_KEY_HEX")
    lay = job.Layout(a.column, None if a.iv_prefix else a.iv_column, a.out_column,
                     None if a.out_iv_prefix else a.out_iv_column)
    reencrypt(a.src, a.dst, old, new, a.mode, lay, a.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
