#!/usr/bin/env python3
"""plot.py - turn `fastblock speed --json` output into docs/benchmarks.md and
docs/benchmarks.png (run by bench/run_bench.sh, i.e. `make bench`).

usage: plot.py --info INFO.json --main MAIN.json [--seeds SEEDS.json]
               [--md docs/benchmarks.md] [--png docs/benchmarks.png]

INFO is `fastblock speed --info --json`; MAIN the default comparison (every
cipher and mode, 64 B and 8 KB, every peer); SEEDS the extra sizes that the
seed papers measured (1 KB for seed 001, 8000 blocks for seed 002). The
Markdown summary table is also printed on stdout. Without matplotlib the
PNG is skipped with a warning; everything else needs only the standard library.
"""
import argparse
import datetime
import json
import math
import os
import re
import sys

MODES = ("ecb", "cbc", "cfb", "cfb8", "ofb", "ctr", "xts")
SINGLE_PEERS = ("openssl", "crypto++", "botan", "libgcrypt", "nettle")
PLOT_GROUPS = ("des", "des-ede3", "aes-128", "aes-256", "rc6-128", "mars-128",
               "twofish-128", "serpent-128")
PRETTY = {"openssl": "OpenSSL", "crypto++": "Crypto++", "botan": "Botan",
          "libgcrypt": "libgcrypt", "nettle": "Nettle", "ipsec-mb": "ipsec-mb",
          "fastblock": "fastblock"}


def split_name(name):
    """'aes-128-cbc' -> ('aes-128', 'cbc')."""
    head, _, mode = name.rpartition("-")
    return (head, mode) if mode in MODES else (name, "")


def fmt_mbs(v):
    if v is None:
        return "–"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def fmt_num(v, digits=0):
    if v is None:
        return "–"
    return ("{:,.%df}" % digits).format(v)


# The figure each table shows: the median over a row's repetitions in its
# best round (bench/rounds.h), or their minimum over all rounds. On the
# shared 2-vCPU guests the median is the steadier: the core clock wanders,
# and a row's fastest repetitions (its minimum) catch moments of a higher
# clock, up to ~1.3x the median on Sapphire Rapids (a serial chain timed
# faster than its cycle floor allows at the usual clock), at random between
# rows; the best round's median escapes a slow stretch of the host that
# the median of all rounds would not (bench/limits.md, "three rounds").
MEDIAN_OF = {"mb_per_s": "mb_per_s_median", "cycles_per_byte": "cycles_per_byte_median",
             "cycles_per_block": "cycles_per_block_median", "key_setup_cycles": "key_setup_cycles_median"}


def load(path, stat="median"):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read().strip()
    rows = json.loads(text) if text else []
    if stat == "median":
        for r in rows:
            for field, med in MEDIAN_OF.items():
                if r.get(med) is not None:
                    r[field] = r[med]
    return rows


class Results:
    """Timed rows indexed by (library, impl, cipher, op, size, streams)."""

    def __init__(self, rows):
        self.rows = [r for r in rows if r.get("status") == "ok" and r.get("cycles_per_byte") is not None]
        # capped: a peer too slow here to time in full (issue 12: marked, not waited for)
        self.capped = [r for r in rows if r.get("status") == "capped"]
        self.bad = [r for r in rows if r.get("status") not in ("ok", "capped")]
        self.key_setup = {}
        for r in rows:
            if r.get("key_setup_cycles") is not None:
                self.key_setup[(r["library"], r["impl"], r["cipher"], r["op"], r["streams"])] = r["key_setup_cycles"]

    def find(self, cipher, op, size, library="fastblock", impl=None, streams=1):
        for r in self.rows:
            if (r["cipher"] == cipher and r["op"] == op and r["size"] == size and
                    r["library"] == library and r["streams"] == streams and
                    (impl is None or r["impl"] == impl)):
                return r
        return None

    def best(self, cipher, op, size, library, streams=1, exclude_default=False):
        cands = [r for r in self.rows if r["cipher"] == cipher and r["op"] == op and
                 r["size"] == size and r["library"] == library and r["streams"] == streams and
                 not (exclude_default and r["impl"] == "default")]
        cands = [r for r in cands if r.get("mb_per_s")]
        return max(cands, key=lambda r: r["mb_per_s"]) if cands else None

    def ciphers(self, order):
        present = {r["cipher"] for r in self.rows} | {r["cipher"] for r in self.bad}
        listed = [c for c in order if c in present]
        return listed + sorted(present - set(listed))

    def sizes(self):
        return sorted({r["size"] for r in self.rows if r["streams"] == 1})


