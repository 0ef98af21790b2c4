/*
 * _fastblock.c - the CPython extension behind the fastblock package.
 *
 * A thin layer over include/fastblock.h: one-shot calls, streaming
 * contexts, batches of independent messages (through fb_multi_crypt for
 * DES/3DES CBC, CFB and OFB), the catalogue and the DES key helpers.
 * Written against the full CPython C API (not the Limited API): the
 * one-shot path writes straight into a bytes object and trims it with
 * _PyBytes_Resize, which the Limited API lacks (it would cost a copy of
 * every padded decryption). See docs/python.md.
 *
 * The GIL is released for inputs of FBPY_NOGIL_MIN bytes or more. A
 * streaming context refuses a second caller while one runs without the
 * GIL (a "busy" flag, set and read under the GIL), so sharing a context
 * between threads raises instead of corrupting it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "fastblock.h"

/* Below this many bytes the GIL is kept: dropping and taking it back
 * costs about as much as encrypting a few hundred bytes. */
#define FBPY_NOGIL_MIN 2048

/* ---- Errors --------------------------------------------------------------- */

static PyObject *err_base;  /* fastblock.Error, set by _register_errors */
static PyObject *err_by_code; /* dict: int code -> subclass of Error */

/* Raises the exception class registered for the library's code rc, with
 * the library's message; where is an optional prefix ("record 3"). */
static PyObject *raise_fb(int rc, const char *where)
{
	PyObject *cls = NULL, *key = PyLong_FromLong(rc);
	if (!key)
		return NULL;
	if (err_by_code)
		cls = PyDict_GetItemWithError(err_by_code, key);
	Py_DECREF(key);
	if (!cls) {
		if (PyErr_Occurred())
			return NULL;
		cls = err_base ? err_base : PyExc_RuntimeError;
	}
	const char *msg = fb_strerror(rc);
	PyObject *exc = where ? PyObject_CallFunction(cls, "sis", msg, rc, where)
			      : PyObject_CallFunction(cls, "si", msg, rc);
	if (!exc)
		return NULL;
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

static PyObject *register_errors(PyObject *self, PyObject *args)
{
	PyObject *base, *map;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO!", &base, &PyDict_Type, &map))
		return NULL;
	Py_INCREF(base);
	Py_INCREF(map);
	Py_XSETREF(err_base, base);
	Py_XSETREF(err_by_code, map);
	Py_RETURN_NONE;
}

/* ---- Arguments -------------------------------------------------------------- */

/* A read-only view of a bytes-like object; bytes are read in place
 * without the buffer protocol (the common case, and the cheapest). */
typedef struct {
	const uint8_t *p;
	size_t n;
	int has_view;
	Py_buffer view;
} rbuf;

static int rbuf_get(PyObject *o, rbuf *b, const char *what)
{
	b->has_view = 0;
	if (PyBytes_CheckExact(o)) {
		b->p = (const uint8_t *)PyBytes_AS_STRING(o);
		b->n = (size_t)PyBytes_GET_SIZE(o);
		return 0;
	}
	if (PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a bytes-like object, not str", what);
		return -1;
	}
	if (PyObject_GetBuffer(o, &b->view, PyBUF_SIMPLE) < 0) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be a contiguous bytes-like object, not '%.100s'", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	b->has_view = 1;
	b->p = (const uint8_t *)b->view.buf;
	b->n = (size_t)b->view.len;
	return 0;
}

static void rbuf_release(rbuf *b)
{
	if (b->has_view) {
		PyBuffer_Release(&b->view);
		b->has_view = 0;
	}
}

/* Cipher names looked up once: str -> fb_cipher pointer (as an int). */
static PyObject *cipher_cache;

static const fb_cipher *cipher_arg(PyObject *name)
{
	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError, "cipher name must be str, not '%.100s'", Py_TYPE(name)->tp_name);
		return NULL;
	}
	PyObject *hit = PyDict_GetItemWithError(cipher_cache, name);
	if (hit)
		return (const fb_cipher *)PyLong_AsVoidPtr(hit);
	if (PyErr_Occurred())
		return NULL;
	const char *s = PyUnicode_AsUTF8(name);
	if (!s)
		return NULL;
	const fb_cipher *c = fb_cipher_by_name(s);
	if (!c) {
		raise_fb(FB_ERR_UNKNOWN_CIPHER, s);
		return NULL;
	}
	if (PyDict_GET_SIZE(cipher_cache) < 4096) {
		PyObject *v = PyLong_FromVoidPtr((void *)c);
		if (!v || PyDict_SetItem(cipher_cache, name, v) < 0) {
			Py_XDECREF(v);
			return NULL;
		}
		Py_DECREF(v);
	}
	return c;
}

static int flag_arg(PyObject *v, unsigned flag, fb_options *o)
{
	if (!v)
		return 0;
	int t = PyObject_IsTrue(v);
	if (t < 0)
		return -1;
	if (t)
		o->flags |= flag;
	return 0;
}

/* Options from Python values: padding None or "pkcs7" | "iso9797-2" |
 * "none" (and "default"), impl None or a name, three flags (threads may
 * be NULL: batches run record by record). The impl string lives as long
 * as the object it came from. */
static int options_arg(PyObject *padding, PyObject *impl, PyObject *ct, PyObject *strict, PyObject *threads,
		       fb_options *o)
{
	o->padding = FB_PAD_DEFAULT;
	o->flags = 0;
	o->impl = NULL;
	if (padding && padding != Py_None) {
		const char *p = PyUnicode_Check(padding) ? PyUnicode_AsUTF8(padding) : NULL;
		if (!p) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError, "padding must be a str or None");
			return -1;
		}
		if (!strcmp(p, "pkcs7"))
			o->padding = FB_PAD_PKCS7;
		else if (!strcmp(p, "iso9797-2"))
			o->padding = FB_PAD_ISO9797_M2;
		else if (!strcmp(p, "none"))
			o->padding = FB_PAD_NONE;
		else if (!strcmp(p, "default"))
			o->padding = FB_PAD_DEFAULT;
		else {
			PyErr_Format(PyExc_ValueError, "padding must be 'pkcs7', 'iso9797-2' or 'none', not '%s'", p);
			return -1;
		}
	}
	if (impl && impl != Py_None) {
		if (!PyUnicode_Check(impl)) {
			PyErr_SetString(PyExc_TypeError, "impl must be a str or None");
			return -1;
		}
		if (!(o->impl = PyUnicode_AsUTF8(impl)))
			return -1;
	}
	if (flag_arg(ct, FB_FLAG_CONSTANT_TIME, o) < 0 || flag_arg(strict, FB_FLAG_STRICT_KEYS, o) < 0 ||
	    flag_arg(threads, FB_FLAG_THREADS, o) < 0)
		return -1;
	return 0;
}

/* Vectorcall-style argument parsing: fills slots[0..nnames) from
 * positional arguments, then keywords; min positional required. */
static int parse_fast(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names,
		      Py_ssize_t nnames, Py_ssize_t npos_max, Py_ssize_t nreq, PyObject **slots, const char *fn)
{
	for (Py_ssize_t i = 0; i < nnames; i++)
		slots[i] = NULL;
	if (nargs > npos_max) {
		PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional arguments (%zd given)", fn,
			     npos_max, nargs);
		return -1;
	}
	for (Py_ssize_t i = 0; i < nargs; i++)
		slots[i] = args[i];
	Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	for (Py_ssize_t k = 0; k < nkw; k++) {
		PyObject *kn = PyTuple_GET_ITEM(kwnames, k);
		Py_ssize_t i = 0;
		for (; i < nnames; i++)
			if (PyUnicode_CompareWithASCIIString(kn, names[i]) == 0)
				break;
		if (i == nnames) {
			PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn, kn);
			return -1;
		}
		if (slots[i]) {
			PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn, names[i]);
			return -1;
		}
		slots[i] = args[nargs + k];
	}
	for (Py_ssize_t i = 0; i < nreq; i++)
		if (!slots[i]) {
			PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn, names[i]);
			return -1;
		}
	return 0;
}

/* ---- One-shot --------------------------------------------------------------- */

static const char *const oneshot_names[] = { "name", "key", "data", "iv", "padding", "impl", "constant_time",
					     "strict_keys", "threads" };

