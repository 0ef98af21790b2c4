#!/usr/bin/env python3
# output: src/des/des_vperm_tables.h
"""Tables for des_vperm_avx512.c: DES with S-box lookups by vpermi2b, one
block per 64-bit lane (8 blocks per zmm), no memory lookups (constant-time).

The halves L and R are kept in a "T layout" of 8 bytes: byte j holds, in
bits 0..5, output bits of S-box j (bits 0..3 its four outputs in some order,
bits 4..5 copies of the two that E duplicates). The layout comes from an
edge colouring of the graph "S-box j's output feeds input t of S-box p next
round" (each S-box feeds six others; each has six inputs): the edge with
colour i lives in bit i of byte j and becomes bit i of the index byte of
S-box p. So the next round's index byte i-th bits are one vpermb (byte p <-
byte A[p][i]) per colour i and five bit-selects, and the S-box tables read
their six index bits in that permuted order and answer in T layout, so that
P and E cost nothing. IP, P and FP on entry and exit are a Benes network of
delta swaps on each block's qword.

Usage: python3 gen/des_vperm_tables.py OUTPATH
"""
import random
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import des_tables as D  # noqa: E402


# ---- the feeding graph and its colouring -------------------------------------------

def edges():
    """(p, t, j, k): input t (0..5 = b1..b6) of S-box p is output bit k
    (0 = most significant) of S-box j in the previous round."""
    res = []
    for p in range(8):
        for t in range(6):
            q = D.P[D.E[6 * p + t] - 1] - 1
            res.append((p, t, q // 4, q % 4))
    return res


def colouring():
    """colour[(p, t)] in 0..5: distinct over the six inputs of each S-box p
    and over the six edges out of each S-box j, with each output k of j on
    exactly one edge coloured 0..3 (its 'primary' bit) and the two copies E
    makes on colours 4, 5. Deterministic backtracking."""
    import itertools
    out = {}
    for e in edges():
        out.setdefault(e[2], []).append(e)
    options = []
    for j in range(8):
        es = out[j]
        byk = {}
        for e in es:
            byk.setdefault(e[3], []).append(e)
        ks = sorted(byk)
        assert len(es) == 6 and len(ks) == 4 and len({e[0] for e in es}) == 6
        opts = []
        for prim in itertools.product(*[range(len(byk[k])) for k in ks]):
            primary = [byk[k][i] for k, i in zip(ks, prim)]
            extra = [e for e in es if e not in primary]
            for pc in itertools.permutations(range(4)):
                for xc in itertools.permutations((4, 5)):
                    col = {e: c for e, c in zip(primary, pc)}
                    col.update({e: c for e, c in zip(extra, xc)})
                    opts.append(col)
        options.append(opts)
    chosen = {}

    def bt(j, used):
        if j == 8:
            return True
        for col in options[j]:
            if all((e[0], c) not in used for e, c in col.items()):
                for e, c in col.items():
                    used.add((e[0], c))
                    chosen[e] = c
                if bt(j + 1, used):
                    return True
                for e, c in col.items():
                    used.discard((e[0], c))
                    del chosen[e]
        return False

    assert bt(0, set())
    return {(e[0], e[1]): c for e, c in chosen.items()}


COL = colouring()
EDGES = edges()
# A[p][i]: the S-box whose T byte feeds colour i of S-box p's index
A = [[None] * 6 for _ in range(8)]
# TPOS[p][i]: the input t (0 = b1) of S-box p at index bit i
TPOS = [[None] * 6 for _ in range(8)]
# TBIT[j][i]: the output k of S-box j kept in bit i of its T byte
TBIT = [[None] * 6 for _ in range(8)]
for (p, t, j, k) in EDGES:
    i = COL[(p, t)]
    A[p][i], TPOS[p][i] = j, t
    TBIT[j][i] = k
# NIB[j][c]: the output k of S-box j in nibble bit c (= T bit c, c < 4)
NIB = [TBIT[j][:4] for j in range(8)]
for j in range(8):
    assert sorted(NIB[j]) == [0, 1, 2, 3]


def t_byte(j, v):
    """T byte of S-box j for output value v (4 bits, output k = bit 3-k)."""
    return sum(((v >> (3 - TBIT[j][i])) & 1) << i for i in range(6))


def sbox_table(p):
    """64 entries: index x with bit i = input TPOS[p][i] -> T byte of S_p."""
    res = []
    for x in range(64):
        v = 0  # b1..b6, b1 = bit 5
        for i in range(6):
            if (x >> i) & 1:
                v |= 1 << (5 - TPOS[p][i])
        res.append(t_byte(p, D.sbox(p, v)))
    return res


def expand_table():
    """128 entries: (j << 4) | nibble -> T byte of S-box j (nibble bit c =
    output NIB[j][c])."""
    res = []
    for j in range(8):
        for nib in range(16):
            v = sum(((nib >> c) & 1) << (3 - NIB[j][c]) for c in range(4))
            res.append(t_byte(j, v))
    return res


def key_positions():
    """kp[p][i]: the round-key bit (0..47, 0 = first) XORed into bit i of T
    byte A[p][i] (it reaches index bit i of S-box p)."""
    return [[6 * p + TPOS[p][i] for i in range(6)] for p in range(8)]


# ---- Benes networks on a 64-bit word -------------------------------------------------

def benes(src):
    """Delta-swap stages (shift, mask) realising out bit y = in bit src[y]
    for a permutation src of 0..63 (the looping algorithm). Each stage:
    t = ((x >> s) ^ x) & m; x ^= t ^ (t << s)."""
    def route(src, n):
        # returns list of stages; each stage a set of lower positions to swap
        if n == 2:
            return [{0} if src[0] == 1 else set()]
        h = n // 2
        dst = [0] * n
        for y, x in enumerate(src):
            dst[x] = y
        side = [None] * n  # subnetwork (0 lower, 1 upper) of each input
        for start in range(n):
            x = start
            while side[x] is None:  # follow the cycle: x's side stays 0
                side[x], side[x ^ h] = 0, 1
                # x ^ h is upper; the output paired with its destination
                # must be reached through the lower side
                x = src[dst[x ^ h] ^ h]
        # first stage: input x goes to position (x mod h) + h*side[x]
        first = {x for x in range(h) if side[x] == 1}
        sub = [[0] * h, [0] * h]
        last = set()
        for y in range(h):
            # outputs y and y+h: one from each side
            xa, xb = src[y], src[y + h]
            if side[xa] == 0:
                sub[0][y], sub[1][y] = xa % h, xb % h
            else:
                sub[1][y], sub[0][y] = xa % h, xb % h
                last.add(y)
        r0, r1 = route(sub[0], h), route(sub[1], h)
        mid = [a | {v + h for v in b} for a, b in zip(r0, r1)]
        return [first] + mid + [last]
    stages = route(list(src), 64)
    shifts = [32, 16, 8, 4, 2, 1, 2, 4, 8, 16, 32]
    res = []
    for s, st in zip(shifts, stages):
        # in route() a swap at lower position x of block size 2s pairs x, x+s
        res.append((s, sum(1 << x for x in st)))
    return res


def run_benes(stages, x):
    for s, m in stages:
        t = ((x >> s) ^ x) & m
        x ^= t ^ (t << s)
    return x


def checked_benes(src):
    st = benes(src)
    rnd = random.Random(7)
    for _ in range(200):
        x = rnd.getrandbits(64)
        y = run_benes(st, x)
        for pos in range(64):
            assert (y >> pos) & 1 == (x >> src[pos]) & 1
    return [(s, m) for s, m in st if m]


def qpos(d):
    """Position in the little-endian qword of FIPS data bit d (0-based)."""
    return 8 * (d >> 3) + 7 - (d & 7)


def half_bit(j, c):
    """FIPS bit r (1-based) of a half held in nibble bit c of byte j."""
    q = 4 * j + NIB[j][c]  # pre-P position 0..31
    return D.P.index(q + 1) + 1


def in_permutation():
    """packed-nibble word (L in low nibbles, R in high) <- block qword, IP included."""
    src = [0] * 64
    for j in range(8):
        for c in range(4):
            r = half_bit(j, c)
            src[8 * j + c] = qpos(D.IP[r - 1] - 1)
            src[8 * j + 4 + c] = qpos(D.IP[32 + r - 1] - 1)
    return src


def out_permutation():
    """block qword <- packed nibbles of the preoutput (R16 low, L16 high), FP included."""
    where = {}
    for j in range(8):
        for c in range(4):
            r = half_bit(j, c)
            where[r] = 8 * j + c
            where[32 + r] = 8 * j + 4 + c
    src = [0] * 64
    for d in range(64):
        src[qpos(d)] = where[D.FP[d]]
    return src


# ---- a model of the C code -------------------------------------------------------------

def model(key, block, decrypt=False):
    """One block through exactly the C kernel's steps."""
    ks = D.subkeys(key)
    if decrypt:
        ks = ks[::-1]
    kp = key_positions()
    sb = [sbox_table(p) for p in range(8)]
    ex = expand_table()
    qw = int.from_bytes(block.to_bytes(8, "big"), "little")
    nib = run_benes(benes(in_permutation()), qw)
    lo = [ex[(j << 4) | ((nib >> (8 * j)) & 15)] for j in range(8)]
    hi = [ex[(j << 4) | ((nib >> (8 * j + 4)) & 15)] for j in range(8)]
    a, b = lo, hi
    for r, k in enumerate(ks):
        kt = round_key_t(k, kp)
        x = [b[j] ^ kt[j] for j in range(8)]
        f = []
        for p in range(8):
            idx = 0
            for i in range(6):
                idx |= ((x[A[p][i]] >> i) & 1) << i
            assert (x[A[p][0]] >> 6) & 1 == p & 1
            f.append(sb[p][idx])
        a = [a[j] ^ f[j] for j in range(8)]
        a, b = b, a
    # after 16 rounds with the swap above: a = L16, b = R16 (preoutput R16 || L16)
    packed = sum((b[j] & 15) << (8 * j) | (a[j] & 15) << (8 * j + 4) for j in range(8))
    out = run_benes(benes(out_permutation()), packed)
    return int.from_bytes(out.to_bytes(8, "little"), "big")


def round_key_t(k48, kp):
    """The round key (48 bits, first bit = bit 47) in T layout, with bit 6 of
    the byte that feeds colour 0 of S-box p set to p & 1 (the vpermi2b table
    select)."""
    kt = [0] * 8
    for p in range(8):
        for i in range(6):
            bit = (k48 >> (47 - kp[p][i])) & 1
            kt[A[p][i]] |= bit << i
        kt[A[p][0]] |= (p & 1) << 6
    return kt


def self_check():
    rnd = random.Random(3)
    for _ in range(64):
        k, x = rnd.getrandbits(64), rnd.getrandbits(64)
        y = model(k, x)
        assert y == D.des_ref(k, x)
        assert model(k, y, True) == x


# ---- C output ---------------------------------------------------------------------------

def c_bytes(name, vals, per=16):
    out = [f"static const uint8_t {name}[{len(vals)}] __attribute__((aligned(64))) = {{"]
    for i in range(0, len(vals), per):
        out.append("\t" + ", ".join(str(v) for v in vals[i:i + per]) + ",")
    out.append("};")
    return "\n".join(out)


def render():
    perms = []
    for i in range(6):
        perms.append([8 * (b // 8) + A[b % 8][i] for b in range(64)])
    sboxes = []
    for m in range(4):
        sboxes.append(sbox_table(2 * m) + sbox_table(2 * m + 1))
    keyt = []  # for each T byte j and bit i (6 bits): the round-key bit index
    for j in range(8):
        row = []
        for i in range(6):
            p = next(p for p in range(8) if A[p][i] == j)
            row.append(key_positions()[p][i])
        keyt.append(row)
    sel = [next(p for p in range(8) if A[p][0] == j) & 1 for j in range(8)]
    bin_, bout = checked_benes(in_permutation()), checked_benes(out_permutation())
    lines = [
        "/* Generated by gen/des_vperm_tables.py from FIPS 46-3 (gen/des_tables.py); do not edit. */",
        "#ifndef FB_DES_VPERM_TABLES_H",
        "#define FB_DES_VPERM_TABLES_H",
        "#include <stdint.h>",
        "",
        "/* vpermb indices: colour i of every index byte p comes from T byte A[p][i]. */",
    ]
    for i in range(6):
        lines.append(c_bytes(f"des_vp_perm{i}", perms[i]))
    lines.append("")
    lines.append("/* S-boxes 2m (entries 0..63) and 2m+1 (64..127): index bits in colour order -> T byte. */")
    for m in range(4):
        lines.append(c_bytes(f"des_vp_sbox{m}", sboxes[m]))
    lines += [
        "",
        "/* (j << 4) | nibble -> T byte of S-box j (entry into T layout). */",
        c_bytes("des_vp_expand", expand_table()),
        "",
        "/* Round key in T layout: bit i of byte j is round-key bit des_vp_key_bit[j][i]",
        " * (0 = first of 48); bit 6 of byte j is des_vp_key_sel[j] (vpermi2b table select). */",
        "static const uint8_t des_vp_key_bit[8][6] __attribute__((unused)) = {",
    ]
    for row in keyt:
        lines.append("\t{" + ", ".join(map(str, row)) + "},")
    lines += [
        "};",
        "static const uint8_t des_vp_key_sel[8] __attribute__((unused)) = {" + ", ".join(map(str, sel)) + "};",
        "/* vpermb index gathering a round key's 48 bytes (0/0xFF, in round-key order,",
        " * bytes 48..63 zero) into T layout, bit i of byte j at byte 8j+i; the table",
        " * select (bit 6) is ORed in afterwards. */",
        c_bytes("des_vp_key_gather", [keyt[j][i] if i < 6 else 63 for j in range(8) for i in range(8)]),
        "#define DES_VP_KEY_SEL 0x" + "".join("%02x" % (sel[j] << 6) for j in reversed(range(8))) + "ull",
        "",
        "/* Benes networks (shift, mask) on each block's little-endian qword:",
        " * in: block -> nibbles (L in the low, R in the high nibble of byte j), IP included;",
        " * out: nibbles of R16 (low) and L16 (high) -> block, FP included. */",
        f"#define DES_VP_BENES_IN_STAGES {len(bin_)}",
        "static const uint64_t des_vp_benes_in[][2] __attribute__((unused)) = {",
    ]
    for s, m in bin_:
        lines.append(f"\t{{{s}, 0x{m:016x}ull}},")
    lines += ["};", f"#define DES_VP_BENES_OUT_STAGES {len(bout)}",
              "static const uint64_t des_vp_benes_out[][2] __attribute__((unused)) = {"]
    for s, m in bout:
        lines.append(f"\t{{{s}, 0x{m:016x}ull}},")
    lines += ["};", "", "#endif", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    self_check()
    text = render()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