# ---- Markdown tables --------------------------------------------------------------

def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def used_impl(r):
    """The implementation a default fastblock row ran on: the serial one for
    chained encryption (CBC, CFB, CFB8) and OFB, the parallel one otherwise."""
    mode = split_name(r["cipher"])[1]
    serial = mode == "ofb" or (mode in ("cbc", "cfb", "cfb8") and r["op"] == "encrypt")
    return r.get("serial_impl" if serial else "parallel_impl") or "?"


def throughput_table(res, order, size, peers):
    header = ["cipher", "op", "fastblock (default)", "fastblock best impl"]
    header += [PRETTY.get(p, p) for p in peers] + ["best peer", "fastblock ÷ best peer"]
    rows = []
    for c in res.ciphers(order):
        for op in ("encrypt", "decrypt"):
            d = res.find(c, op, size, impl="default")
            b = res.best(c, op, size, "fastblock", exclude_default=True)
            if not d and not b:
                continue
            cells = [c, op[:3]]
            cells.append("%s (%s)" % (fmt_mbs(d["mb_per_s"]), used_impl(d)) if d else "–")
            cells.append("%s (%s)" % (fmt_mbs(b["mb_per_s"]), b["impl"]) if b else "–")
            best_peer = None
            for p in peers:
                r = res.best(c, op, size, p)
                cells.append(fmt_mbs(r["mb_per_s"]) if r else "–")
                if r and (best_peer is None or r["mb_per_s"] > best_peer["mb_per_s"]):
                    best_peer = r
            cells.append(PRETTY.get(best_peer["library"], best_peer["library"]) if best_peer else "–")
            if d and best_peer and d.get("mb_per_s"):
                cells.append("**%.2f×**" % (d["mb_per_s"] / best_peer["mb_per_s"]))
            else:
                cells.append("–")
            rows.append(cells)
    return table(header, rows)


def multi_table(res, order, sizes):
    """One column per stream count: fastblock / ipsec-mb MB/s and their ratio."""
    counts = sorted({r["streams"] for r in res.rows if r["streams"] > 1})
    header = ["cipher", "op", "bytes per stream"] + ["x%d streams" % n for n in counts]
    header += ["fastblock one stream (default)"]
    rows = []
    for c in res.ciphers(order):
        for op in ("encrypt", "decrypt"):
            for size in sizes:
                fb = [res.find(c, op, size, "fastblock", streams=n) for n in counts]
                mb = [res.find(c, op, size, "ipsec-mb", streams=n) for n in counts]
                if not any(fb) and not any(mb):
                    continue
                cells = []
                for f, m in zip(fb, mb):
                    cell = "%s / %s" % (fmt_mbs(f["mb_per_s"]) if f else "–", fmt_mbs(m["mb_per_s"]) if m else "–")
                    if f and m and m["mb_per_s"] > 0:
                        cell += " (**%.1f×**)" % (f["mb_per_s"] / m["mb_per_s"])
                    cells.append(cell)
                one = res.find(c, op, size, impl="default")
                rows.append([c, op[:3], size] + cells + [fmt_mbs(one["mb_per_s"]) if one else "–"])
    return table(header, rows) if rows else ""