static PyObject *oneshot(enum fb_direction dir, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	PyObject *a[9];
	if (parse_fast(args, nargs, kwnames, oneshot_names, 9, 5, 3, a, dir == FB_ENCRYPT ? "encrypt" : "decrypt") < 0)
		return NULL;
	const fb_cipher *c = cipher_arg(a[0]);
	if (!c)
		return NULL;
	fb_options opt;
	if (options_arg(a[4], a[5], a[6], a[7], a[8], &opt) < 0)
		return NULL;
	rbuf key, data, iv = { NULL, 0, 0, { 0 } };
	if (rbuf_get(a[1], &key, "key") < 0)
		return NULL;
	if (rbuf_get(a[2], &data, "data") < 0) {
		rbuf_release(&key);
		return NULL;
	}
	if (a[3] && a[3] != Py_None && rbuf_get(a[3], &iv, "iv") < 0) {
		rbuf_release(&key);
		rbuf_release(&data);
		return NULL;
	}
	PyObject *out = NULL;
	size_t cap = fb_output_bound(c, dir, data.n), n = 0;
	if (cap > PY_SSIZE_T_MAX) {
		PyErr_NoMemory();
		goto done;
	}
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
	if (!out)
		goto done;
	uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
	int rc;
	if (data.n >= FBPY_NOGIL_MIN) {
		Py_BEGIN_ALLOW_THREADS
		rc = dir == FB_ENCRYPT ? fb_encrypt(c, key.p, key.n, iv.p, iv.n, data.p, data.n, o, cap, &n, &opt)
				       : fb_decrypt(c, key.p, key.n, iv.p, iv.n, data.p, data.n, o, cap, &n, &opt);
		Py_END_ALLOW_THREADS
	} else {
		rc = dir == FB_ENCRYPT ? fb_encrypt(c, key.p, key.n, iv.p, iv.n, data.p, data.n, o, cap, &n, &opt)
				       : fb_decrypt(c, key.p, key.n, iv.p, iv.n, data.p, data.n, o, cap, &n, &opt);
	}
	if (rc != FB_OK) {
		Py_CLEAR(out);
		raise_fb(rc, fb_cipher_name(c));
	} else if (n != cap && _PyBytes_Resize(&out, (Py_ssize_t)n) < 0) {
		out = NULL;
	}
done:
	rbuf_release(&key);
	rbuf_release(&data);
	rbuf_release(&iv);
	return out;
}

static PyObject *py_encrypt(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	(void)self;
	return oneshot(FB_ENCRYPT, args, nargs, kwnames);
}

static PyObject *py_decrypt(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	(void)self;
	return oneshot(FB_DECRYPT, args, nargs, kwnames);
}

/* ---- Streaming contexts ------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	fb_ctx *ctx;
	const fb_cipher *c;
	enum fb_direction dir;
	int finished; /* finalize ran (the library also refuses, with FB_ERR_STATE) */
	int busy;     /* a call runs without the GIL */
} StreamObject;

static PyTypeObject Stream_Type;

static void stream_dealloc(StreamObject *s)
{
	fb_ctx_free(s->ctx); /* wipes */
	PyObject_Free(s);
}

static int stream_enter(StreamObject *s)
{
	if (s->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"fastblock context used by two threads at once (use one context per thread or a lock)");
		return -1;
	}
	return 0;
}

/* Runs fb_update, without the GIL for long inputs. */
static int stream_run(StreamObject *s, uint8_t *out, size_t cap, size_t *n, const uint8_t *in, size_t len)
{
	int rc;
	if (len >= FBPY_NOGIL_MIN) {
		s->busy = 1;
		Py_BEGIN_ALLOW_THREADS
		rc = fb_update(s->ctx, out, cap, n, in, len);
		Py_END_ALLOW_THREADS
		s->busy = 0;
	} else {
		rc = fb_update(s->ctx, out, cap, n, in, len);
	}
	return rc;
}

static PyObject *stream_update(StreamObject *s, PyObject *data)
{
	if (stream_enter(s) < 0)
		return NULL;
	rbuf in;
	if (rbuf_get(data, &in, "data") < 0)
		return NULL;
	size_t cap = fb_output_bound(s->c, s->dir, in.n), n = 0;
	PyObject *out = cap <= PY_SSIZE_T_MAX ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap) : PyErr_NoMemory();
	if (out) {
		int rc = stream_run(s, (uint8_t *)PyBytes_AS_STRING(out), cap, &n, in.p, in.n);
		if (rc != FB_OK) {
			Py_CLEAR(out);
			raise_fb(rc, fb_cipher_name(s->c));
		} else if (n != cap && _PyBytes_Resize(&out, (Py_ssize_t)n) < 0) {
			out = NULL;
		}
	}
	rbuf_release(&in);
	return out;
}

static PyObject *stream_update_into(StreamObject *s, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 2) {
		PyErr_SetString(PyExc_TypeError, "update_into(data, out) takes 2 arguments");
		return NULL;
	}
	if (stream_enter(s) < 0)
		return NULL;
	Py_buffer ov;
	if (PyObject_GetBuffer(args[1], &ov, PyBUF_WRITABLE) < 0) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "out must be a writable contiguous buffer, not '%.100s'",
			     Py_TYPE(args[1])->tp_name);
		return NULL;
	}
	rbuf in;
	if (rbuf_get(args[0], &in, "data") < 0) {
		PyBuffer_Release(&ov);
		return NULL;
	}
	PyObject *res = NULL;
	size_t need = fb_output_bound(s->c, s->dir, in.n), n = 0;
	if ((size_t)ov.len < need) {
		PyErr_Format(PyExc_ValueError,
			     "out has %zd bytes; update_into needs at least %zu for %zu bytes of %s input "
			     "(the input length, plus %zu for ECB, CBC and XTS)",
			     ov.len, need, in.n, fb_cipher_name(s->c), need - in.n);
	} else {
		int rc = stream_run(s, (uint8_t *)ov.buf, (size_t)ov.len, &n, in.p, in.n);
		if (rc != FB_OK)
			raise_fb(rc, fb_cipher_name(s->c));
		else
			res = PyLong_FromSize_t(n);
	}
	rbuf_release(&in);
	PyBuffer_Release(&ov);
	return res;
}

static PyObject *stream_finalize(StreamObject *s, PyObject *unused)
{
	(void)unused;
	if (stream_enter(s) < 0)
		return NULL;
	uint8_t buf[64];
	size_t n = 0;
	int rc = fb_final(s->ctx, buf, sizeof buf, &n);
	s->finished = 1;
	if (rc != FB_OK)
		return raise_fb(rc, fb_cipher_name(s->c));
	PyObject *out = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)n);
	memset(buf, 0, sizeof buf);
	return out;
}

/* message(data, iv=None): one whole message under a new IV through this
 * keyed context (fb_message): no key setup, and the context stays ready. */
static PyObject *stream_message(StreamObject *s, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs < 1 || nargs > 2) {
		PyErr_SetString(PyExc_TypeError, "message(data, iv=None) takes 1 or 2 arguments");
		return NULL;
	}
	if (stream_enter(s) < 0)
		return NULL;
	rbuf in, iv = { 0 };
	if (rbuf_get(args[0], &in, "data") < 0)
		return NULL;
	if (nargs == 2 && args[1] != Py_None && rbuf_get(args[1], &iv, "iv") < 0) {
		rbuf_release(&in);
		return NULL;
	}
	size_t cap = fb_output_bound(s->c, s->dir, in.n), n = 0;
	PyObject *out = cap <= PY_SSIZE_T_MAX ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap) : PyErr_NoMemory();
	if (out) {
		uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
		int rc;
		if (in.n >= FBPY_NOGIL_MIN) {
			s->busy = 1;
			Py_BEGIN_ALLOW_THREADS
			rc = fb_message(s->ctx, iv.p, iv.n, in.p, in.n, o, cap, &n);
			Py_END_ALLOW_THREADS
			s->busy = 0;
		} else {
			rc = fb_message(s->ctx, iv.p, iv.n, in.p, in.n, o, cap, &n);
		}
		if (rc != FB_OK) {
			Py_CLEAR(out);
			raise_fb(rc, fb_cipher_name(s->c));
		} else if (n != cap && _PyBytes_Resize(&out, (Py_ssize_t)n) < 0) {
			out = NULL;
		}
	}
	if (nargs == 2 && args[1] != Py_None)
		rbuf_release(&iv);
	rbuf_release(&in);
	return out;
}

static PyObject *stream_get_impl(StreamObject *s, void *serial)
{
	const char *n = serial ? fb_ctx_serial_impl(s->ctx) : fb_ctx_impl(s->ctx);
	if (!n)
		Py_RETURN_NONE;
	return PyUnicode_FromString(n);
}

static PyObject *stream_get_constant_time(StreamObject *s, void *unused)
{
	(void)unused;
	int ct = fb_ctx_constant_time(s->ctx);
	if (ct < 0)
		Py_RETURN_NONE;
	return PyBool_FromLong(ct);
}

static PyObject *stream_get_name(StreamObject *s, void *unused)
{
	(void)unused;
	return PyUnicode_FromString(fb_cipher_name(s->c));
}

static PyObject *stream_get_finished(StreamObject *s, void *unused)
{
	(void)unused;
	return PyBool_FromLong(s->finished);
}

