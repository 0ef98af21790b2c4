"""examples/spark_reencrypt.py in Spark local mode: a generated legacy table of
a million 3DES-CBC records re-encrypted under AES-256 round-trips (checked
in full with fastblock and on a sample with cryptography, an independent
implementation); IVs in a column or as a prefix; CTR and CBC; a bad key or
IV fails with the library's error and leaves no table; no key in the query
plan, the output files or the job's output."""
from __future__ import annotations

import glob
import os
import random
import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("pyspark")

import fastblock

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "spark_reencrypt.py")
ROWS = int(os.environ.get("FB_SPARK_ROWS", "1000000"))

sys.path.insert(0, os.path.dirname(EXAMPLE))
import spark_reencrypt as job  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    s = job.spark_session("local[2]", "fastblock-test")
    s.sparkContext.addPyFile(EXAMPLE)  # the Python workers import the job's module too
    yield s
    s.stop()


@pytest.fixture(scope="module")
def keys():
    return job.Secret(os.urandom(24)), job.Secret(os.urandom(32))


def _read(path):
    return pq.read_table(path).sort_by("id")


def _tdes_cbc_decrypt(key, iv, ct):
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, modes
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
    except ImportError:
        from cryptography.hazmat.primitives.ciphers.algorithms import TripleDES
    d = Cipher(TripleDES(key), modes.CBC(iv)).decryptor()
    u = padding.PKCS7(64).unpadder()
    return u.update(d.update(ct) + d.finalize()) + u.finalize()


def _aes_decrypt(mode, key, iv, ct):
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    if mode == "ctr":
        d = Cipher(algorithms.AES(key), modes.CTR(iv)).decryptor()
        return d.update(ct) + d.finalize()
    d = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    u = padding.PKCS7(128).unpadder()
    return u.update(d.update(ct) + d.finalize()) + u.finalize()


def _check(out_path, truth_path, new, mode, prefix, sample=2000):
    out, truth = _read(out_path), _read(truth_path)
    assert out.num_rows == truth.num_rows
    assert out.column("id").equals(truth.column("id"))
    if prefix:
        assert "iv_aes" not in out.schema.names
        both = out.column("ct_aes").combine_chunks()
        import pyarrow.compute as pc
        ivs, ct = pc.binary_slice(both, 0, 16), job.tail(both, 16)
    else:
        ivs, ct = out.column("iv_aes").combine_chunks(), out.column("ct_aes").combine_chunks()
    pans = truth.column("pan").combine_chunks()
    # every record, through fastblock
    assert fastblock.batch_decrypt(f"aes-256-{mode}", new.get(), ct, ivs).equals(pans)
    # fresh IVs: no two alike
    assert len(set(ivs.to_pylist())) == out.num_rows
    # a sample through cryptography
    rng = random.Random(1)
    idx = rng.sample(range(out.num_rows), min(sample, out.num_rows))
    ivl, ctl, pl = ivs.take(idx).to_pylist(), ct.take(idx).to_pylist(), pans.take(idx).to_pylist()
    for iv, c, p in zip(ivl, ctl, pl):
        assert _aes_decrypt(mode, new.get(), iv, c) == p


def test_million_records_round_trip(spark, keys, tmp_path):
    old, new = keys
    src, truth, dst = str(tmp_path / "legacy"), str(tmp_path / "truth.parquet"), str(tmp_path / "new")
    job.generate(ROWS, src, truth, old)
    # the old column decrypts with its own key (cryptography, a sample)
    legacy, t = _read(src), _read(truth)
    for i in random.Random(2).sample(range(ROWS), 500):
        assert _tdes_cbc_decrypt(old.get(), legacy.column("iv")[i].as_py(),
                                 legacy.column("ct")[i].as_py()) == t.column("pan")[i].as_py()
    job.reencrypt(spark, src, dst, old, new, "ctr", job.Layout("ct", "iv", "ct_aes", "iv_aes"))
    assert os.path.exists(os.path.join(dst, "_SUCCESS"))
    _check(dst, truth, new, "ctr", prefix=False)


@pytest.mark.parametrize("mode,in_prefix,out_prefix", [("cbc", True, False), ("cbc", False, True),
                                                       ("ctr", True, True)])
