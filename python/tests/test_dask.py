"""examples/dask_reencrypt.py: the Spark job's work with Dask's threaded
scheduler round-trips (checked in full with fastblock and on a sample with
cryptography), and a bad IV in the data leaves no table."""
from __future__ import annotations

import os
import sys
import time

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("dask.dataframe")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
import dask_reencrypt  # noqa: E402
import spark_reencrypt as job  # noqa: E402
from test_spark import _check  # noqa: E402


@pytest.mark.parametrize("mode,in_prefix,out_prefix", [("ctr", False, False), ("cbc", True, True)])
def test_round_trip(tmp_path, mode, in_prefix, out_prefix):
    old, new = job.Secret(os.urandom(24)), job.Secret(os.urandom(32))
    src, truth, dst = str(tmp_path / "legacy"), str(tmp_path / "truth.parquet"), str(tmp_path / "new")
    job.generate(200000, src, truth, old, iv_prefix=in_prefix, files=4)
    lay = job.Layout("ct", None if in_prefix else "iv", "ct_aes", None if out_prefix else "iv_aes")
    dask_reencrypt.reencrypt(src, dst, old, new, mode, lay, workers=2)
    _check(dst, truth, new, mode, prefix=out_prefix, sample=300)


def test_bad_iv_leaves_no_table(tmp_path):
    import fastblock
    old, new = job.Secret(os.urandom(24)), job.Secret(os.urandom(32))
    src, dst = str(tmp_path / "legacy"), str(tmp_path / "new")
    job.generate(4000, src, None, old, files=2)
    t = pq.read_table(os.path.join(src, "part-00001.parquet"))
    ivs = t.column("iv").to_pylist()
    ivs[10] = ivs[10][:5]
    pq.write_table(t.set_column(t.schema.get_field_index("iv"), "iv", pa.array(ivs, pa.binary())),
                   os.path.join(src, "part-00001.parquet"))
    with pytest.raises(fastblock.IVLengthError, match="record 10"):
        dask_reencrypt.reencrypt(src, dst, old, new, "ctr", job.Layout("ct", "iv", "ct_aes", "iv_aes"), workers=2)
    time.sleep(0.5)  # a partition still running when the error came must not write after it
    assert not os.path.exists(dst)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("new")]