static PyMethodDef stream_methods[] = {
	{ "update", (PyCFunction)stream_update, METH_O,
	  "update(data) -> bytes\n\nProcesses data (any bytes-like object) and returns the output that is ready.\n"
	  "The concatenated outputs of any split of a message equal the one-shot result." },
	{ "update_into", (PyCFunction)(void (*)(void))stream_update_into, METH_FASTCALL,
	  "update_into(data, out) -> int\n\nLike update, writing into the writable buffer out, which must hold\n"
	  "len(data) bytes (CFB, CFB8, OFB, CTR) or len(data) + block size (ECB, CBC) or\n"
	  "len(data) + 2 blocks (XTS). out may start at data's first byte (in place).\n"
	  "Returns the number of bytes written." },
	{ "message", (PyCFunction)(void (*)(void))stream_message, METH_FASTCALL,
	  "message(data, iv=None) -> bytes\n\nA whole message under a new IV (XTS: tweak; None for ECB) through this\n"
	  "context's key, without key setup: the bytes encrypt()/decrypt() give. Any\n"
	  "stream in progress is dropped; the context stays ready for more messages." },
	{ "finalize", (PyCFunction)stream_finalize, METH_NOARGS,
	  "finalize() -> bytes\n\nEnds the message: padding (or its check), XTS ciphertext stealing.\n"
	  "The context is wiped afterwards, also on error; later calls raise StateError." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef stream_getset[] = {
	{ "impl", (getter)stream_get_impl, NULL, "implementation for parallel work (None once finalized)", NULL },
	{ "serial_impl", (getter)stream_get_impl, NULL, "implementation for serial chains (None once finalized)",
	  (void *)1 },
	{ "constant_time", (getter)stream_get_constant_time, NULL,
	  "True if every implementation this context may run (short runs included) is\n"
	  "constant-time, False if not (None once finalized)", NULL },
	{ "name", (getter)stream_get_name, NULL, "the cipher's name", NULL },
	{ "finished", (getter)stream_get_finished, NULL, "True once finalize() ran", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject Stream_Type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fastblock.CipherContext",
	.tp_basicsize = sizeof(StreamObject),
	.tp_dealloc = (destructor)stream_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A streaming encryption or decryption context (from Cipher.encryptor() or .decryptor()).\n"
		  "Not for use by two threads at once.",
	.tp_methods = stream_methods,
	.tp_getset = stream_getset,
};

/* _stream(name, encrypt, key, iv, padding, impl, constant_time, strict_keys, threads) */
static PyObject *py_stream(PyObject *self, PyObject *args)
{
	PyObject *name, *key, *iv, *padding, *impl, *ct, *strict, *threads;
	int enc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OpOOOOOOO", &name, &enc, &key, &iv, &padding, &impl, &ct, &strict, &threads))
		return NULL;
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	fb_options opt;
	if (options_arg(padding, impl, ct, strict, threads, &opt) < 0)
		return NULL;
	rbuf k, v = { NULL, 0, 0, { 0 } };
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	if (iv != Py_None && rbuf_get(iv, &v, "iv") < 0) {
		rbuf_release(&k);
		return NULL;
	}
	StreamObject *s = PyObject_New(StreamObject, &Stream_Type);
	if (s) {
		s->c = c;
		s->dir = enc ? FB_ENCRYPT : FB_DECRYPT;
		s->finished = 0;
		s->busy = 0;
		s->ctx = fb_ctx_new_for(c, s->dir, &opt);
		if (!s->ctx && !fb_ctx_size(c, s->dir, &opt))
			s->ctx = fb_ctx_new(); /* options it cannot serve: fb_init names the refusal */
		if (!s->ctx) {
			Py_CLEAR(s);
			PyErr_NoMemory();
		} else {
			int rc = fb_init(s->ctx, c, s->dir, k.p, k.n, v.p, v.n, &opt);
			if (rc != FB_OK) {
				Py_CLEAR(s);
				raise_fb(rc, fb_cipher_name(c));
			}
		}
	}
	rbuf_release(&k);
	rbuf_release(&v);
	return (PyObject *)s;
}

/* ---- Batches ------------------------------------------------------------------ */

/* One batch: n messages, each with its key and IV (pointers may repeat). */
typedef struct {
	const fb_cipher *c;
	enum fb_direction dir;
	fb_options opt;
	size_t n;
	const uint8_t **in;
	size_t *in_len;
	const uint8_t **key;
	size_t *key_len;
	const uint8_t **iv;
	size_t *iv_len;
	uint8_t **out;   /* room for out_cap[i] */
	size_t *out_cap;
	size_t *out_len; /* result */
	size_t bad;      /* the record an error is about */
	const fb_cipher *ecb; /* the ECB name of the same cipher and key size, or NULL */
} batch_job;

/* Output room for one record: the one-shot bound. */
static size_t batch_cap(const fb_cipher *c, enum fb_direction dir, size_t len)
{
	return fb_output_bound(c, dir, len);
}

static int multi_ok(const batch_job *j)
{
	if (strcmp(fb_cipher_family(j->c), "des"))
		return 0;
	enum fb_mode m = fb_cipher_mode(j->c);
	return m == FB_CBC || m == FB_CFB || m == FB_OFB;
}

/* PKCS#7 / ISO 9797-1 M2 on the last block of a record; the check runs
 * in constant time in the block's bytes. Returns the unpadded length or
 * -1. */
static long unpad_block(enum fb_padding p, const uint8_t *b, unsigned bs)
{
	unsigned bad = 0;
	if (p == FB_PAD_ISO9797_M2) {
		unsigned seen = 0, pos = 0, mark = 0;
		for (unsigned i = bs; i-- > 0;) {
			unsigned nz = b[i] != 0, first = nz & (seen ^ 1u);
			pos |= i & (0u - first);
			mark |= b[i] & (0u - first);
			seen |= nz;
		}
		bad = (seen ^ 1u) | (mark != 0x80);
		return bad ? -1 : (long)pos;
	}
	unsigned pad = b[bs - 1];
	bad |= pad == 0;
	bad |= pad > bs;
	for (unsigned i = 0; i < bs; i++) {
		unsigned in_pad = (unsigned)(i + pad >= bs);
		bad |= in_pad & (b[i] != pad);
	}
	return bad ? -1 : (long)(bs - pad);
}

/* A record's plaintext copied to out with CBC encryption's padding added
 * (none: len, a multiple of bs); returns the padded length. */
static size_t pad_record(uint8_t *out, const uint8_t *in, size_t len, size_t bs, enum fb_padding pad)
{
	if (len)
		memcpy(out, in, len);
	if (pad == FB_PAD_NONE)
		return len;
	size_t full = len - len % bs;
	unsigned used = (unsigned)(len - full);
	uint8_t *b = out + full;
	if (pad == FB_PAD_ISO9797_M2) {
		b[used] = 0x80;
		memset(b + used + 1, 0, bs - used - 1);
	} else {
		memset(b + used, (int)(bs - used), bs - used);
	}
	return full + bs;
}

/* Many DES/3DES CBC, CFB or OFB messages through fb_multi_crypt; the
 * padding of CBC is added and checked here (the multi-stream call does
 * none). */
static int batch_multi(batch_job *j)
{
	size_t n = j->n, kl = fb_cipher_key_len(j->c);
	enum fb_mode mode = fb_cipher_mode(j->c);
	enum fb_padding pad = j->opt.padding;
	if (mode != FB_CBC && pad != FB_PAD_DEFAULT && pad != FB_PAD_NONE)
		return FB_ERR_PADDING_MODE;
	if (mode == FB_CBC && pad == FB_PAD_DEFAULT)
		pad = FB_PAD_PKCS7;
	for (size_t i = 0; i < n; i++) {
		j->bad = i;
		if (j->key_len[i] != kl)
			return FB_ERR_KEY_LENGTH;
		if (!j->iv[i] || j->iv_len[i] != 8)
			return FB_ERR_IV_LENGTH;
		if (mode == FB_CBC && (j->dir == FB_DECRYPT || pad == FB_PAD_NONE) && j->in_len[i] % 8)
			return FB_ERR_DATA_LENGTH;
		if (mode == FB_CBC && j->dir == FB_DECRYPT && pad != FB_PAD_NONE && !j->in_len[i])
			return FB_ERR_DATA_LENGTH;
	}
	j->bad = SIZE_MAX;
	/* scratch: n IVs (updated by the call), n lengths, n input pointers */
	uint8_t *ivs = PyMem_RawMalloc(n * 8 + 1);
	uint8_t **ivp = PyMem_RawMalloc(n * sizeof *ivp + 1);
	size_t *len = PyMem_RawMalloc(n * sizeof *len + 1);
	const uint8_t **in = PyMem_RawMalloc(n * sizeof *in + 1);
	int rc = FB_OK;
	if (!ivs || !ivp || !len || !in) {
		rc = FB_ERR_ARGUMENT;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(ivs + 8 * i, j->iv[i], 8);
		ivp[i] = ivs + 8 * i;
		len[i] = j->in_len[i];
		in[i] = j->in[i];
		if (mode == FB_CBC && j->dir == FB_ENCRYPT && pad != FB_PAD_NONE) {
			/* the padded message in the output, encrypted in place */
			len[i] = pad_record(j->out[i], j->in[i], j->in_len[i], 8, pad);
			in[i] = j->out[i];
		}
	}
	fb_options o = j->opt;
	o.padding = FB_PAD_NONE;
	rc = fb_multi_crypt(j->c, mode, j->dir, n, j->key, ivp, in, j->out, len, &o);
	if (rc != FB_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		j->out_len[i] = len[i];
		if (mode == FB_CBC && j->dir == FB_DECRYPT && pad != FB_PAD_NONE) {
			long u = unpad_block(pad, j->out[i] + len[i] - 8, 8);
			if (u < 0) {
				j->bad = i;
				rc = FB_ERR_BAD_PADDING;
				goto out;
			}
			j->out_len[i] = len[i] - 8 + (size_t)u;
		}
	}
out:
	if (ivs) {
		memset(ivs, 0, n * 8);
		PyMem_RawFree(ivs);
	}
	PyMem_RawFree(ivp);
	PyMem_RawFree(len);
	PyMem_RawFree(in);
	return rc;
}

static int batch_loop(batch_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		int rc = j->dir == FB_ENCRYPT ? fb_encrypt(j->c, j->key[i], j->key_len[i], j->iv[i], j->iv_len[i], j->in[i],
							   j->in_len[i], j->out[i], j->out_cap[i], &j->out_len[i], &j->opt)
					      : fb_decrypt(j->c, j->key[i], j->key_len[i], j->iv[i], j->iv_len[i], j->in[i],
							   j->in_len[i], j->out[i], j->out_cap[i], &j->out_len[i], &j->opt);
		if (rc != FB_OK) {
			j->bad = i;
			return rc;
		}
	}
	return FB_OK;
}

/* Records that neither DES's multi-stream engine nor the one-ECB-call CBC
 * decryption takes: each a message under its IV (fb_message) on one
 * context, keyed again (fb_init) only where a record's key differs from
 * the one before. A batch under one key pays one key schedule, and one
 * with a key per record a re-key each, where a one-shot call per record
 * also planned and laid out a context (a 64-byte AES-128-CBC record with
 * PKCS#7: ~460 instructions under one key, ~1,500 one-shot). The same
 * bytes and errors as fb_encrypt or fb_decrypt record by record; without
 * memory for the context, that is how they run. */
/* A context for c: sized for its key length; a name of any key length
 * ("rc6-cbc") gets the largest. */
static fb_ctx *batch_ctx_new(const fb_cipher *c, enum fb_direction dir, const fb_options *o)
{
	return fb_cipher_key_len(c) ? fb_ctx_new_for(c, dir, o) : fb_ctx_new();
}

static int batch_messages(batch_job *j)
{
	fb_ctx *ctx = batch_ctx_new(j->c, j->dir, &j->opt);
	if (!ctx)
		return batch_loop(j);
	const uint8_t *keyed = NULL; /* the key the context holds */
	size_t keyed_len = 0;
	int rc = FB_OK;
	for (size_t i = 0; rc == FB_OK && i < j->n; i++) {
		j->bad = i;
		if (!keyed || j->key_len[i] != keyed_len ||
		    (j->key[i] != keyed && memcmp(j->key[i], keyed, keyed_len))) {
			keyed = NULL;
			rc = fb_init(ctx, j->c, j->dir, j->key[i], j->key_len[i], j->iv[i], j->iv_len[i], &j->opt);
			if (rc != FB_OK)
				break;
			keyed = j->key[i];
			keyed_len = j->key_len[i];
		}
		rc = fb_message(ctx, j->iv[i], j->iv_len[i], j->in[i], j->in_len[i], j->out[i], j->out_cap[i],
				&j->out_len[i]);
	}
	if (rc == FB_OK)
		j->bad = SIZE_MAX;
	fb_ctx_free(ctx);
	return rc;
}

/* One 8- or 16-byte block: fixed-size moves (a variable-length memcpy is
 * a call, a byte loop sixteen steps). */
static inline void copy_block(uint8_t *d, const uint8_t *s, size_t bs)
{
	if (bs == 16)
		memcpy(d, s, 16);
	else
		memcpy(d, s, 8);
}

static inline void xor_block(uint8_t *d, const uint8_t *a, const uint8_t *b, size_t bs)
{
	typedef uint64_t v2 __attribute__((vector_size(16)));
	if (bs == 16) {
		v2 x, y;
		memcpy(&x, a, 16);
		memcpy(&y, b, 16);
		x ^= y;
		memcpy(d, &x, 16);
	} else {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		x ^= y;
		memcpy(d, &x, 8);
	}
}

/* CBC encryption under one key in lock-step pays from this many records,
 * for records of at most CBC_STEP_BYTES (longer ones would make many
 * steps of few blocks). */
#define CBC_STEP_RECORDS 8
#define CBC_STEP_BYTES 4096
/* Records at a time: a step's blocks (4 KB of AES) and the tile's outputs
 * stay in the caches between steps; all records at once, the steps'
 * strided visits of every output missed them. */
#define CBC_STEP_TILE 256

/* The lock-step over records act[0..na) whose padded plaintext is in
 * their outputs: step k gathers block k of each, XORed with its chaining
 * value, encrypts them in one ECB update on ctx and puts them back;
 * records drop out as they end. */
static int cbc_steps(batch_job *j, fb_ctx *ctx, uint8_t *buf, size_t *act, size_t na, size_t bs)
{
	int rc = FB_OK;
	for (size_t off = 0; !rc && na; off += bs) {
		for (size_t a = 0; a < na; a++) {
			const uint8_t *p = j->out[act[a]] + off, *prev = off ? p - bs : j->iv[act[a]];
			xor_block(buf + a * bs, p, prev, bs);
		}
		size_t got = 0, keep = 0;
		rc = fb_update(ctx, buf, na * bs, &got, buf, na * bs);
		for (size_t a = 0; !rc && a < na; a++) {
			copy_block(j->out[act[a]] + off, buf + a * bs, bs);
			if (j->out_len[act[a]] > off + bs)
				act[keep++] = act[a];
		}
		na = keep;
	}
	return rc;
}

/* CBC encryption of many records under one key, in lock-step: block k of a
 * record depends only on its block k-1, so step k encrypts block k of every
 * record that has one in one ECB call (one key schedule, the widest
 * kernel), where record by record each block waits for the one before (a
 * serial chain: AES-NI's round latency, Serpent's one-block code). The
 * padded plaintext goes to the outputs first; a step gathers its blocks,
 * each XORed with its chaining value, encrypts them and puts them back.
 * Record 0's key and IV are checked by a CBC fb_init first, so that the
 * errors and the record they name are those of per-record calls. */
static int batch_cbc_encrypt_one_key(batch_job *j, const fb_cipher *ecb)
{
	size_t n = j->n, bs = fb_cipher_block_size(j->c);
	enum fb_padding pad = j->opt.padding == FB_PAD_DEFAULT ? FB_PAD_PKCS7 : j->opt.padding;
	fb_options o = j->opt;
	o.padding = FB_PAD_NONE;
	fb_ctx *chk = batch_ctx_new(j->c, FB_ENCRYPT, &j->opt), *ctx = batch_ctx_new(ecb, FB_ENCRYPT, &o);
	uint8_t *buf = PyMem_RawMalloc(CBC_STEP_TILE * bs);
	size_t *act = PyMem_RawMalloc(CBC_STEP_TILE * sizeof *act);
	if (!chk || !ctx || !buf || !act) {
		fb_ctx_free(chk);
		fb_ctx_free(ctx);
		PyMem_RawFree(buf);
		PyMem_RawFree(act);
		return batch_messages(j);
	}
	j->bad = 0;
	int rc = fb_init(chk, j->c, FB_ENCRYPT, j->key[0], j->key_len[0], j->iv[0], j->iv_len[0], &j->opt);
	fb_ctx_free(chk);
	for (size_t i = 0; !rc && i < n; i++) {
		j->bad = i;
		if (!j->iv[i] || j->iv_len[i] != bs)
			rc = FB_ERR_IV_LENGTH;
		else if (pad == FB_PAD_NONE && j->in_len[i] % bs)
			rc = FB_ERR_DATA_LENGTH;
	}
	if (!rc) {
		j->bad = SIZE_MAX;
		rc = fb_init(ctx, ecb, FB_ENCRYPT, j->key[0], j->key_len[0], NULL, 0, &o);
	}
	for (size_t t = 0; !rc && t < n; t += CBC_STEP_TILE) {
		size_t na = 0, end = n - t < CBC_STEP_TILE ? n : t + CBC_STEP_TILE;
		for (size_t i = t; i < end; i++)
			if ((j->out_len[i] = pad_record(j->out[i], j->in[i], j->in_len[i], bs, pad)))
				act[na++] = i;
		rc = cbc_steps(j, ctx, buf, act, na, bs);
	}
	memset(buf, 0, CBC_STEP_TILE * bs);
	PyMem_RawFree(buf);
	PyMem_RawFree(act);
	fb_ctx_free(ctx);
	return rc;
}

/* CBC decryption of many records under one key: P_j = D(C_j) xor C_(j-1)
 * (C_(-1) = the record's IV), so every block of every record goes through
 * one ECB call, keyed once and run by the widest kernel, and the chaining
 * is an xor per block here. This is what a column of records under one key
 * needs: a key schedule and a context per record would cost more than the
 * decryption of a short record. */
static int batch_cbc_decrypt_one_key(batch_job *j, const fb_cipher *ecb)
{
	size_t n = j->n, bs = fb_cipher_block_size(j->c), total = 0;
	enum fb_padding pad = j->opt.padding == FB_PAD_DEFAULT ? FB_PAD_PKCS7 : j->opt.padding;
	for (size_t i = 0; i < n; i++) {
		j->bad = i;
		if (!j->iv[i] || j->iv_len[i] != bs)
			return FB_ERR_IV_LENGTH;
		if (j->in_len[i] % bs || (pad != FB_PAD_NONE && !j->in_len[i]))
			return FB_ERR_DATA_LENGTH;
		total += j->in_len[i];
	}
	j->bad = SIZE_MAX;
	uint8_t *buf = PyMem_RawMalloc(total + 1);
	if (!buf)
		return FB_ERR_ARGUMENT;
	for (size_t i = 0, at = 0; i < n; i++) {
		if (j->in_len[i])
			memcpy(buf + at, j->in[i], j->in_len[i]);
		at += j->in_len[i];
	}
	fb_options o = j->opt;
	o.padding = FB_PAD_NONE;
	size_t got = 0;
	int rc = fb_decrypt(ecb, j->key[0], j->key_len[0], NULL, 0, buf, total, buf, total, &got, &o);
	for (size_t i = 0, at = 0; rc == FB_OK && i < n; i++) {
		const uint8_t *prev = j->iv[i], *c = j->in[i];
		uint8_t *out = j->out[i];
		size_t len = j->in_len[i];
		for (size_t b = 0; b < len; b += bs) {
			xor_block(out + b, buf + at + b, prev, bs);
			prev = c + b;
		}
		at += len;
		j->out_len[i] = len;
		if (pad != FB_PAD_NONE) {
			long u = unpad_block(pad, out + len - bs, (unsigned)bs);
			if (u < 0) {
				j->bad = i;
				rc = FB_ERR_BAD_PADDING;
				break;
			}
			j->out_len[i] = len - bs + (size_t)u;
		}
	}
	memset(buf, 0, total);
	PyMem_RawFree(buf);
	return rc;
}

static int one_key(const batch_job *j)
{
	for (size_t i = 1; i < j->n; i++)
		if (j->key_len[i] != j->key_len[0] || (j->key[i] != j->key[0] && memcmp(j->key[i], j->key[0], j->key_len[0])))
			return 0;
	return 1;
}

/* 1 if CBC encryption of j goes in lock-step (batch_cbc_encrypt_one_key). */
static int cbc_steps_pay(const batch_job *j)
{
	if (j->n < CBC_STEP_RECORDS)
		return 0;
	for (size_t i = 0; i < j->n; i++)
		if (j->in_len[i] > CBC_STEP_BYTES)
			return 0;
	return 1;
}

static int batch_run(batch_job *j)
{
	j->bad = SIZE_MAX;
	if (j->ecb && j->n && fb_cipher_mode(j->c) == FB_CBC && j->dir == FB_DECRYPT && one_key(j))
		return batch_cbc_decrypt_one_key(j, j->ecb);
	if (j->ecb && !multi_ok(j) && fb_cipher_mode(j->c) == FB_CBC && cbc_steps_pay(j) && one_key(j))
		return batch_cbc_encrypt_one_key(j, j->ecb);
	return multi_ok(j) ? batch_multi(j) : batch_messages(j);
}

/* Per-record arguments: one bytes-like for all records, or a sequence of
 * n (None entries allowed for IVs, meaning no IV). Fills ptr/len and
 * keeps views in views (count in *nviews). */
typedef struct {
	Py_buffer *views;
	size_t nviews, cap;
} view_list;

static int views_add(view_list *vl, PyObject *o, const uint8_t **p, size_t *n, const char *what)
{
	if (PyBytes_CheckExact(o)) {
		*p = (const uint8_t *)PyBytes_AS_STRING(o);
		*n = (size_t)PyBytes_GET_SIZE(o);
		return 0;
	}
	if (vl->nviews == vl->cap) {
		size_t nc = vl->cap ? 2 * vl->cap : 16;
		Py_buffer *v = PyMem_Realloc(vl->views, nc * sizeof *v);
		if (!v) {
			PyErr_NoMemory();
			return -1;
		}
		vl->views = v;
		vl->cap = nc;
	}
	if (PyUnicode_Check(o) || PyObject_GetBuffer(o, &vl->views[vl->nviews], PyBUF_SIMPLE) < 0) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be bytes-like objects, not '%.100s'", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	*p = (const uint8_t *)vl->views[vl->nviews].buf;
	*n = (size_t)vl->views[vl->nviews].len;
	vl->nviews++;
	return 0;
}

static void views_release(view_list *vl)
{
	for (size_t i = 0; i < vl->nviews; i++)
		PyBuffer_Release(&vl->views[i]);
	PyMem_Free(vl->views);
	vl->views = NULL;
	vl->nviews = vl->cap = 0;
}

/* keys, ivs: a single bytes-like object, or a sequence of n. Returns a
 * tuple holding references (or NULL with an exception). */
static int per_record(view_list *vl, PyObject *arg, size_t n, const uint8_t **p, size_t *len, PyObject **hold,
		      int none_ok, const char *what)
{
	*hold = NULL;
	if (arg == Py_None) {
		if (!none_ok) {
			PyErr_Format(PyExc_TypeError, "%s must not be None", what);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			p[i] = NULL, len[i] = 0;
		return 0;
	}
	if (PyBytes_Check(arg) || PyByteArray_Check(arg) || PyMemoryView_Check(arg) || PyObject_CheckBuffer(arg)) {
		const uint8_t *q;
		size_t l;
		if (views_add(vl, arg, &q, &l, what) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			p[i] = q, len[i] = l;
		return 0;
	}
	PyObject *t = PySequence_Tuple(arg);
	if (!t) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be a bytes-like object or a sequence of them", what);
		return -1;
	}
	*hold = t;
	if ((size_t)PyTuple_GET_SIZE(t) != n) {
		PyErr_Format(PyExc_ValueError, "%s: %zd given for %zu records", what, PyTuple_GET_SIZE(t), n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		PyObject *o = PyTuple_GET_ITEM(t, (Py_ssize_t)i);
		if (o == Py_None && none_ok) {
			p[i] = NULL, len[i] = 0;
			continue;
		}
		if (views_add(vl, o, &p[i], &len[i], what) < 0)
			return -1;
	}
	return 0;
}

/* ivs as one buffer of n IVs of stride bytes each, back to back (an Arrow
 * FixedSizeBinary array's values, read in place). */
static int flat_ivs(view_list *vl, PyObject *arg, size_t n, size_t stride, const uint8_t **p, size_t *len)
{
	const uint8_t *q;
	size_t l;
	if (views_add(vl, arg, &q, &l, "ivs") < 0)
		return -1;
	if (stride > 64 || l != n * stride) {
		PyErr_Format(PyExc_ValueError, "ivs: %zu bytes are not %zu IVs of %zu bytes", l, n, stride);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = q + i * stride, len[i] = stride;
	return 0;
}

/* Raises the batch's error, naming the record. */
static PyObject *raise_batch(int rc, const batch_job *j)
{
	char where[96];
	if (j->bad != SIZE_MAX)
		snprintf(where, sizeof where, "%s, record %zu", fb_cipher_name(j->c), j->bad);
	else
		snprintf(where, sizeof where, "%s", fb_cipher_name(j->c));
	return raise_fb(rc, where);
}

typedef struct {
	batch_job j;
	view_list vl;
	PyObject *hold[3];
	void *mem;
} batch_args;

static void batch_args_free(batch_args *b)
{
	views_release(&b->vl);
	for (int i = 0; i < 3; i++)
		Py_XDECREF(b->hold[i]);
	PyMem_Free(b->mem);
}

/* Sets up everything but the inputs and outputs. */
static int batch_setup(batch_args *b, PyObject *name, int enc, size_t n, PyObject *keys, PyObject *ivs,
		       Py_ssize_t iv_stride, PyObject *padding, PyObject *impl, PyObject *ct, PyObject *strict)
{
	memset(b, 0, sizeof *b);
	batch_job *j = &b->j;
	if (!(j->c = cipher_arg(name)))
		return -1;
	j->dir = enc ? FB_ENCRYPT : FB_DECRYPT;
	j->ecb = NULL;
	if (fb_cipher_mode(j->c) == FB_CBC) {
		char ecb[64];
		const char *nm = fb_cipher_name(j->c);
		size_t l = strlen(nm);
		if (l > 4 && l < sizeof ecb && !strcmp(nm + l - 4, "-cbc")) {
			memcpy(ecb, nm, l - 4);
			memcpy(ecb + l - 4, "-ecb", 5);
			j->ecb = fb_cipher_by_name(ecb);
		}
	}
	if (options_arg(padding, impl, ct, strict, NULL, &j->opt) < 0)
		return -1;
	j->n = n;
	size_t per = 4 * sizeof(void *) + 5 * sizeof(size_t);
	if (n > (SIZE_MAX - 64) / per) {
		PyErr_NoMemory();
		return -1;
	}
	char *m = PyMem_Malloc(n * per + 64);
	if (!m) {
		PyErr_NoMemory();
		return -1;
	}
	b->mem = m;
	j->in = (const uint8_t **)(void *)m;
	j->key = j->in + n;
	j->iv = j->key + n;
	j->out = (uint8_t **)(void *)(j->iv + n);
	j->in_len = (size_t *)(void *)(j->out + n);
	j->key_len = j->in_len + n;
	j->iv_len = j->key_len + n;
	j->out_cap = j->iv_len + n;
	j->out_len = j->out_cap + n;
	if (per_record(&b->vl, keys, n, j->key, j->key_len, &b->hold[1], 0, "keys") < 0)
		return -1;
	if (iv_stride > 0)
		return flat_ivs(&b->vl, ivs, n, (size_t)iv_stride, j->iv, j->iv_len);
	if (per_record(&b->vl, ivs, n, j->iv, j->iv_len, &b->hold[2], 1, "ivs") < 0)
		return -1;
	return 0;
}

static int batch_exec(batch_args *b)
{
	size_t total = 0;
	for (size_t i = 0; i < b->j.n; i++)
		total += b->j.in_len[i];
	int rc;
	if (total >= FBPY_NOGIL_MIN) {
		Py_BEGIN_ALLOW_THREADS
		rc = batch_run(&b->j);
		Py_END_ALLOW_THREADS
	} else {
		rc = batch_run(&b->j);
	}
	return rc;
}

/* _batch(name, encrypt, keys, records, ivs, iv_stride, padding, impl, constant_time, strict_keys)
 *   -> list of bytes. iv_stride > 0: ivs is one buffer of n IVs of that many bytes. */
static PyObject *py_batch(PyObject *self, PyObject *args)
{
	PyObject *name, *keys, *records, *ivs, *padding, *impl, *ct, *strict;
	Py_ssize_t iv_stride;
	int enc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OpOOOnOOOO", &name, &enc, &keys, &records, &ivs, &iv_stride, &padding, &impl, &ct,
			      &strict))
		return NULL;
	if (PyBytes_Check(records) || PyByteArray_Check(records) || PyUnicode_Check(records)) {
		PyErr_SetString(PyExc_TypeError, "records must be a sequence of bytes-like objects, not one");
		return NULL;
	}
	PyObject *recs = PySequence_Tuple(records);
	if (!recs)
		return NULL;
	size_t n = (size_t)PyTuple_GET_SIZE(recs);
	batch_args b;
	PyObject *result = NULL, **outs = NULL;
	if (batch_setup(&b, name, enc, n, keys, ivs, iv_stride, padding, impl, ct, strict) < 0)
		goto done;
	batch_job *j = &b.j;
	for (size_t i = 0; i < n; i++)
		if (views_add(&b.vl, PyTuple_GET_ITEM(recs, (Py_ssize_t)i), &j->in[i], &j->in_len[i], "records") < 0)
			goto done;
	outs = PyMem_Calloc(n + 1, sizeof *outs);
	if (!outs) {
		PyErr_NoMemory();
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		j->out_cap[i] = batch_cap(j->c, j->dir, j->in_len[i]);
		if (!(outs[i] = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)j->out_cap[i])))
			goto done;
		j->out[i] = (uint8_t *)PyBytes_AS_STRING(outs[i]);
		j->out_len[i] = 0;
	}
	int rc = batch_exec(&b);
	if (rc != FB_OK) {
		raise_batch(rc, j);
		goto done;
	}
	if (!(result = PyList_New((Py_ssize_t)n)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		if (j->out_len[i] != j->out_cap[i] && _PyBytes_Resize(&outs[i], (Py_ssize_t)j->out_len[i]) < 0) {
			outs[i] = NULL;
			Py_CLEAR(result);
			goto done;
		}
		PyList_SET_ITEM(result, (Py_ssize_t)i, outs[i]);
		outs[i] = NULL;
	}
done:
	if (outs) {
		for (size_t i = 0; i < n; i++)
			Py_XDECREF(outs[i]);
		PyMem_Free(outs);
	}
	batch_args_free(&b);
	Py_DECREF(recs);
	return result;
}

/* _batch_flat(name, encrypt, keys, data, offsets, offset_width, n, ivs, iv_stride, padding, impl, ct, strict)
 *   -> (bytes data, bytes offsets)
 * The records are data[offsets[i]:offsets[i+1]] (an Arrow Binary or
 * LargeBinary array's buffers, read in place); the result is laid out
 * the same way with offsets of the same width, starting at 0. */
static PyObject *py_batch_flat(PyObject *self, PyObject *args)
{
	PyObject *name, *keys, *data, *offsets, *ivs, *padding, *impl, *ct, *strict;
	int enc, width;
	Py_ssize_t nrec, iv_stride;
	(void)self;
	if (!PyArg_ParseTuple(args, "OpOOOinOnOOOO", &name, &enc, &keys, &data, &offsets, &width, &nrec, &ivs,
			      &iv_stride, &padding, &impl, &ct, &strict))
		return NULL;
	if ((width != 4 && width != 8) || nrec < 0) {
		PyErr_SetString(PyExc_ValueError, "offset width must be 4 or 8 and the count not negative");
		return NULL;
	}
	size_t n = (size_t)nrec;
	rbuf db, ob;
	if (rbuf_get(data, &db, "data") < 0)
		return NULL;
	if (rbuf_get(offsets, &ob, "offsets") < 0) {
		rbuf_release(&db);
		return NULL;
	}
	batch_args b;
	PyObject *result = NULL, *odata = NULL, *ooffs = NULL;
	if (batch_setup(&b, name, enc, n, keys, ivs, iv_stride, padding, impl, ct, strict) < 0)
		goto done;
	batch_job *j = &b.j;
	if (ob.n < (n + 1) * (size_t)width) {
		PyErr_SetString(PyExc_ValueError, "offsets buffer too short");
		goto done;
	}
	size_t total_cap = 0;
	for (size_t i = 0; i <= n; i++) {
		uint64_t a, z;
		if (i == n)
			break;
		if (width == 4) {
			int32_t a4, z4;
			memcpy(&a4, ob.p + 4 * i, 4);
			memcpy(&z4, ob.p + 4 * (i + 1), 4);
			if (a4 < 0 || z4 < a4) {
				PyErr_SetString(PyExc_ValueError, "offsets not ascending");
				goto done;
			}
			a = (uint64_t)a4, z = (uint64_t)z4;
		} else {
			int64_t a8, z8;
			memcpy(&a8, ob.p + 8 * i, 8);
			memcpy(&z8, ob.p + 8 * (i + 1), 8);
			if (a8 < 0 || z8 < a8) {
				PyErr_SetString(PyExc_ValueError, "offsets not ascending");
				goto done;
			}
			a = (uint64_t)a8, z = (uint64_t)z8;
		}
		if (z > db.n) {
			PyErr_SetString(PyExc_ValueError, "offsets beyond the data buffer");
			goto done;
		}
		j->in[i] = db.p + a;
		j->in_len[i] = (size_t)(z - a);
		j->out_cap[i] = batch_cap(j->c, j->dir, j->in_len[i]);
		total_cap += j->out_cap[i];
	}
	if (width == 4 && total_cap > INT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "output exceeds 2 GiB: use a LargeBinary array");
		goto done;
	}
	if (!(odata = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total_cap)) ||
	    !(ooffs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((n + 1) * (size_t)width))))
		goto done;
	uint8_t *o = (uint8_t *)PyBytes_AS_STRING(odata);
	for (size_t i = 0, at = 0; i < n; i++) {
		j->out[i] = o + at;
		at += j->out_cap[i];
	}
	int rc = batch_exec(&b);
	if (rc != FB_OK) {
		raise_batch(rc, j);
		goto done;
	}
	/* close the gaps that shorter outputs (padded decryption) left */
	uint8_t *offs = (uint8_t *)PyBytes_AS_STRING(ooffs);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		if (width == 4) {
			int32_t v = (int32_t)at;
			memcpy(offs + 4 * i, &v, 4);
		} else {
			int64_t v = (int64_t)at;
			memcpy(offs + 8 * i, &v, 8);
		}
		if (j->out[i] != o + at)
			memmove(o + at, j->out[i], j->out_len[i]);
		at += j->out_len[i];
	}
	if (width == 4) {
		int32_t v = (int32_t)at;
		memcpy(offs + 4 * n, &v, 4);
	} else {
		int64_t v = (int64_t)at;
		memcpy(offs + 8 * n, &v, 8);
	}
	if (at != total_cap && _PyBytes_Resize(&odata, (Py_ssize_t)at) < 0) {
		odata = NULL;
		goto done;
	}
	result = PyTuple_Pack(2, odata, ooffs);