def key_setup_table(res, order, peers):
    header = ["cipher", "op", "fastblock (default)"] + [PRETTY.get(p, p) for p in peers]
    rows = []
    for c in res.ciphers(order):
        if split_name(c)[1] not in ("ecb", "xts"):
            continue  # key setup does not depend on the mode, except XTS's two keys
        for op in ("encrypt", "decrypt"):
            d = res.key_setup.get(("fastblock", "default", c, op, 1))
            if d is None:
                continue
            cells = [c, op[:3], fmt_num(d)]
            for p in peers:
                vals = [v for (lib, _i, ci, o, _s), v in res.key_setup.items() if lib == p and ci == c and o == op]
                if not vals:  # ipsec-mb has only CBC: the key schedule is the same
                    vals = [v for (lib, _i, ci, o, _s), v in res.key_setup.items()
                            if lib == p and split_name(ci)[0] == split_name(c)[0] and o == op]
                cells.append(fmt_num(min(vals)) if vals else "–")
            rows.append(cells)
    return table(header, rows) if rows else ""


# ---- the seeds' tables ------------------------------------------------------------------

def seeds_section(res, k, portable):
    """k: core cycles per TSC tick (an estimate; 0 if unknown); portable:
    family -> the implementation that needs no CPU feature (the closest
    kin of the seeds' one-block-at-a-time code)."""

    def cpb(cipher, op, size, impl="default"):
        r = res.find(cipher, op, size, impl=impl)
        return r["cycles_per_block"] if r else None

    def best_cpb(cipher, op, size):
        b = res.best(cipher, op, size, "fastblock", exclude_default=True)
        return (b["cycles_per_block"], b["impl"]) if b else (None, None)

    def ks(cipher, op="encrypt"):
        return res.key_setup.get(("fastblock", "default", cipher, op, 1))

    def core(v):
        return v * k if (v is not None and k) else None

    def speedup(seed, ticks):
        c = core(ticks)
        return "%.1f×" % (seed / c) if c else "–"

    out = []
    out.append("Figures in **core clock cycles** for the seeds (their machines' clocks) and in "
               "**TSC ticks** for fastblock here; the ≈core column converts ticks with the "
               "measured ratio of %.2f core cycles per tick (an estimate: it holds while the core "
               "keeps the clock it had when measured). \"speed-up\" = seed cycles ÷ our ≈core cycles, "
               "the per-clock improvement; a wall-clock comparison would also multiply by the clock ratio."
               % k if k else "Figures are TSC ticks (no core-clock estimate available).")
    out.append("")

    # seed 000: Osvik, DES on the Pentium
    rows = []
    v = cpb("des-ecb", "encrypt", 8192)
    b, bi = best_cpb("des-ecb", "encrypt", 8192)
    rows.append(["DES ECB encryption, cycles/block (seed: 4 KB in L1; here 8 KB)", "315",
                 fmt_num(v, 1), fmt_num(core(v), 1), speedup(315, v),
                 "%s (%s)" % (fmt_num(b, 1), bi) if b else "–"])
    v = ks("des-ecb")
    rows.append(["DES key setup, cycles (incl. the call)", "576", fmt_num(v), fmt_num(core(v)),
                 speedup(576, v), "–"])
    out.append("### Seed 000 — Osvik, DES on the Pentium\n")
    out.append(table(["quantity", "seed 000 (Pentium)", "fastblock default, ticks", "≈ core cycles",
                      "speed-up", "best fastblock impl, ticks"], rows))

    # seed 001: TI C6211 / C6201, cycles for 1024 bytes
    t1 = [  # name, cipher, key sched 6211/6201, enc 6211/6201, dec 6211/6201
        ("Triple-DES, CBC", "des-ede3-cbc", 1448, 760, 133611, 136666, 129680, 136762),
        ("Triple-DES, ECB", "des-ede3-ecb", 1445, 760, 68884, 73589, 68770, 71268),
        ("DES, CBC", "des-cbc", 1425, 760, 52540, 52687, 51576, 53466),
        ("DES, ECB", "des-ecb", 1447, 760, 31644, 31266, 31722, 30958),
    ]
    rows = []
    for name, c, ks11, ks01, e11, e01, d11, d01 in t1:
        re_ = res.find(c, "encrypt", 1024, impl="default")
        rd_ = res.find(c, "decrypt", 1024, impl="default")
        e = re_["cycles_per_byte"] * 1024 if re_ else None
        d = rd_["cycles_per_byte"] * 1024 if rd_ else None
        kk = ks(c)
        rows.append([name, "%s / %s" % (fmt_num(ks11), fmt_num(ks01)), fmt_num(kk),
                     "%s / %s" % (fmt_num(e11), fmt_num(e01)), fmt_num(e), speedup(e01, e),
                     "%s / %s" % (fmt_num(d11), fmt_num(d01)), fmt_num(d), speedup(d01, d)])
    three = [("Triple-DES, CBC 3ch", "des-ede3-cbc", 209544, 210369, 220499, 211822),
             ("DES, CBC 3ch", "des-cbc", 96068, 93828, 105836, 100301)]
    for name, c, e11, e01, d11, d01 in three:
        # fastblock's multi-stream CBC at its narrowest width, scaled to 3 x 1024 bytes
        n = min([r["streams"] for r in res.rows if r["streams"] > 1 and r["library"] == "fastblock"] or [0])
        re_ = res.find(c, "encrypt", 1024, streams=n) if n else None
        rd_ = res.find(c, "decrypt", 1024, streams=n) if n else None
        e = re_["cycles_per_byte"] * 3072 if re_ else None
        d = rd_["cycles_per_byte"] * 3072 if rd_ else None
        rows.append([name + (" (ours: x%d streams, per 3 KB)" % n if n else ""), "–", "–",
                     "%s / %s" % (fmt_num(e11), fmt_num(e01)), fmt_num(e), speedup(e01, e),
                     "%s / %s" % (fmt_num(d11), fmt_num(d01)), fmt_num(d), speedup(d01, d)])
    out.append("\n### Seed 001 — TI TMS320C6211 / C6201, cycles for 1024 bytes\n")
    out.append(table(["mode", "key scheduler C6211 / C6201", "key setup here, ticks",
                      "encrypt C6211 / C6201", "encrypt here, ticks", "speed-up vs C6201",
                      "decrypt C6211 / C6201", "decrypt here, ticks", "speed-up vs C6201"], rows))

    # seed 003: Corella, PA-RISC 2.0 (CBC mode)
    rows = []
    for name, c, seed in (("DES CBC encryption, cycles/block", "des-cbc", 192),
                          ("Triple-DES CBC encryption, cycles/block", "des-ede3-cbc", 471)):
        v = cpb(c, "encrypt", 8192)
        b, bi = best_cpb(c, "encrypt", 8192)
        rows.append([name, str(seed), fmt_num(v, 1), fmt_num(core(v), 1), speedup(seed, v),
                     "%s (%s)" % (fmt_num(b, 1), bi) if b else "–"])
    out.append("\n### Seed 003 — Corella, DES / Triple-DES on PA-RISC 2.0 (PA-8500, 550 MHz)\n")
    out.append(table(["quantity", "seed 003", "fastblock default, ticks", "≈ core cycles", "speed-up",
                      "best fastblock impl, ticks"], rows))

    # seed 002: Aoki & Lipmaa, AES finalists on the Pentium II, 8000 blocks, 128-bit keys
    size2 = 128000
    rows = []
    for name, c, op, seed in (("RC6", "rc6-128-ecb", "encrypt", 223),
                              ("Rijndael (AES-128)", "aes-128-ecb", "encrypt", 237),
                              ("Twofish", "twofish-128-ecb", "encrypt", 282),
                              ("MARS", "mars-128-ecb", "encrypt", 306),
                              ("Serpent", "serpent-128-ecb", "encrypt", None),
                              ("RC6 decryption", "rc6-128-ecb", "decrypt", 209),
                              ("Twofish decryption", "twofish-128-ecb", "decrypt", 276)):
        v = cpb(c, op, size2)
        b, bi = best_cpb(c, op, size2)
        if v is None and seed is None:
            continue
        pi = portable.get(c.split("-")[0])
        pv = cpb(c, op, size2, impl=pi) if pi else None
        rows.append([name, str(seed) if seed else "– (not implemented)", fmt_num(v, 1),
                     fmt_num(core(v), 1), speedup(seed, v) if seed else "–",
                     "%s (%s)" % (fmt_num(b, 1), bi) if b else "–",
                     "%s (%s)" % (fmt_num(pv, 1), pi) if pv is not None else "–",
                     speedup(seed, pv) if seed and pv is not None else "–"])
    out.append("\n### Seed 002 — Aoki & Lipmaa, AES finalists on the Pentium II (8000 blocks, 128-bit keys)\n")
    out.append("Seed 002's code encrypted one block at a time with 32-bit integer instructions; "
               "fastblock's default runs many blocks at once in SIMD registers. The last two columns "
               "give the portable implementation (no CPU feature needed) for a closer like-for-like.\n")
    out.append(table(["cipher", "seed 002, cycles/block", "fastblock default, ticks/block",
                      "≈ core cycles", "speed-up", "best fastblock impl, ticks/block",
                      "portable impl, ticks/block", "portable speed-up"], rows))
    out.append("\nA cell with – means the cipher or mode has not landed in fastblock yet (or was not "
               "measured in this run).")
    return "\n".join(out)


