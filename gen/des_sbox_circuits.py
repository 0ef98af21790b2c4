#!/usr/bin/env python3
# output: src/des/des_bs_sboxes.h
"""Bitsliced DES: S-box circuits and plane maps for the des/bs-* kernels.

The circuits live in gen/des_sbox_circuits.txt, found by gen/des_sbox_search.c
(our own search; see the comment at its top for the method and the ideas it
borrows) and shrunk by gen/des_sbox_resub.py. This script checks every circuit against the S-boxes of FIPS 46-3
(taken from gen/des_tables.py), checks a whole bitsliced DES built from them
against the reference DES there, and writes the C header.

Usage:
  python3 gen/des_sbox_circuits.py OUTPATH
      write the header (the committed src/des/des_bs_sboxes.h)
  python3 gen/des_sbox_circuits.py --search lut|gate|gatep SECONDS [SBOX ...]
      compile and run the search, keep any circuit smaller than the one in
      gen/des_sbox_circuits.txt (rewrites that file)
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import des_tables as D  # noqa: E402

CIRCUITS = os.path.join(HERE, "des_sbox_circuits.txt")
SEARCH_SRC = os.path.join(HERE, "des_sbox_search.c")
MODES = ("lut", "gate")
# Sections of the circuit file: MODES, and "gatep", a two-input circuit (NOT
# gates allowed) searched with NOTs free for the single-key rounds, which
# absorb them (absorb_nots); where an S-box has none, its gate circuit serves.
SOURCES = MODES + ("gatep",)
M64 = (1 << 64) - 1


# ---- truth tables --------------------------------------------------------------

def input_tt(i):
    """Truth table of S-box input b(i+1) over x = b1..b6 (b1 = bit 5)."""
    return sum(1 << x for x in range(64) if (x >> (5 - i)) & 1)


def output_tt(s, k):
    """Truth table of output bit k (0 = most significant) of S-box s (0-based)."""
    return sum(1 << x for x in range(64) if (D.sbox(s, x) >> (3 - k)) & 1)


def lut3(x, y, z, imm):
    r = 0
    for k in range(8):
        if (imm >> k) & 1:
            r |= (x if k & 4 else ~x & M64) & (y if k & 2 else ~y & M64) & (z if k & 1 else ~z & M64)
    return r


GATE2 = {
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "andn": lambda x, y: ~x & y & M64,
}


# ---- circuit file ----------------------------------------------------------------

class Circuit:
    def __init__(self, sbox, mode):
        self.sbox, self.mode = sbox, mode
        self.nodes = []      # (name, op, args, imm)
        self.outs = [None] * 4  # (node, negated)

    def gates(self):
        return len(self.nodes)

    def evaluate(self, inputs):
        """inputs: six integers (truth tables or bit planes). Returns dict."""
        val = {f"n{i}": inputs[i] for i in range(6)}
        for name, op, args, imm in self.nodes:
            a = [val[x] for x in args]
            if op == "lut":
                val[name] = lut3(a[0], a[1], a[2], imm)
            elif op == "not":
                val[name] = ~a[0] & M64
            else:
                val[name] = GATE2[op](a[0], a[1])
        return val

    def check(self):
        val = self.evaluate([input_tt(i) for i in range(6)])
        for k, (node, neg) in enumerate(self.outs):
            got = val[node] ^ (M64 if neg else 0)
            if got != output_tt(self.sbox, k):
                raise SystemExit(f"S-box {self.sbox + 1} {self.mode}: output {k} is wrong")
            if neg and self.mode == "gate":
                raise SystemExit(f"S-box {self.sbox + 1} gate: complemented output")

    def merges(self):
        """Outputs whose XOR into L folds into their last gate: a LUT that
        uses two of its inputs and feeds nothing else becomes
        ternlog(L, u, v). Returns {k: (u, v, imm)}."""
        if self.mode != "lut":
            return {}
        used = {}
        for _, _, args, _ in self.nodes:
            for a in args:
                used[a] = used.get(a, 0) + 1
        for node, _ in self.outs:
            used[node] = used.get(node, 0) + 1
        byname = {n[0]: n for n in self.nodes}
        res = {}
        for k, (node, neg) in enumerate(self.outs):
            if node not in byname or used[node] != 1:
                continue
            _, _, args, imm = byname[node]
            deps = [i for i in range(3) if any(((imm >> e) & 1) != ((imm >> (e | (4 >> i))) & 1)
                                                for e in range(8) if not e & (4 >> i))]
            if len(deps) > 2:
                continue
            deps = (deps + [d for d in range(3) if d not in deps])[:2]
            u, v = args[deps[0]], args[deps[1]]
            new = 0
            for e in range(8):  # e = (L, u, v)
                idx = 0
                for i, d in enumerate(deps):
                    if (e >> (1 - i)) & 1:
                        idx |= 4 >> d
                bit = ((imm >> idx) & 1) ^ (e >> 2) ^ int(neg)
                new |= bit << e
            res[k] = (u, v, new)
        return res

    def cost(self):
        return self.gates() + 4 - len(self.merges())

    def text(self):
        lines = [f"sbox {self.sbox + 1} {self.mode} gates {self.gates()} cost {self.cost()}"]
        for name, op, args, imm in self.nodes:
            if op == "lut":
                lines.append(f"{name} = lut 0x{imm:02x} {' '.join(args)}")
            else:
                lines.append(f"{name} = {op} {' '.join(args)}")
        for k, (node, neg) in enumerate(self.outs):
            lines.append(f"out{k} = {'~' if neg else ''}{node}")
        lines.append("end")
        return "\n".join(lines)


def parse(lines, sbox, mode):
    c = Circuit(sbox, mode)
    for line in lines:
        lhs, rhs = [s.strip() for s in line.split("=")]
        if lhs.startswith("out"):
            neg = rhs.startswith("~")
            c.outs[int(lhs[3:])] = (rhs.lstrip("~"), neg)
            continue
        w = rhs.split()
        if w[0] == "lut":
            c.nodes.append((lhs, "lut", w[2:5], int(w[1], 16)))
        else:
            c.nodes.append((lhs, w[0], w[1:], 0))
    return c


def read_circuits(path=CIRCUITS):
    circs = {}
    with open(path) as f:
        block, head = [], None
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("sbox "):
                w = line.split()
                head, block = (int(w[1]) - 1, w[2]), []
            elif line == "end":
                circs[head] = parse(block, *head)
                head = None
            else:
                block.append(line)
    return circs


def write_circuits(circs, path=CIRCUITS):
    with open(path, "w") as f:
        f.write("# DES S-box circuits for bitsliced DES, found by gen/des_sbox_search.c\n"
                "# (driven by gen/des_sbox_circuits.py --search) and shrunk by\n"
                "# gen/des_sbox_resub.py (resubstitution). Nodes n0..n5 are the S-box\n"
                "# inputs b1..b6; 'lut 0xII a b c' is vpternlog with immediate II and\n"
                "# operands a, b, c (a is the most significant index bit); 'andn a b' is\n"
                "# ~a & b; out0..out3 are the outputs, most significant first ('~' =\n"
                "# complemented, lut mode only). cost = gates + XORs into L not folded.\n"
                "# 'gatep' sections: two-input circuits searched with NOT gates free\n"
                "# (des_sbox_search.c gatep) for the single-key rounds, which absorb\n"
                "# the NOTs; S-boxes without one use their gate circuit there.\n")
        for mode in SOURCES:
            for s in range(8):
                if (s, mode) in circs:
                    f.write("\n" + circs[(s, mode)].text() + "\n")


# ---- NOT gates absorbed (des/bs-avx2's single-key rounds) ---------------------------
#
# A node may be kept complemented: each two-input gate then takes its inputs
# as they are kept and picks the operation that gives its function or the
# complement (AND of two complemented inputs is a complemented OR, and so
# on), so a NOT costs nothing. What is left are outputs that come out
# complemented. XORed into L as they are, they leave some planes of the new
# R complemented; the next round's key XOR takes that back (x ^ ~k = ~x ^ k)
# if its key words are flipped where E reads those planes. With the same
# circuits every round, R_r is complemented (on the planes of complemented
# outputs) for r = 1, 2 mod 4 and exact for r = 0, 3 mod 4, so after 16
# rounds nothing is complemented: the flips are a fixed pattern of round
# keys 1, 2, 5, 6, 9, 10, 13, 14, symmetric under r -> 15 - r, so one
# schedule serves both directions.

# (op, pol_a, pol_b) -> (op emitted, swap operands, output polarity)
POLARITY = {
    ("and", 0, 0): ("and", 0, 0), ("and", 1, 0): ("andn", 0, 0),
    ("and", 0, 1): ("andn", 1, 0), ("and", 1, 1): ("or", 0, 1),
    ("or", 0, 0): ("or", 0, 0), ("or", 1, 1): ("and", 0, 1),
    ("or", 1, 0): ("andn", 1, 1), ("or", 0, 1): ("andn", 0, 1),
    ("andn", 0, 0): ("andn", 0, 0), ("andn", 1, 0): ("and", 0, 0),
    ("andn", 0, 1): ("or", 0, 1), ("andn", 1, 1): ("andn", 1, 0),
}
FLIP_ROUNDS = [r for r in range(16) if r % 4 in (1, 2)]


def absorb_nots(c):
    """The two-input circuit c without its NOT gates (mode gatep); outputs
    may come out complemented (neg)."""
    q = Circuit(c.sbox, "gatep")
    val = {f"n{i}": (f"n{i}", 0) for i in range(6)}
    for name, op, args, _ in c.nodes:
        if op == "not":
            node, pol = val[args[0]]
            val[name] = (node, pol ^ 1)
            continue
        (a, pa), (b, pb) = val[args[0]], val[args[1]]
        if op == "xor":
            q.nodes.append((name, "xor", [a, b], 0))
            val[name] = (name, pa ^ pb)
            continue
        emit, swap, pol = POLARITY[(op, pa, pb)]
        q.nodes.append((name, emit, [b, a] if swap else [a, b], 0))
        val[name] = (name, pol)
    q.outs = [val[node] for node, _ in c.outs]
    q.check()
    return q


def gatep_flips(circs):
    """flip[j]: round-key word j is flipped in rounds FLIP_ROUNDS (the R plane
    that E brings to S-box input j is kept complemented there)."""
    comp = [0] * 32
    pinv = p_inverse()
    for s in range(8):
        for k, (_, neg) in enumerate(circs[(s, "gatep")].outs):
            comp[pinv[4 * s + k]] = int(neg)
    return [comp[p] for p in e_planes()]


# ---- plane maps ------------------------------------------------------------------
#
# State planes: st[0..31] = L bits 1..32, st[32..63] = R bits 1..32.
# Data planes: d = 0..63 is FIPS bit d+1 of the block (byte d/8, bit 7-d%8).

def e_planes():
    return [e - 1 for e in D.E]


def p_inverse():
    """pinv[q] = f-output bit (0-based) receiving pre-P bit q (S-box output)."""
    pinv = [0] * 32
    for i, src in enumerate(D.P):
        pinv[src - 1] = i
    return pinv


def ip_state_of_data():
    """st index that data plane d becomes after IP."""
    m = [0] * 64
    for j, src in enumerate(D.IP):
        m[src - 1] = j
    return m


def state_of_output():
    """After an odd number of DES passes (A = st[0..31] = L16, B = R16) the
    preoutput is R16 || L16; output data plane d is preoutput bit FP[d]."""
    res = []
    for d in range(64):
        i = D.FP[d]  # 1-based preoutput bit
        res.append(32 + i - 1 if i <= 32 else i - 33)
    return res


def key_bits():
    """kb[r][j]: key bit (0 = MSB of key byte 0, FIPS bit 1) that is bit j of round key r."""
    # follow each of the 56 PC-1 positions through the rotations and PC-2
    c = [p - 1 for p in D.PC1[:28]]
    d = [p - 1 for p in D.PC1[28:]]
    res = []
    for s in D.SHIFTS:
        c = c[s:] + c[:s]
        d = d[s:] + d[:s]
        cd = c + d
        res.append([cd[p - 1] for p in D.PC2])
    return res


def lane_key_tables():
    """The multi-stream engine's per-lane key planes (des_bs_avx512.c): plane k
    (k < 56) is bit k mod 28 of C0, plane 56 + k bit k mod 28 of D0, each copied
    from the transposed key plane src[k] (key bit d lands at IP slot
    ip_state_of_data()[d]); round-key bit j before rotation is plane off[j];
    round r has rotated C and D left by rot[r] in all (mod 28)."""
    ip = ip_state_of_data()
    src = [ip[D.PC1[(0 if k < 56 else 28) + k % 28] - 1] for k in range(112)]
    off = [p - 1 if p <= 28 else 56 + p - 29 for p in D.PC2]
    rot, t = [], 0
    for s in D.SHIFTS:
        t = (t + s) % 28
        rot.append(t)
    return src, off, rot


# ---- a whole bitsliced DES modelled in Python --------------------------------------

def bs_des_model(circs, mode, key, blocks, decrypt=False):
    """Runs the bitsliced structure (one lane per block) with the circuits and
    the plane maps the C code uses; returns the output blocks."""
    n = len(blocks)
    allones = (1 << n) - 1
    data = [sum(((b >> (63 - dd)) & 1) << lane for lane, b in enumerate(blocks)) for dd in range(64)]
    st = [0] * 64
    for dd, j in enumerate(ip_state_of_data()):
        st[j] = data[dd]
    kb = key_bits()
    rounds = list(range(16))
    if decrypt:
        rounds.reverse()
    e, pinv = e_planes(), p_inverse()
    flip = gatep_flips(circs) if mode == "gatep" else [0] * 48
    a, b = 0, 32
    for i, r in enumerate(rounds):
        dst, src = (a, b) if i % 2 == 0 else (b, a)
        for s in range(8):
            ins = []
            for t in range(6):
                kbit = (key >> (63 - kb[r][6 * s + t])) & 1
                kbit ^= flip[6 * s + t] if r in FLIP_ROUNDS else 0
                ins.append(st[src + e[6 * s + t]] ^ (allones if kbit else 0))
            c = circs[(s, mode)]
            val = c.evaluate(ins)
            for k, (node, neg) in enumerate(c.outs):
                neg = neg and mode != "gatep"  # gatep: left complemented
                st[dst + pinv[4 * s + k]] ^= val[node] ^ (allones if neg else 0)
                st[dst + pinv[4 * s + k]] &= allones
    out = [0] * n
    for dd, j in enumerate(state_of_output()):
        for lane in range(n):
            out[lane] |= ((st[j] >> lane) & 1) << (63 - dd)
    return out


def self_check(circs):
    for c in circs.values():
        c.check()
    rnd = random.Random(4)
    for mode in MODES + ("gatep",):
        for _ in range(4):
            key = rnd.getrandbits(64)
            blocks = [rnd.getrandbits(64) for _ in range(16)]
            enc = bs_des_model(circs, mode, key, blocks)
            assert enc == [D.des_ref(key, x) for x in blocks], mode
            assert bs_des_model(circs, mode, key, enc, True) == blocks, mode


# ---- C output -----------------------------------------------------------------------

def permute_lut(imm, order):
    """The immediate of LUT(args[order[0]], args[order[1]], args[order[2]])
    computing the same function as LUT(args[0], args[1], args[2], imm)."""
    new = 0
    for e in range(8):
        bits = [(e >> 2) & 1, (e >> 1) & 1, e & 1]  # values of the new operands
        old = [0, 0, 0]
        for pos, src in enumerate(order):
            old[src] = bits[pos]
        new |= ((imm >> (old[0] << 2 | old[1] << 1 | old[2])) & 1) << e
    return new


def schedule(nodes, keep):
    """Reorders the gates (a topological order) so that as many as possible
    are the last use of one of their operands: vpternlog overwrites its first
    operand, and a gate that is no operand's last use costs a register copy.
    Randomized greedy (fixed seed), best of a few hundred orders."""
    names = [n[0] for n in nodes]
    # lists in a fixed order (not sets): the output must not depend on hashing
    ops = {n[0]: sorted(set(n[2])) for n in nodes}
    users = {}
    for nm in names:
        for a in ops[nm]:
            users.setdefault(a, []).append(nm)
    rnd = random.Random(46)

    def one(greedy):
        left_users = {a: len(u) for a, u in users.items()}
        waiting = {nm: sum(1 for a in ops[nm] if a in ops) for nm in names}
        ready = [nm for nm in names if waiting[nm] == 0]
        order, copies = [], 0
        while ready:
            killers = [nm for nm in ready if any(left_users[a] == 1 and a not in keep for a in ops[nm])]
            pool = killers if killers else ready
            pick = pool[0] if greedy else pool[rnd.randrange(len(pool))]
            copies += not killers
            order.append(pick)
            ready.remove(pick)
            for a in ops[pick]:
                left_users[a] -= 1
            for u in users.get(pick, ()):
                waiting[u] -= 1
                if waiting[u] == 0:
                    ready.append(u)
        return copies, order

    best = one(True)
    for _ in range(300):
        best = min(best, one(False), key=lambda r: r[0])
    byname = {n[0]: n for n in nodes}
    return [byname[nm] for nm in best[1]]


def latest_first(body_nodes, keep):
    """vpternlog's result waits 1 cycle on its first (destination) operand but
    ~2 on the other two (AMD Zen 4, zmm), so each gate takes first the input
    that makes its result earliest, the latest one: the S-boxes' longest
    chains fall from 30 to 19 cycles a round and the round runs ~1.15x faster.
    Where that is a tie, an input whose last use is this gate goes first, so
    the compiler needs no register copy (free on Zen 4, not everywhere).
    Inputs arrive at 0."""
    last = {}
    for i, (nm, op, args, imm) in enumerate(body_nodes):
        for a in args:
            last[a] = i
    ready, res = {}, []
    for i, (nm, op, args, imm) in enumerate(body_nodes):
        if op == "lut":
            def rank(p):
                dies = last.get(args[p]) == i and args[p] not in keep and args.count(args[p]) == 1
                order = [p] + [q for q in range(3) if q != p]
                return (lut_done([args[q] for q in order], ready), not dies, p)
            first = min(range(3), key=rank)
            if first:
                order = [first] + [q for q in range(3) if q != first]
                args = [args[q] for q in order]
                imm = permute_lut(imm, order)
            ready[nm] = lut_done(args, ready)
        res.append((nm, op, args, imm))
    return res


def lut_done(args, ready):
    """When a LUT gate over args is ready, by the latencies above."""
    return max(ready.get(args[0], 0) + 1, ready.get(args[1], 0) + 2, ready.get(args[2], 0) + 2)


def lut_ready(nodes):
    """When each LUT gate's result is ready."""
    ready = {}
    for nm, op, args, imm in nodes:
        if op == "lut":
            ready[nm] = lut_done(args, ready)
    return ready