done:
	Py_XDECREF(odata);
	Py_XDECREF(ooffs);
	batch_args_free(&b);
	rbuf_release(&db);
	rbuf_release(&ob);
	return result;
}

/* ---- Catalogue and key helpers ---------------------------------------------------- */

static const char *mode_name(enum fb_mode m)
{
	static const char *const names[] = { "ecb", "cbc", "cfb", "cfb8", "ofb", "ctr", "xts" };
	return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}

/* _ciphers() -> list of (name, family, mode, key_len, block_size, iv_len) */
static PyObject *py_ciphers(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	PyObject *l = PyList_New(0);
	const fb_cipher *c;
	for (size_t i = 0; l && (c = fb_cipher_at(i)) != NULL; i++) {
		PyObject *t = Py_BuildValue("(sssnnn)", fb_cipher_name(c), fb_cipher_family(c), mode_name(fb_cipher_mode(c)),
					    (Py_ssize_t)fb_cipher_key_len(c), (Py_ssize_t)fb_cipher_block_size(c),
					    (Py_ssize_t)fb_cipher_iv_len(c));
		if (!t || PyList_Append(l, t) < 0)
			Py_CLEAR(l);
		Py_XDECREF(t);
	}
	return l;
}

/* _implementations() -> list of (name, family, note, constant_time, supported, batch, cpu_needs) */
static PyObject *py_impls(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	PyObject *l = PyList_New(0);
	fb_impl_info in;
	for (size_t i = 0; l && fb_impl_at(i, &in) == FB_OK; i++) {
		PyObject *t = Py_BuildValue("(sssNNIs)", in.name, in.family, in.note ? in.note : "",
					    PyBool_FromLong(in.constant_time), PyBool_FromLong(in.supported), in.batch,
					    in.cpu_needs ? in.cpu_needs : "");
		if (!t || PyList_Append(l, t) < 0)
			Py_CLEAR(l);
		Py_XDECREF(t);
	}
	return l;
}