# ---- the plot ----------------------------------------------------------------------------

def plot(res, order, size, path, libraries):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("plot.py: matplotlib not found; %s not written "
              "(apt-get install python3-matplotlib)" % path, file=sys.stderr)
        return False
    groups = [g for g in PLOT_GROUPS if any(split_name(c)[0] == g for c in res.ciphers(order))]
    if not groups:
        return False
    libs = ["fastblock"] + [p for p in libraries if p != "fastblock"]
    colors = dict(zip(libs, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 3))
    fig, axes = plt.subplots(len(groups), 2, figsize=(14, 2.9 * len(groups) + 1), squeeze=False)
    for gi, g in enumerate(groups):
        for oi, op in enumerate(("encrypt", "decrypt")):
            ax = axes[gi][oi]
            modes = [m for m in MODES if "%s-%s" % (g, m) in res.ciphers(order)]
            width = 0.8 / len(libs)
            for li, lib in enumerate(libs):
                xs, ys = [], []
                for mi, m in enumerate(modes):
                    c = "%s-%s" % (g, m)
                    if lib == "fastblock":
                        r = res.find(c, op, size, impl="default")
                    elif lib == "ipsec-mb":
                        cands = [x for x in res.rows if x["library"] == lib and x["cipher"] == c and
                                 x["op"] == op and x["size"] == size]
                        r = max(cands, key=lambda x: x["mb_per_s"]) if cands else None
                    else:
                        r = res.best(c, op, size, lib)
                    if r and r.get("mb_per_s"):
                        xs.append(mi + (li - (len(libs) - 1) / 2) * width)
                        ys.append(r["mb_per_s"])
                label = PRETTY.get(lib, lib) + (" (multi-stream)" if lib == "ipsec-mb" else "")
                ax.bar(xs, ys, width, label=label if gi == 0 and oi == 0 else None, color=colors[lib])
            ax.set_xticks(range(len(modes)))
            ax.set_xticklabels(modes)
            ax.set_yscale("log")
            # bars start at a whole decade, so their lengths compare honestly
            lo = min([p.get_height() for p in ax.patches if p.get_height() > 0] or [1])
            ax.set_ylim(bottom=10 ** math.floor(math.log10(lo / 2)))
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: "%g" % v))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_title("%s %s, %d-byte messages" % (g, op, size), fontsize=10)
            ax.set_ylabel("MB/s")
            ax.grid(axis="y", which="both", alpha=0.3)
    fig.legend(loc="upper center", ncol=len(libs), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / (2.9 * len(groups) + 1)))
    fig.savefig(path, dpi=90)
    return True