def merge_order(u, v, imm, ready):
    """The operands of a merged output o = LUT(o, u, v, imm) in the order
    (later of u and v, the other, o): the later one is the destination, and
    o, loaded from memory, can be the instruction's memory operand. Returns
    (first, second, immediate for LUT(first, second, o))."""
    if ready.get(v, 0) > ready.get(u, 0):
        return v, u, permute_lut(imm, [2, 1, 0])
    return u, v, permute_lut(imm, [1, 2, 0])


def c_sbox_macro(c):
    s = c.sbox + 1
    name = f"DES_BS_{c.mode.upper()}_S{s}"
    merges = c.merges()
    skip = {c.outs[k][0] for k in merges}
    body = []
    alias = {f"n{i}": f"x{i + 1}" for i in range(6)}
    body.append("BS_T x1 = (a1), x2 = (a2), x3 = (a3), x4 = (a4), x5 = (a5), x6 = (a6);")
    nodes = [n for n in c.nodes if n[0] not in skip]
    # the merged outputs read their operands at the end
    tail = [(f"o{k}", "lut", [m[0], m[1], m[0]], 0) for k, m in merges.items()]
    keep = {x for m in merges.values() for x in m[:2]}
    if c.mode == "lut":
        nodes = schedule(nodes, keep)
        nodes = latest_first(nodes + tail, keep)[:len(nodes)]

    def xor_out(k, node, neg):
        o = f"(o{k + 1})"
        if neg and c.mode == "lut":  # gatep leaves its complemented outputs so
            return f"{o} = BS_LUT({o}, {alias.get(node, node)}, {alias.get(node, node)}, 0xc3);"
        return f"{o} = BS_XOR({o}, {alias.get(node, node)});"

    # outputs are XORed into L as soon as they exist, so they can die early
    for k, (node, neg) in enumerate(c.outs):
        if k not in merges and node in alias:
            body.append(xor_out(k, node, neg))
    for nm, op, args, imm in nodes:
        a = [alias.get(x, x) for x in args]
        if op == "lut":
            expr = f"BS_LUT({a[0]}, {a[1]}, {a[2]}, 0x{imm:02x})"
        elif op == "not":
            expr = f"BS_NOT({a[0]})"
        else:
            expr = f"BS_{op.upper()}({a[0]}, {a[1]})"
        body.append(f"BS_T {nm} = {expr};")
        for k, (node, neg) in enumerate(c.outs):
            if k not in merges and node == nm:
                body.append(xor_out(k, node, neg))
    ready = lut_ready(nodes) if c.mode == "lut" else {}
    for k, (u, v, imm) in merges.items():
        o = f"(o{k + 1})"
        p, q, imm = merge_order(u, v, imm, ready)
        body.append(f"{o} = BS_LUT({alias.get(p, p)}, {alias.get(q, q)}, {o}, 0x{imm:02x});")
    head = (f"/* S{s}: {c.gates()} gates, {4 - len(merges)} separate XORs into L. */\n"
            f"#define {name}(a1, a2, a3, a4, a5, a6, o1, o2, o3, o4) do {{ \\\n")
    return head + "".join(f"\t{line} \\\n" for line in body) + "} while (0)\n"