static PyObject *py_cpu(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	return PyUnicode_FromString(fb_cpu_description());
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	return PyUnicode_FromString(fb_version());
}

static PyObject *py_output_bound(PyObject *self, PyObject *args)
{
	PyObject *name;
	int enc;
	Py_ssize_t len;
	(void)self;
	if (!PyArg_ParseTuple(args, "Opn", &name, &enc, &len))
		return NULL;
	if (len < 0) {
		PyErr_SetString(PyExc_ValueError, "length must not be negative");
		return NULL;
	}
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	return PyLong_FromSize_t(fb_output_bound(c, enc ? FB_ENCRYPT : FB_DECRYPT, (size_t)len));
}

static PyObject *py_des_check_parity(PyObject *self, PyObject *key)
{
	(void)self;
	rbuf k;
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	int r = fb_des_check_parity(k.p, k.n);
	rbuf_release(&k);
	return PyBool_FromLong(r);
}

static PyObject *py_des_set_parity(PyObject *self, PyObject *key)
{
	(void)self;
	rbuf k;
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	PyObject *out = PyBytes_FromStringAndSize((const char *)k.p, (Py_ssize_t)k.n);
	if (out)
		fb_des_set_parity((uint8_t *)PyBytes_AS_STRING(out), k.n);
	rbuf_release(&k);
	return out;
}