# ---- the document ------------------------------------------------------------------------

# Seed 001, Table 3 ("Memory Required for DES Core Algorithms", TMS320C6211):
# algorithm, cycle count, bytes (code and data of that routine).
SEED001_MEMORY = [("DES core algorithm", 304, 416), ("DES core algorithm, 3 channel", 522, 2080),
                  ("DES block algorithm", 380, 480), ("DES block algorithm, 3 channel", 806, 1760),
                  ("Triple-DES block algorithm", 1056, 576),
                  ("Triple-DES block algorithm, 3 channel", 1713, 1984),
                  ("S- and P-Box Lookup Table", None, 2048)]


def footprint_section(path):
    """Seed 001's memory table beside `fastblock list --footprint --porcelain`
    (TSV: footprint, impl, object, code, tables, schedule, context, cipher, hot set)."""
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 9 and p[0] == "footprint":
                rows.append(p[1:])
    out = ["\n### Seed 001 — memory: the seed's Table 3 beside fastblock's footprint\n",
           "Seed 001 (TMS320C6211) counts the bytes of each DES routine and of its one "
           "S- and P-box table, and keeps everything on chip (64 KB of L2 SRAM). Here the code "
           "and table bytes are nm's symbol sizes per object file (`fastblock list --footprint`), "
           "schedules are one key's, and contexts are `fb_ctx_size()` for the cipher shown, "
           "decrypting, with the implementation forced. \"Hot set\" is tables plus schedule "
           "against this CPU's L1d and L2: des/table12's 64 KB of merged tables is the one that "
           "leaves L1, which is why seed 003 measured such tables slower.\n",
           table(["seed 001 routine", "cycles (C6211)", "bytes"],
                 [[n, fmt_num(c) if c else "–", fmt_num(b)] for n, c, b in SEED001_MEMORY]), "",
           table(["implementation", "object", "code", "tables", "schedule", "context", "cipher",
                  "hot set"],
                 [[r[0], r[1], fmt_num(int(r[2])), fmt_num(int(r[3])), fmt_num(int(r[4])),
                   fmt_num(int(r[5])) if r[5] != "0" else "– (not on this CPU)", r[6], r[7]]
                  for r in rows])]
    return "\n".join(out)