def test_layouts_and_modes(spark, keys, tmp_path, mode, in_prefix, out_prefix):
    old, new = keys
    src, truth, dst = str(tmp_path / "legacy"), str(tmp_path / "truth.parquet"), str(tmp_path / "new")
    job.generate(20000, src, truth, old, iv_prefix=in_prefix, files=3)
    lay = job.Layout("ct", None if in_prefix else "iv", "ct_aes", None if out_prefix else "iv_aes")
    job.reencrypt(spark, src, dst, old, new, mode, lay)
    _check(dst, truth, new, mode, prefix=out_prefix, sample=500)


def test_baseline_engine_gives_the_same_plaintexts(spark, keys, tmp_path):
    old, new = keys
    src, truth, dst = str(tmp_path / "legacy"), str(tmp_path / "truth.parquet"), str(tmp_path / "new")
    job.generate(5000, src, truth, old, files=2)
    job.reencrypt(spark, src, dst, old, new, "cbc", job.Layout("ct", "iv", "ct_aes", "iv_aes"), "cryptography")
    _check(dst, truth, new, "cbc", prefix=False, sample=200)


def _no_table(path):
    return not os.path.exists(os.path.join(path, "_SUCCESS")) and not glob.glob(os.path.join(path, "*.parquet"))


def test_wrong_key_length_fails_with_the_library_error(spark, keys, tmp_path):
    old, new = keys
    src, dst = str(tmp_path / "legacy"), str(tmp_path / "new")
    job.generate(1000, src, None, old, files=1)
    lay = job.Layout("ct", "iv", "ct_aes", "iv_aes")
    with pytest.raises(fastblock.InvalidKeyError, match="key length"):
        job.reencrypt(spark, src, dst, job.Secret(old.get()[:20]), new, "ctr", lay)
    with pytest.raises(fastblock.InvalidKeyError, match="key length"):
        job.reencrypt(spark, src, dst, old, job.Secret(new.get()[:16]), "ctr", lay)
    assert _no_table(dst)


def test_wrong_iv_length_fails_the_job_and_writes_no_table(spark, keys, tmp_path):
    old, new = keys
    src, dst = str(tmp_path / "legacy"), str(tmp_path / "new")
    job.generate(3000, src, None, old, files=1)
    t = pq.read_table(src)
    ivs = t.column("iv").to_pylist()
    ivs[1234] = ivs[1234][:7]
    t = t.set_column(t.schema.get_field_index("iv"), "iv", pa.array(ivs, pa.binary()))
    bad = str(tmp_path / "bad")
    os.makedirs(bad)
    pq.write_table(t, os.path.join(bad, "part-0.parquet"))
    with pytest.raises(Exception, match="IV missing or of the wrong length") as e:
        job.reencrypt(spark, bad, dst, old, new, "ctr", job.Layout("ct", "iv", "ct_aes", "iv_aes"))
    assert "record 1234" in str(e.value)
    assert _no_table(dst)


def _key_forms(key: bytes):
    h = key.hex()
    return [h, h.upper(), repr(key)[2:-1]]


def test_keys_stay_out_of_plan_output_and_logs(spark, keys, tmp_path):
    old, new = keys
    src, dst = str(tmp_path / "legacy"), str(tmp_path / "new")
    job.generate(2000, src, None, old, files=1)
    lay = job.Layout("ct", "iv", "ct_aes", "iv_aes")
    df = spark.read.parquet(src)
    schema = job._spark_schema(lay.out_schema(pa.schema([pa.field(f.name, job._arrow_type(f.dataType))
                                                         for f in df.schema])))
    out = df.mapInArrow(job.fastblock_batch(old, new, "ctr", lay), schema)
    plan = out._jdf.queryExecution().toString()
    for k in (old.get(), new.get()):
        for form in _key_forms(k):
            assert form not in plan
    assert "hidden" in repr(old) and old.get().hex() not in repr(old)
    # the command-line job: keys from files, nothing of them in its output or its table
    (tmp_path / "old.key").write_text(old.get().hex() + "\n")
    (tmp_path / "new.key").write_text(new.get().hex() + "\n")
    r = subprocess.run([sys.executable, EXAMPLE, "run", "--in", src, "--out", dst, "--old-key-file",
                        str(tmp_path / "old.key"), "--new-key-file", str(tmp_path / "new.key"), "--master", "local[1]"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    for k in (old.get(), new.get()):
        for form in _key_forms(k):
            assert form not in r.stdout and form not in r.stderr
        for f in glob.glob(os.path.join(dst, "*")):
            with open(f, "rb") as fh:
                data = fh.read()
            assert k not in data and k.hex().encode() not in data
    assert os.path.exists(os.path.join(dst, "_SUCCESS"))