static PyObject *py_des_is_weak_key(PyObject *self, PyObject *key)
{
	(void)self;
	rbuf k;
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	if (k.n != 8) {
		rbuf_release(&k);
		return raise_fb(FB_ERR_KEY_LENGTH, "des_is_weak_key takes one 8-byte DES key");
	}
	int r = fb_des_is_weak_key(k.p);
	rbuf_release(&k);
	return PyBool_FromLong(r);
}

static PyObject *py_strerror(PyObject *self, PyObject *arg)
{
	(void)self;
	long code = PyLong_AsLong(arg);
	if (code == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(fb_strerror((int)code));
}

/* ---- MACs and key check values ---------------------------------------------- */

/* _mac(alg, name, key, data, pad, mac_len) -> bytes (fb_mac; mac_len 0: the block). */
static PyObject *py_mac(PyObject *self, PyObject *args)
{
	(void)self;
	int alg, pad;
	Py_ssize_t mac_len;
	PyObject *name, *key, *data;
	if (!PyArg_ParseTuple(args, "iOOOin", &alg, &name, &key, &data, &pad, &mac_len))
		return NULL;
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	if (mac_len == 0) /* the whole block */
		mac_len = (Py_ssize_t)fb_cipher_block_size(c);
	if (mac_len < 1 || mac_len > 16)
		return raise_fb(FB_ERR_OUTPUT_SPACE, fb_cipher_name(c));
	rbuf k, d;
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	if (rbuf_get(data, &d, "data") < 0) {
		rbuf_release(&k);
		return NULL;
	}
	uint8_t out[16];
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fb_mac((enum fb_mac_alg)alg, c, k.p, k.n, (enum fb_mac_pad)pad, d.p, d.n, out, (size_t)mac_len);
	Py_END_ALLOW_THREADS
	rbuf_release(&k);
	rbuf_release(&d);
	if (rc != FB_OK)
		return raise_fb(rc, fb_cipher_name(c));
	return PyBytes_FromStringAndSize((const char *)out, mac_len);
}

/* _kcv(name, key, cmac, length) -> bytes (fb_kcv). */
static PyObject *py_kcv(PyObject *self, PyObject *args)
{
	(void)self;
	int cmac;
	Py_ssize_t len;
	PyObject *name, *key;
	if (!PyArg_ParseTuple(args, "OOpn", &name, &key, &cmac, &len))
		return NULL;
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	if (len < 1 || len > 16)
		return raise_fb(FB_ERR_OUTPUT_SPACE, fb_cipher_name(c));
	rbuf k;
	if (rbuf_get(key, &k, "key") < 0)
		return NULL;
	uint8_t out[16];
	int rc = fb_kcv(c, k.p, k.n, cmac, out, (size_t)len);
	rbuf_release(&k);
	if (rc != FB_OK)
		return raise_fb(rc, fb_cipher_name(c));
	return PyBytes_FromStringAndSize((const char *)out, len);
}

/* Buffers of a sequence of bytes-like objects, all held until released. */
typedef struct rbuf_list {
	Py_ssize_t n;
	rbuf *b;
	const uint8_t **p;
	size_t *len;
} rbuf_list;

static void rbuf_list_release(rbuf_list *l)
{
	for (Py_ssize_t i = 0; l->b && i < l->n; i++)
		rbuf_release(&l->b[i]);
	PyMem_Free(l->b);
	PyMem_Free((void *)l->p);
	PyMem_Free(l->len);
	l->b = NULL, l->p = NULL, l->len = NULL;
}

static int rbuf_list_get(PyObject *seq, rbuf_list *l, const char *what)
{
	memset(l, 0, sizeof *l);
	PyObject *fast = PySequence_Fast(seq, "a sequence of bytes-like objects is needed");
	if (!fast)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	l->b = PyMem_Calloc((size_t)n + 1, sizeof *l->b);
	l->p = PyMem_Calloc((size_t)n + 1, sizeof *l->p);
	l->len = PyMem_Calloc((size_t)n + 1, sizeof *l->len);
	if (!l->b || !l->p || !l->len) {
		Py_DECREF(fast);
		rbuf_list_release(l);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++, l->n++) {
		if (rbuf_get(PySequence_Fast_GET_ITEM(fast, i), &l->b[i], what) < 0) {
			Py_DECREF(fast);
			rbuf_list_release(l);
			return -1;
		}
		l->p[i] = l->b[i].p;
		l->len[i] = l->b[i].n;
	}
	Py_DECREF(fast);
	return 0;
}

/* One bytes object per result of size each from a flat buffer. */
static PyObject *split_results(const uint8_t *flat, Py_ssize_t n, Py_ssize_t size)
{
	PyObject *list = PyList_New(n);
	for (Py_ssize_t i = 0; list && i < n; i++) {
		PyObject *b = PyBytes_FromStringAndSize((const char *)flat + i * size, size);
		if (!b) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, b);
	}
	return list;
}

