#!/usr/bin/env python3
# output: src/des/des_gfni_tables.h
"""Tables for des_gfni_avx512.c: DES with one block per 64-bit lane, S-boxes
looked up in registers (vpermb), E and P done by two GF(2) affine
transforms (gf2p8affineqb), and bit gathers (vpshufbitqmb) for IP, FP and
the key schedule. Everything is a register operation: constant-time.

The "row form" of a 32-bit half V is a qword whose byte d (row d) holds the
six input bits of S-box d in the next round (E of V) and whose bit c
(column c) in every row comes from S-box 7-c of the previous round (P^-1 of
V): cell (d, c) = the bit of V that S-box 7-c feeds to S-box d, or 0 when
S-box 7-c feeds none of S-box d's inputs (each S-box is fed by six of the
eight). DES's P spreads every S-box's outputs so that this is well defined.

A round on the row forms L, R with the round key K in row form:
    X   = R ^ K
    idx = affine(X, COMPACT)     per row, a linear map taking the six used
                                 columns of row d to a 6-bit index
    D   = byte d: SBOX[d][idx byte d]  (8 masked vpermb)
    O   = affine(TRANSPOSE, D)   O's row j, column i = D's byte 7-i, bit j:
                                 SBOX[s] answers with bit j = the output bit
                                 of S-box s that feeds S-box j (after P)
    L, R = R, L ^ O
so E and P cost one affine transform each and the round output is already
in row form. COMPACT exists because no two columns are left unused by
every row (checked below): its 2-dimensional kernel avoids each row's
six-column subspace.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import des_tables as D  # noqa: E402

MASK64 = (1 << 64) - 1


def src_of(r):
    """(S-box, output bit 0 = MSB) of the previous round that gives bit r (1..32) of f."""
    q = D.P[r - 1] - 1
    return q // 4, q % 4


def e_bits(d):
    """The six bits of V (1..32) that S-box d (0-based) reads, b1..b6."""
    return [D.E[6 * d + k] for k in range(6)]


# feed[d][s] = (bit of V that S-box s feeds into S-box d, its E position k)
FEED = []
for _d in range(8):
    f = {}
    for _k, _r in enumerate(e_bits(_d)):
        s, _ = src_of(_r)
        assert s not in f, "an S-box feeds one input of each S-box at most"
        f[s] = (_r, _k)
    FEED.append(f)


def col_source(c):
    return 7 - c


def cell(d, c):
    """(bit of V, E position) held in row d, column c, or None."""
    return FEED[d].get(col_source(c))


# ---- the affine transforms ---------------------------------------------------------------

def affine(x, a):
    """gf2p8affineqb on one qword lane: byte j of x times the matrix a."""
    out = 0
    for j in range(8):
        xb = (x >> (8 * j)) & 255
        for i in range(8):
            row = (a >> (8 * (7 - i))) & 255
            out |= (bin(row & xb).count("1") & 1) << (8 * j + i)
    return out


TRANSPOSE = sum(1 << (9 * j) for j in range(8))  # byte j = 1 << j


def compact_ok(rows6):
    """rows6[i] = column mask giving index bit i. Injective on every row's cells?"""
    for d in range(8):
        cols = [c for c in range(8) if cell(d, c)]
        seen = set()
        for v in range(64):
            byte = sum(((v >> k) & 1) << c for k, c in enumerate(cols))
            seen.add(sum((bin(m & byte).count("1") & 1) << i for i, m in enumerate(rows6)))
        if len(seen) != 64:
            return False
    return True


def find_compact():
    rng = random.Random(2026)
    while True:
        rows6 = [rng.randrange(1, 256) for _ in range(6)]
        if compact_ok(rows6):
            # index bits 0..5 are rows 7..2 of the matrix; bits 6, 7 give 0
            return sum(m << (8 * (7 - i)) for i, m in enumerate(rows6))


COMPACT = find_compact()


def compact_index(d, x6):
    """Index byte of S-box d when its six inputs (b1..b6 as an int, b1 = MSB) are x6."""
    byte = 0
    for c in range(8):
        ce = cell(d, c)
        if ce:
            byte |= ((x6 >> (5 - ce[1])) & 1) << c
    return affine(byte, COMPACT) & 63