def cache_section(path):
    """`fastblock speed --cache` output, as it was printed."""
    with open(path) as f:
        text = f.read().rstrip()
    return ("\n### Cache effects of the table kernels (`fastblock speed --cache`)\n\n"
            "DES-CBC encryption (a serial chain) with the tables warm, cold (after a sweep of twice "
            "the last-level cache before each message) and contended (another core sweeps the same "
            "buffer meanwhile). des/table12's 64 KB of merged tables do not fit L1d: warm it runs "
            "slower than des/table, as seed 003 reported for such tables, and it suffers most "
            "when cold. L1 and L2 are private per core here, so the sweeping core reaches only the "
            "shared L3; its column moves between runs on a shared machine.\n\n```\n" + text + "\n```")

def amd_generation(model):
    """AMD's core generation from the "(family F, model M)" that bench.c
    appends to the model name (AMD's family and model numbers); None when
    they are missing or unknown."""
    m = re.search(r"\(family (\d+), model (\d+)\)", model)
    if not m:
        return None
    fam, mod = int(m.group(1)), int(m.group(2))
    if fam == 23:
        return "Zen 2" if mod >= 0x30 else "Zen 1"
    if fam == 25:
        return "Zen 4" if 0x10 <= mod <= 0x1f or 0x60 <= mod <= 0xaf else "Zen 3"
    if fam == 26:
        return "Zen 5"
    return None