/* Keys all of one length (the batch calls take one key_len). */
static int same_key_len(const rbuf_list *k, const fb_cipher *c, size_t *len)
{
	*len = k->n ? k->len[0] : fb_cipher_key_len(c); /* an empty batch: any valid length */
	for (Py_ssize_t i = 1; i < k->n; i++)
		if (k->len[i] != *len) {
			raise_fb(FB_ERR_KEY_LENGTH, fb_cipher_name(c));
			return -1;
		}
	return 0;
}

/* _mac_batch(alg, name, keys, messages, pad, mac_len) -> list of bytes. */
static PyObject *py_mac_batch(PyObject *self, PyObject *args)
{
	(void)self;
	int alg, pad;
	Py_ssize_t mac_len;
	PyObject *name, *keys, *msgs, *out = NULL;
	if (!PyArg_ParseTuple(args, "iOOOin", &alg, &name, &keys, &msgs, &pad, &mac_len))
		return NULL;
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	if (mac_len == 0) /* the whole block */
		mac_len = (Py_ssize_t)fb_cipher_block_size(c);
	if (mac_len < 1 || mac_len > 16)
		return raise_fb(FB_ERR_OUTPUT_SPACE, fb_cipher_name(c));
	rbuf_list k, m;
	if (rbuf_list_get(keys, &k, "key") < 0)
		return NULL;
	if (rbuf_list_get(msgs, &m, "message") < 0) {
		rbuf_list_release(&k);
		return NULL;
	}
	size_t klen;
	uint8_t *flat = NULL;
	if (k.n != m.n) {
		PyErr_Format(PyExc_ValueError, "%zd keys for %zd messages", k.n, m.n);
	} else if (same_key_len(&k, c, &klen) == 0) {
		flat = PyMem_Malloc((size_t)k.n * (size_t)mac_len + 1);
		int rc;
		Py_BEGIN_ALLOW_THREADS
		rc = flat ? fb_mac_batch((enum fb_mac_alg)alg, c, (size_t)k.n, k.p, klen, (enum fb_mac_pad)pad, m.p,
					 m.len, flat, (size_t)mac_len)
			  : FB_ERR_ARGUMENT;
		Py_END_ALLOW_THREADS
		if (!flat)
			PyErr_NoMemory();
		else if (rc != FB_OK)
			raise_fb(rc, fb_cipher_name(c));
		else
			out = split_results(flat, k.n, mac_len);
	}
	PyMem_Free(flat);
	rbuf_list_release(&k);
	rbuf_list_release(&m);
	return out;
}