def sbox_tables():
    """SBOX[s][y]: bit j = the output bit of S-box s that feeds S-box j."""
    t = [[0] * 64 for _ in range(8)]
    for s in range(8):
        for x6 in range(64):
            out = D.sbox(s, x6)
            v = 0
            for j in range(8):
                if s in FEED[j]:
                    _, m = src_of(FEED[j][s][0])
                    v |= ((out >> (3 - m)) & 1) << j
            y = compact_index(s, x6)
            t[s][y] = v
    return t


SBOXES = sbox_tables()

# ---- bit gathers -----------------------------------------------------------------------
#
# gather(src, idx[8], wm[8]) (des_gfni_avx512.c): byte b, bit m of the result
# qword = bit (idx[m] byte b) of the source qword, or 0 where wm[m] has a 0.
# Blocks and keys are loaded little-endian: FIPS bit n (1 = MSB of byte 0)
# of a block is qword bit 8 * ((n - 1) // 8) + 7 - (n - 1) % 8.


def qbit(n):
    return 8 * ((n - 1) // 8) + 7 - (n - 1) % 8


def lanes(pattern8):
    """An 8-bit per-qword pattern repeated over the 8 qwords of a zmm mask."""
    return sum(pattern8 << (8 * q) for q in range(8))


def cell_masks():
    return [lanes(sum(1 << d for d in range(8) if cell(d, m))) for m in range(8)]


def row_gather(bit_pos):
    """Indices that build a row form from bit_pos(bit of V) = source qword bit."""
    idx = []
    for m in range(8):
        v = 0
        for b in range(8):
            ce = cell(b, m)
            v |= (bit_pos(ce[0]) if ce else 0) << (8 * b)
        idx.append(v)
    return idx


IN_L = row_gather(lambda r: qbit(D.IP[r - 1]))
IN_R = row_gather(lambda r: qbit(D.IP[32 + r - 1]))


def some_cell(r):
    for d in range(8):
        for c in range(8):
            ce = cell(d, c)
            if ce and ce[0] == r:
                return 8 * d + c
    raise AssertionError(r)


def out_gathers():
    """The output block FP(R16 L16) from the row forms of L16 and R16."""
    il, ir, lmask = [0] * 8, [0] * 8, [0] * 8
    for b in range(8):
        for m in range(8):
            n = 8 * b + (7 - m) + 1   # FIPS bit at qword byte b, bit m
            p = D.FP[n - 1]           # preoutput bit: R16 (1..32), L16 (33..64)
            if p <= 32:
                ir[m] |= some_cell(p) << (8 * b)
            else:
                il[m] |= some_cell(p - 32) << (8 * b)
                lmask[m] |= 1 << b
    return il, ir, [lanes(x) for x in lmask]


OUT_L, OUT_R, OUT_LMASK = out_gathers()


def key_selection():
    """KSEL[i][j]: FIPS bit (1..64) of the key that is bit j (1..48) of round key i."""
    cd = list(D.PC1)
    c, d = cd[:28], cd[28:]
    res = []
    for s in D.SHIFTS:
        c = c[s:] + c[:s]
        d = d[s:] + d[:s]
        cdn = c + d
        res.append([cdn[D.PC2[j] - 1] for j in range(48)])
    return res


KSEL = key_selection()


def key_gathers():
    """KEY[m][i]: indices building round key i in row form from the key qword."""
    res = [[0] * 16 for _ in range(8)]
    for i in range(16):
        for m in range(8):
            v = 0
            for b in range(8):
                ce = cell(b, m)
                if ce:
                    v |= qbit(KSEL[i][6 * b + ce[1]]) << (8 * b)
            res[m][i] = v
    return res


KEY = key_gathers()
CELLS = cell_masks()

# ---- a model of the kernel, checked against the reference DES ----------------------------


def gather(src, idx, wm):
    out = 0
    for m in range(8):
        for b in range(8):
            if (wm[m] >> b) & 1:
                out |= ((src >> ((idx[m] >> (8 * b)) & 63)) & 1) << (8 * b + m)
    return out


def to_q(x, nbytes=8):
    """FIPS big-endian integer -> little-endian qword value."""
    return int.from_bytes(x.to_bytes(nbytes, "big"), "little")


def model_round(l, r, k):
    x = r ^ k
    idx = affine(x, COMPACT)
    dd = 0
    for s in range(8):
        dd |= SBOXES[s][(idx >> (8 * s)) & 63] << (8 * s)
    return r, l ^ affine(TRANSPOSE, dd)


def model_keys(key):
    kq = to_q(key)
    cm = [(x & 255) for x in CELLS]
    return [gather(kq, [KEY[m][i] for m in range(8)], cm) for i in range(16)]


def model_des(keys, block, passes):
    """passes: list of (key index, decrypt)."""
    bq = to_q(block)
    cm = [(x & 255) for x in CELLS]
    l, r = gather(bq, IN_L, cm), gather(bq, IN_R, cm)
    for n, (ki, dec) in enumerate(passes):
        if n:
            l, r = r, l
        ks = keys[ki][::-1] if dec else keys[ki]
        for k in ks:
            l, r = model_round(l, r, k)
    lm = [x & 255 for x in OUT_LMASK]
    out = gather(l, OUT_L, lm) | gather(r, OUT_R, [255 ^ x for x in lm])
    return int.from_bytes(out.to_bytes(8, "little"), "big")


def self_check():
    for d in range(8):
        assert len(FEED[d]) == 6
    assert model_des([model_keys(0x133457799BBCDFF1)], 0x0123456789ABCDEF, [(0, 0)]) == 0x85E813540F0AB405
    rng = random.Random(1)
    for _ in range(40):
        k = [rng.getrandbits(64) for _ in range(3)]
        b = rng.getrandbits(64)
        mk = [model_keys(x) for x in k]
        assert model_des(mk, b, [(0, 0)]) == D.des_ref(k[0], b)
        assert model_des(mk, b, [(0, 1)]) == D.des_ref(k[0], b, True)
        ede = D.des_ref(k[2], D.des_ref(k[1], D.des_ref(k[0], b), True))
        assert model_des(mk, b, [(0, 0), (1, 1), (2, 0)]) == ede
        ded = D.des_ref(k[0], D.des_ref(k[1], D.des_ref(k[2], b, True)), True)
        assert model_des(mk, b, [(2, 1), (1, 0), (0, 1)]) == ded


# ---- output ---------------------------------------------------------------------------------

def q64(name, vals, per_line=4, align=""):
    lines = []
    for i in range(0, len(vals), per_line):
        lines.append("\t" + " ".join("0x%016xull," % v for v in vals[i:i + per_line]))
    return "static const %suint64_t %s[%d] = {\n%s\n};\n" % (align, name, len(vals), "\n".join(lines))


def render():
    out = ["/* Generated by gen/des_gfni_tables.py; do not edit. */",
           "#ifndef FB_DES_GFNI_TABLES_H", "#define FB_DES_GFNI_TABLES_H", "#include <stdint.h>", "",
           "/* gf2p8affineqb matrices: index compaction and the transposition */",
           "#define DES_GFNI_COMPACT 0x%016xull" % COMPACT,
           "#define DES_GFNI_TRANSPOSE 0x%016xull" % TRANSPOSE, "",
           "/* S-box s's 64-byte table for byte s of every lane */",
           "static const _Alignas(64) uint8_t des_gfni_sbox[8][64] = {"]
    for s in range(8):
        t = SBOXES[s]
        out.append("\t{")
        for i in range(0, 64, 16):
            out.append("\t\t" + " ".join("0x%02x," % v for v in t[i:i + 16]))
        out.append("\t},")
    out.append("};")
    out.append("")
    out.append("/* Bit gathers (index bytes per qword; write masks over 8 qwords) */")
    out.append(q64("des_gfni_cells", CELLS))
    out.append(q64("des_gfni_in_l", IN_L))
    out.append(q64("des_gfni_in_r", IN_R))
    out.append(q64("des_gfni_out_l", OUT_L))
    out.append(q64("des_gfni_out_r", OUT_R))
    out.append(q64("des_gfni_out_lmask", OUT_LMASK))
    out.append("/* des_gfni_key[m][i]: round key i in row form, column m, from the key qword */")
    out.append("static const _Alignas(64) uint64_t des_gfni_key[8][16] = {")
    for m in range(8):
        out.append("\t{")
        for i in range(0, 16, 4):
            out.append("\t\t" + " ".join("0x%016xull," % v for v in KEY[m][i:i + 4]))
        out.append("\t},")
    out.append("};")
    out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    self_check()
    text = render()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