def c_round_macro(mode):
    """DES_BS_<MODE>_ROUND_AT(AT, A, B, KX): A ^= f(B), with AT(P, i) the
    lvalue of plane i of P and KX(plane, j) the caller's key XOR of an R
    plane with round-key bit j; DES_BS_<MODE>_ROUND(A, B, KX) is the form
    for arrays of planes (AT(P, i) = P[i])."""
    e, pinv = e_planes(), p_inverse()
    lines = []
    for s in range(8):
        ins = ", ".join(f"KX(AT(B, {e[6 * s + t]}), {6 * s + t})" for t in range(6))
        outs = ", ".join(f"AT(A, {pinv[4 * s + k]})" for k in range(4))
        lines.append(f"\tDES_BS_{mode.upper()}_S{s + 1}({ins}, {outs}); \\\n")
    m = mode.upper()
    return (f"#define DES_BS_{m}_ROUND_AT(AT, A, B, KX) do {{ \\\n" + "".join(lines) +
            "} while (0)\n"
            f"#define DES_BS_{m}_ROUND(A, B, KX) DES_BS_{m}_ROUND_AT(DES_BS_AT_INDEX, A, B, KX)\n")


def c_table(name, ctype, vals, per=16):
    out = [f"static const {ctype} {name}[{len(vals)}] __attribute__((unused)) = {{"]
    for i in range(0, len(vals), per):
        out.append("\t" + ", ".join(str(v) for v in vals[i:i + per]) + ",")
    out.append("};")
    return "\n".join(out)