/* _kcv_batch(name, keys, cmac, length) -> list of bytes. */
static PyObject *py_kcv_batch(PyObject *self, PyObject *args)
{
	(void)self;
	int cmac;
	Py_ssize_t len;
	PyObject *name, *keys, *out = NULL;
	if (!PyArg_ParseTuple(args, "OOpn", &name, &keys, &cmac, &len))
		return NULL;
	const fb_cipher *c = cipher_arg(name);
	if (!c)
		return NULL;
	if (len < 1 || len > 16)
		return raise_fb(FB_ERR_OUTPUT_SPACE, fb_cipher_name(c));
	rbuf_list k;
	if (rbuf_list_get(keys, &k, "key") < 0)
		return NULL;
	size_t klen;
	if (same_key_len(&k, c, &klen) == 0) {
		uint8_t *flat = PyMem_Malloc((size_t)k.n * (size_t)len + 1);
		int rc;
		Py_BEGIN_ALLOW_THREADS
		rc = flat ? fb_kcv_batch(c, (size_t)k.n, k.p, klen, cmac, flat, (size_t)len) : FB_ERR_ARGUMENT;
		Py_END_ALLOW_THREADS
		if (!flat)
			PyErr_NoMemory();
		else if (rc != FB_OK)
			raise_fb(rc, fb_cipher_name(c));
		else
			out = split_results(flat, k.n, len);
		PyMem_Free(flat);
	}
	rbuf_list_release(&k);
	return out;
}

static PyMethodDef module_methods[] = {
	{ "encrypt", (PyCFunction)(void (*)(void))py_encrypt, METH_FASTCALL | METH_KEYWORDS,
	  "encrypt(name, key, data, iv=None, padding=None, *, impl=None, constant_time=False, strict_keys=False,\n"
	  "        threads=False) -> bytes\n\n"
	  "Encrypts a whole message. padding: None (PKCS#7 for ECB and CBC, none elsewhere),\n"
	  "'pkcs7', 'iso9797-2' or 'none'. XTS takes the tweak as iv. threads: a message of 2 MB or more\n"
	  "in ECB, CTR, XTS, or CBC or CFB decryption runs on every CPU (same bytes)." },
	{ "decrypt", (PyCFunction)(void (*)(void))py_decrypt, METH_FASTCALL | METH_KEYWORDS,
	  "decrypt(name, key, data, iv=None, padding=None, *, impl=None, constant_time=False, strict_keys=False,\n"
	  "        threads=False) -> bytes\n\n"
	  "Decrypts a whole message; the padding is checked and removed." },
	{ "_stream", py_stream, METH_VARARGS, NULL },
	{ "_batch", py_batch, METH_VARARGS, NULL },
	{ "_batch_flat", py_batch_flat, METH_VARARGS, NULL },
	{ "_ciphers", py_ciphers, METH_NOARGS, NULL },
	{ "_implementations", py_impls, METH_NOARGS, NULL },
	{ "_register_errors", register_errors, METH_VARARGS, NULL },
	{ "output_bound", py_output_bound, METH_VARARGS,
	  "output_bound(name, encrypt, length) -> int\n\nThe most bytes one update (or a one-shot call) on length bytes writes." },
	{ "cpu_description", py_cpu, METH_NOARGS, "cpu_description() -> str\n\nThe CPU features fastblock detected." },
	{ "library_version", py_version, METH_NOARGS, "library_version() -> str\n\nThe C library's version." },
	{ "des_check_parity", py_des_check_parity, METH_O,
	  "des_check_parity(key) -> bool\n\nTrue if every byte of key has odd parity." },
	{ "des_set_parity", py_des_set_parity, METH_O,
	  "des_set_parity(key) -> bytes\n\nkey with odd parity set on every byte (the low bit)." },
	{ "des_is_weak_key", py_des_is_weak_key, METH_O,
	  "des_is_weak_key(key) -> bool\n\nTrue if the 8-byte key is one of the 4 weak or 12 semi-weak DES keys\n"
	  "(parity bits ignored)." },
	{ "strerror", py_strerror, METH_O, "strerror(code) -> str\n\nThe C library's text for an error code." },
	{ "_mac", py_mac, METH_VARARGS, NULL },
	{ "_kcv", py_kcv, METH_VARARGS, NULL },
	{ "_mac_batch", py_mac_batch, METH_VARARGS, NULL },
	{ "_kcv_batch", py_kcv_batch, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "fastblock._fastblock", "The native part of fastblock (see the fastblock package).", -1,
	module_methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__fastblock(void)
{
	if (PyType_Ready(&Stream_Type) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (!cipher_cache && !(cipher_cache = PyDict_New()))
		goto fail;
	Py_INCREF(&Stream_Type);
	if (PyModule_AddObject(m, "CipherContext", (PyObject *)&Stream_Type) < 0) {
		Py_DECREF(&Stream_Type);
		goto fail;
	}
	if (PyModule_AddIntConstant(m, "NOGIL_MIN", FBPY_NOGIL_MIN) < 0)
		goto fail;
	static const struct {
		const char *name;
		int code;
	} codes[] = {
		{ "ERR_UNKNOWN_CIPHER", FB_ERR_UNKNOWN_CIPHER }, { "ERR_KEY_LENGTH", FB_ERR_KEY_LENGTH },
		{ "ERR_IV_LENGTH", FB_ERR_IV_LENGTH },		 { "ERR_DATA_LENGTH", FB_ERR_DATA_LENGTH },
		{ "ERR_BAD_PADDING", FB_ERR_BAD_PADDING },	 { "ERR_WEAK_KEY", FB_ERR_WEAK_KEY },
		{ "ERR_IMPL_UNAVAILABLE", FB_ERR_IMPL_UNAVAILABLE }, { "ERR_OVERLAP", FB_ERR_OVERLAP },
		{ "ERR_ARGUMENT", FB_ERR_ARGUMENT },		 { "ERR_OUTPUT_SPACE", FB_ERR_OUTPUT_SPACE },
		{ "ERR_STATE", FB_ERR_STATE },			 { "ERR_NOT_CONSTANT_TIME", FB_ERR_NOT_CONSTANT_TIME },
		{ "ERR_PADDING_MODE", FB_ERR_PADDING_MODE },	 { "ERR_XTS_KEYS", FB_ERR_XTS_KEYS },
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (PyModule_AddIntConstant(m, codes[i].name, codes[i].code) < 0)
			goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