def cpu_class(info):
    """The machine class the issues and notes speak of, from the features
    fastblock detected: AVX-512 (with GFNI and VAES or not), AVX2 with or
    without VAES, or neither; and the vendor where the model names it."""
    f = set(info.get("cpu_features", "").split())
    model = info.get("cpu_model", "")
    vendor = "AMD " if "AMD" in model else "Intel " if "Intel" in model else ""
    gen = amd_generation(model) if vendor == "AMD " else None
    vendor = "AMD %s, " % gen if gen else vendor
    if "avx512f" in f:
        extra = [x.upper() for x in ("gfni", "vaes") if x in f]
        return "%sAVX-512%s" % (vendor, " with " + " and ".join(extra) if extra else "")
    if "avx2" in f:
        return "%sAVX2-only (%s)" % (vendor, "with VAES" if "vaes" in f else
                                     "AES-NI, no VAES" if "aesni" in f else "no AES-NI")
    return "%sno AVX2 (portable and SSE code)" % vendor


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--info", required=True)
    ap.add_argument("--main", required=True)
    ap.add_argument("--seeds")
    ap.add_argument("--footprint", help="`fastblock list --footprint --porcelain` output")
    ap.add_argument("--cache", help="`fastblock speed --cache` output")
    ap.add_argument("--md", default="docs/benchmarks.md")
    ap.add_argument("--png", default="docs/benchmarks.png")
    ap.add_argument("--command", default="make bench", help="how the run was made (for the text)")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="the figure of a row the tables show (default: the median of its best round; see MEDIAN_OF)")
    a = ap.parse_args()

    with open(a.info) as f:
        info = json.load(f)
    main_rows = load(a.main, a.stat)
    seed_rows = load(a.seeds, a.stat)
    res = Results(main_rows)
    seeds = Results(main_rows + seed_rows)
    order = info.get("ciphers", [])
    peers_present = [p["library"] for p in info.get("peers", [])]
    single = [p for p in SINGLE_PEERS if p in peers_present]
    k = info.get("core_cycles_per_tick") or 0
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    md = []
    md.append("# fastblock benchmarks\n")
    md.append("Generated by `%s` on %s (bench/run_bench.sh → `fastblock speed --peers --json` → "
              "bench/plot.py). Regenerate with `make bench`; the figures drift on a shared "
              "machine, so compare **ratios within one run**, not across runs.\n" % (a.command, date))
    md.append("- **CPU:** %s; **class:** %s" % (info.get("cpu_model", "?"), cpu_class(info)))
    md.append("- **CPU flags fastblock detected and can use:** `%s`" % info.get("cpu_features", ""))
    md.append("- **Clock:** time-stamp counter at %.1f MHz; about %.2f core cycles per TSC tick "
              "(measured with a chain of dependent adds). All \"cycles\" below are **TSC ticks**."
              % (info.get("tsc_mhz", 0), k))
    md.append("- **Libraries:** fastblock %s; %s" % (
        info.get("fastblock_version", "?"),
        ", ".join("%s %s" % (PRETTY.get(p["library"], p["library"]), p["version"]) for p in info.get("peers", []))
        or "no peer library was built in"))
    md.append("- **Method** (seed 002's, brought up to date): one core (pinned), random keys and data, "
              "`lfence; rdtsc; lfence` … `rdtscp; lfence` around one call (messages under 32 KB: a batch "
              "of calls, ticks per call, so that a TSC step is a small part of it), the same measurement of an "
              "empty call (%.0f ticks) subtracted. The whole list is measured %s, each time with a "
              "share of the time budget, so that a row's repetitions lie minutes apart and a stretch of "
              "a slow host cannot take one row alone; the tables show the **%s** (the JSON also has the "
              "%s). fastblock is timed through its streaming API (`fb_init` once, then "
              "`fb_update` over the buffer, in place, no padding; XTS one data unit a call, `fb_message`, as "
              "OpenSSL and Nettle run it); each peer through its usual API, in "
              "the same process, on the same buffer. Key setup is timed on its own, as batches of 32 calls "
              "with rotating keys (below). Before timing, every "
              "peer's and every forced implementation's output is compared with fastblock's; a mismatch "
              "is reported and never timed." % (
                  info.get("empty_call_ticks", 0),
                  "in %d rounds" % info["rounds"] if info.get("rounds", 1) > 1 else "once",
                  "median of each row's best round" if a.stat == "median" else "minimum over all repetitions",
                  "minimum" if a.stat == "median" else "median"))
    md.append("- **fastblock (default)** is what the library picks (the implementation in brackets: "
              "the parallel one for ECB, CTR, XTS and all decryption, the serial one for CBC/CFB/OFB "
              "encryption); **best impl** is the fastest implementation forced with `fb_options.impl`.")
    md.append("- Single-stream peers only in the ratio; ipsec-mb runs many independent CBC streams at "
              "once and is compared with fastblock's own multi-stream API in its own table.\n")

    sizes = res.sizes()
    big = max(sizes) if sizes else 8192
    small = min(sizes) if sizes else 64

    summary = throughput_table(res, order, big, single)
    md.append("## Throughput, %d-byte messages (MB/s, one core)\n" % big)
    md.append(summary + "\n")
    if small != big:
        md.append("## Throughput, %d-byte messages (MB/s, one core)\n" % small)
        md.append(throughput_table(res, order, small, single) + "\n")
    mt = multi_table(res, order, sizes)
    if mt:
        md.append("## Many independent CBC streams (MB/s over all streams)\n")
        md.append("fastblock's `fb_multi_crypt` (keys set up inside each call) against ipsec-mb's "
                  "multi-buffer job API (key schedules prepared once), all streams of the same length. "
                  "Each cell: fastblock MB/s / ipsec-mb MB/s (ratio).\n")
        md.append(mt + "\n")
    kt = key_setup_table(res, order, single + (["ipsec-mb"] if "ipsec-mb" in peers_present else []))
    if kt:
        md.append("## Key setup (TSC ticks, %s)\n" % a.stat)
        md.append("Key setup as a short message sees it, the same for fastblock and each peer: a new key "
                  "and one block (CFB8: one byte, one cipher call), less the same on a keyed handle, in batches of "
                  "32 with four keys in turn. "
                  "fastblock: `fb_init` (key schedule, implementation choice, context set-up) and a "
                  "one-block message, so that the schedules `fb_init` leaves to a run's first use (3DES's "
                  "table schedules in the parallel modes) are counted; peers: their own re-keying call and "
                  "one block through their usual API (keystream a peer makes ahead is counted here). XTS "
                  "and ipsec-mb (many streams a call): the key alone; ipsec-mb: its DES key schedules "
                  "only.\n")
        md.append(kt + "\n")
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limits.md")
    if os.path.exists(notes):  # hand-written: targets reached and what limits them
        with open(notes) as f:
            md.append(f.read().rstrip() + "\n")
    md.append("## The seeds' tables reproduced on this CPU\n")
    portable = {}
    for i in info.get("impls", []):
        if not i.get("cpu_needs") and i.get("family") not in portable:
            portable[i["family"]] = i["name"]
    md.append(seeds_section(seeds, k, portable) + "\n")
    if a.footprint:
        md.append(footprint_section(a.footprint) + "\n")
    if a.cache:
        md.append(cache_section(a.cache) + "\n")

    bad = res.bad + [r for r in Results(seed_rows).bad]
    md.append("## Correctness of this run\n")
    if bad:
        md.append("These did **not** match fastblock's output (or failed) and were not timed:\n")
        md.append(table(["library", "impl", "cipher", "op", "status", "detail"],
                        [[r["library"], r["impl"], r["cipher"], r["op"], r["status"], r.get("error", "")]
                         for r in bad]) + "\n")
    else:
        n = len({(r["library"], r["impl"], r["cipher"], r["op"]) for r in res.rows})
        md.append("Every peer and every implementation timed here (%d combinations) produced "
                  "fastblock's output on a random buffer before it was timed.\n" % n)
    capped = res.capped + [r for r in Results(seed_rows).capped]
    if capped:
        md.append("Matched fastblock's output but stopped at the time cap (pathological on this "
                  "machine; not in the tables above):\n")
        md.append(table(["library", "impl", "cipher", "op", "size", "detail"],
                        [[r["library"], r["impl"], r["cipher"], r["op"], r.get("size", ""), r.get("error", "")]
                         for r in capped]) + "\n")

    impls = info.get("impls", [])
    if impls:
        md.append("## fastblock implementations\n")
        md.append(table(["name", "on this CPU", "constant time", "batch", "needs", "technique"],
                        [[i["name"], "yes" if i["supported"] else "no", "yes" if i["constant_time"] else "no",
                          i.get("batch", ""), i.get("cpu_needs") or "–", i.get("note") or ""] for i in impls]) + "\n")

    if plot(res, order, big, a.png, ["fastblock"] + single + (["ipsec-mb"] if "ipsec-mb" in peers_present else [])):
        md.append("![throughput per cipher and mode](%s)\n" % os.path.basename(a.png))

    os.makedirs(os.path.dirname(os.path.abspath(a.md)), exist_ok=True)
    with open(a.md, "w") as f:
        f.write("\n".join(md))
    print("## Throughput, %d-byte messages (MB/s, one core)\n" % big)
    print(summary)
    print("\nwrote %s%s" % (a.md, " and " + a.png if os.path.exists(a.png) else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