def render(circs):
    total = {m: sum(circs[(s, m)].cost() for s in range(8)) for m in MODES}
    gates = {m: sum(circs[(s, m)].gates() for s in range(8)) for m in MODES}
    gatep = sum(circs[(s, "gatep")].gates() for s in range(8))
    parts = [
        "/* Generated by gen/des_sbox_circuits.py from gen/des_sbox_circuits.txt and",
        " * gen/des_tables.py (FIPS 46-3); do not edit.",
        " *",
        " * Bitsliced DES S-boxes: DES_BS_LUT_Sj for 3-input LUT gates (vpternlog),",
        " * DES_BS_GATE_Sj for AND/OR/XOR/ANDN(~a & b)/NOT. Each takes the six",
        " * S-box inputs a1..a6 (b1..b6, key already XORed) and XORs the four",
        " * outputs into the lvalues o1..o4. The includer defines BS_T and the",
        " * gate macros (BS_LUT(a, b, c, imm) with Intel's immediate order, or",
        " * BS_AND, BS_OR, BS_XOR, BS_ANDN, BS_NOT).",
        f" * lut: {gates['lut']} gates, {total['lut']} operations per round with the XORs into L",
        f" *      (plus 48 key XORs); gate: {gates['gate']} gates, {total['gate']} with the XORs.",
        " */",
        "#ifndef FB_DES_BS_SBOXES_H",
        "#define FB_DES_BS_SBOXES_H",
        "#include <stdint.h>",
        "",
    ]
    parts.append("/* Plane i of an array of planes P (the rounds' default accessor). */\n"
                 "#define DES_BS_AT_INDEX(P, i) ((P)[i])\n")
    for mode in MODES + ("gatep",):
        for s in range(8):
            parts.append(c_sbox_macro(circs[(s, mode)]))
        parts.append(c_round_macro(mode))
    parts += [
        f"/* DES_BS_GATEP_Sj: the gatep circuits (DES_BS_GATE_Sj where the circuit file",
        f" * has none) with their NOT gates absorbed ({gatep} gates);",
        " * outputs it leaves complemented are undone by round keys 1, 2, 5, 6, 9, 10,",
        " * 13 and 14 (either direction) flipped where des_bs_gatep_flip[j] is 1",
        " * (see gen/des_sbox_circuits.py, absorb_nots). */",
        c_table("des_bs_gatep_flip", "uint8_t", gatep_flips(circs), 24),
        "",
    ]
    parts += [
        "/* State planes: st[0..31] = L bits 1..32, st[32..63] = R bits 1..32 (FIPS",
        " * numbering). Data planes: d = FIPS bit d+1 of the block (byte d/8, bit 7-d%8). */",
        "",
        "/* IP: the state plane that data plane d becomes. */",
        c_table("des_bs_ip", "uint8_t", ip_state_of_data()),
        "",
        "/* FP: the state plane that output data plane d is read from (after an odd",
        " * number of passes; the final R/L swap included). */",
        c_table("des_bs_fp", "uint8_t", state_of_output()),
        "",
        "/* Key schedule: des_bs_key_bit[16 * 48]: the key bit (0 = FIPS bit 1) that is",
        " * bit j of the round key of round r, at [48 * r + j]; parity bits never occur. */",
        c_table("des_bs_key_bit", "uint8_t", [b for row in key_bits() for b in row], 24),
        "",
        "/* For vector key setup: round-key word i (= des_bs_key_bit[i]) is bit",
        " * des_bs_key_shift[i] of the key's high (bit i%16 of des_bs_key_hi[i/16] set)",
        " * or low 32-bit half (big-endian load). */",
        c_table("des_bs_key_shift", "uint8_t", [31 - (b % 32) for row in key_bits() for b in row], 24),
        c_table("des_bs_key_hi", "uint16_t",
                [sum(1 << t for t in range(16) if kb[16 * w + t] < 32) for kb in [[b for row in key_bits() for b in row]] for w in range(48)], 12),
        "",
        "/* Per-lane key planes of the multi-stream engine (des_bs_avx512.c): plane k",
        " * (k < 56) is bit k mod 28 of C0, plane 56 + k bit k mod 28 of D0, copied from",
        " * the transposed key plane des_bs_lk_src[k]; round r's key bit j is plane",
        " * des_bs_lk_rot[r] + des_bs_lk_off[j] (C and D rotated by FIPS 46-3's shifts). */",
        c_table("des_bs_lk_src", "uint8_t", lane_key_tables()[0], 28),
        c_table("des_bs_lk_off", "uint8_t", lane_key_tables()[1], 24),
        c_table("des_bs_lk_rot", "uint8_t", lane_key_tables()[2], 16),
        "",
        "#endif",
        "",
    ]
    return "\n".join(parts)


# ---- search driver ------------------------------------------------------------------

def gatep_source(circs, s):
    """The circuit the single-key rounds absorb for S-box s (the file's gatep
    circuit, else its gate circuit), as a gatep circuit."""
    c = circs.get((s, "gatep"), circs.get((s, "gate")))
    q = Circuit(s, "gatep")
    q.nodes, q.outs = list(c.nodes), list(c.outs)
    return q


def source_cost(c):
    """Gates and XORs into L; gatep circuits with their NOTs absorbed."""
    return absorb_nots(c).cost() if c.mode == "gatep" else c.cost()


def search(mode, seconds, sboxes):
    """gatep: kept where its NOT-free count beats the circuit absorbed now."""
    circs = read_circuits() if os.path.exists(CIRCUITS) else {}
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "search")
        subprocess.check_call(["cc", "-O2", "-o", exe, SEARCH_SRC])
        for s in sboxes:
            tts = ["%016x" % output_tt(s, k) for k in range(4)]
            seed = random.getrandbits(32)
            res = subprocess.run([exe, mode, str(seconds), str(seed)] + tts,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            new = parse(res[1:], s, mode)
            new.check()
            old = gatep_source(circs, s) if mode == "gatep" else circs.get((s, mode))
            print(f"S{s + 1} {mode}: new cost {source_cost(new)}, old {source_cost(old) if old else '-'}")
            if old is None or source_cost(new) < source_cost(old):
                circs[(s, mode)] = new
                write_circuits(circs)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--search":
        sboxes = [int(x) - 1 for x in sys.argv[4:]] or list(range(8))
        search(sys.argv[2], float(sys.argv[3]), sboxes)
        return
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit("usage: des_sbox_circuits.py [OUTPATH] | --search lut|gate|gatep SECONDS [SBOX ...]")
    circs = read_circuits()
    for sb in range(8):
        circs[(sb, "gatep")] = absorb_nots(gatep_source(circs, sb))
    self_check(circs)
    text = render(circs)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
