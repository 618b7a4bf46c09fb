#!/usr/bin/env python3
"""lut_levels.py NETLIST.json[.gz] [N] - register-to-register logic depth of a yosys synth_xilinx netlist.

The netlist is the flattened top written by `write_json` after `synth_xilinx`. Every cell that
holds state is a timing boundary: flip-flops (FD*), shift registers (SRL*), block and ultra RAM
(RAMB*, URAM*), DSPs (DSP48*), and the module's ports. A path starts at a boundary cell's output
(or an input port) and ends at a boundary cell's input (D, CE, R/S, a RAM address or write enable;
or an output port). In between, the combinational cells are weighed:
  LUT1..LUT6, INV, LUT-RAM read (RAM32M, RAM64X1D, ...)   one LUT level each
  MUXF7, MUXF8, MUXF9                                      no level (in the slice with the LUT), counted
  CARRY4, CARRY8                                            no level, counted (fast dedicated chain)
Two longest-path searches over the DAG of nets: the most LUT levels (ties broken by more carry
cells, then muxes) and the largest estimated delay under a simple model (per LUT level LUT_NS,
per carry cell CARRY_NS, per wide mux MUXF_NS). Prints one line of key=value per result and the
path, cell by cell, with the best readable net names.
"""
import gzip
import json
import re
import sys

LUT_NS, CARRY_NS, MUXF_NS = 0.55, 0.10, 0.30

SEQ_PREFIX = ("FD", "SRL", "RAMB", "URAM", "DSP48", "LD", "FIFO", "BUFG")
LUTRAM_PREFIX = ("RAM32", "RAM64", "RAM128", "RAM256", "RAM16", "RAM32M", "RAM64M")
# LUT-RAM inputs that are combinational to the read data (the read address)
LUTRAM_COMB_IN = ("A", "DPRA", "ADDRA", "ADDRB", "ADDRC", "ADDRD", "ADDRE", "ADDRF", "ADDRG",
                  "ADDRH", "RADR")


def kind(t):
    if t.startswith("LUT") or t == "INV":
        return "lut"
    if t.startswith("MUXF"):
        return "mux"
    if t.startswith("CARRY"):
        return "carry"
    if t.startswith(LUTRAM_PREFIX):
        return "lutram"
    if t.startswith(SEQ_PREFIX):
        return "seq"
    if t in ("VCC", "GND"):
        return "const"
    return "seq"  # unknown: treat as a boundary


def analyze(m, topn, prefix=""):

    # readable names: prefer user names (hide_name 0), then the shortest
    name = {}
    for n, nn in m["netnames"].items():
        hid = nn.get("hide_name", 0)
        for i, b in enumerate(nn["bits"]):
            if isinstance(b, str):
                continue
            lab = n if len(nn["bits"]) == 1 else "%s[%d]" % (n, i)
            key = (hid, len(lab))
            if b not in name or key < name[b][0]:
                name[b] = (key, lab)

    def nm(b):
        return name[b][1] if b in name else "net%s" % b

    def cellname(cn):
        # a register or RAM by the net it drives (its user-visible name), else the cell's name
        c = m["cells"].get(cn)
        if c is None:
            return cn
        dirs = c.get("port_directions", {})
        if c["type"].startswith(("FD", "SRL")):
            for p in ("Q",):
                for b in c["connections"].get(p, []):
                    if not isinstance(b, str):
                        return "%s (%s)" % (nm(b), c["type"])
        short = cn.split("\\")[-1] if "\\" in cn else cn
        return "%s (%s)" % (short, c["type"])

    driver = {}    # bit -> (cell, kind, inputs)
    sinks_end = {}  # bit -> list of (cell name, port) where a path ends
    cells = m["cells"]
    for cn, c in cells.items():
        k = kind(c["type"])
        dirs = c.get("port_directions", {})
        ins, outs = [], []
        for p, bits in c["connections"].items():
            dr = dirs.get(p, "input")
            for b in bits:
                if isinstance(b, str):
                    continue
                (outs if dr == "output" else ins).append((p, b))
        if k == "seq":
            for p, b in ins:
                if p not in ("C", "CLK", "CLKARDCLK", "CLKBWRCLK", "CLKA", "CLKB"):
                    sinks_end.setdefault(b, []).append((cn, c["type"], p))
            for p, b in outs:
                driver[b] = (cn, "start", [])
        elif k == "const":
            for p, b in outs:
                driver[b] = (cn, "const", [])
        elif k == "lutram":
            comb = [b for p, b in ins if p.startswith(LUTRAM_COMB_IN)]
            for p, b in ins:
                if not p.startswith(LUTRAM_COMB_IN) and p not in ("WCLK", "CLK"):
                    sinks_end.setdefault(b, []).append((cn, c["type"], p))
            for p, b in outs:
                driver[b] = (cn, "lut", comb)
        else:
            for p, b in outs:
                driver[b] = (cn, k, [b2 for p2, b2 in ins])
    for pn, p in m["ports"].items():
        for b in p["bits"]:
            if isinstance(b, str):
                continue
            if p["direction"] == "input":
                driver[b] = ("<port %s>" % pn, "start", [])
            else:
                sinks_end.setdefault(b, []).append(("<port %s>" % pn, "port", pn))

    W = {"lut": (1, 0, 0), "carry": (0, 1, 0), "mux": (0, 0, 1)}

    def search(score):
        memo = {}
        sys.setrecursionlimit(1000000)

        def arr(b):
            # best (score, levels tuple, predecessor bit) of the path ending at net b
            if b in memo:
                r = memo[b]
                if r is None:
                    raise RuntimeError("combinational loop at %s" % nm(b))
                return r
            memo[b] = None
            dv = driver.get(b)
            if dv is None or dv[1] in ("start", "const"):
                r = ((0, 0, 0), None)
            else:
                w = W[dv[1]]
                best = None
                for ib in dv[2]:
                    t, _ = arr(ib)
                    if best is None or score(t) > score(best[0]):
                        best = (t, ib)
                t0 = best[0] if best else (0, 0, 0)
                r = ((t0[0] + w[0], t0[1] + w[1], t0[2] + w[2]), best[1] if best else None)
            memo[b] = r
            return r

        # iterative warm-up in topological-ish order to keep recursion shallow
        best = None
        for b in sinks_end:
            t, _ = arr(b)
            if best is None or score(t) > score(best[0]):
                best = (t, b)
        # per-endpoint list of the worst paths, distinct endpoints
        ends = sorted(((arr(b)[0], b) for b in sinks_end), key=lambda x: score(x[0]), reverse=True)
        return best, arr, ends

    def trace(arr, b):
        chain = [b]
        while True:
            _, p = arr(b)
            if p is None:
                break
            chain.append(p)
            b = p
        return list(reversed(chain))

    def describe(tag, score, topn):
        best, arr, ends = search(score)
        (lv, cy, mx), eb = best
        chain = trace(arr, eb)
        st = driver.get(chain[0])
        start = nm(chain[0])
        endc = sinks_end[eb][0]
        est = lv * LUT_NS + cy * CARRY_NS + mx * MUXF_NS
        print("%s lut_levels=%d carry=%d muxf=%d est_ns=%.2f start=%s end=%s end_pin=%s"
              % (tag, lv, cy, mx, est, start if st is None or st[0] not in cells else cellname(st[0]),
                 cellname(endc[0]), endc[2]))
        for b in chain:
            dv = driver.get(b)
            print("  %-8s %s" % (cells[dv[0]]["type"] if dv and dv[0] in cells else "-", nm(b)))
        seen = set()
        k = 0
        for t, b in ends:
            e = cellname(sinks_end[b][0][0])
            c = trace(arr, b)
            s0 = driver.get(c[0])
            s0 = cellname(s0[0]) if s0 and s0[0] in cells else nm(c[0])
            # one line per pair of register vectors (bit indices dropped), so the list names
            # every distinct structure that is deep, not the bits of one vector
            key = (re.sub(r"\[\d+\]", "", s0), re.sub(r"\[\d+\]", "", e))
            if key in seen:
                continue
            seen.add(key)
            print("  %s#%d lut_levels=%d carry=%d muxf=%d start=%s end=%s" % (tag, k + 1, t[0], t[1], t[2], s0, e))
            k += 1
            if k >= topn:
                break

    describe(prefix + "deepest", lambda t: (t[0], t[1], t[2]), topn)
    describe(prefix + "slowest", lambda t: t[0] * LUT_NS + t[1] * CARRY_NS + t[2] * MUXF_NS, topn)


def main():
    # lut_levels.py NETLIST.json [N] [--all]: the top module, or (--all) every module that has
    # logic of its own in a hierarchical netlist (instances of other modules are boundaries)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    bad = [a for a in sys.argv[1:] if a.startswith("--") and a != "--all"]
    if not args or len(args) > 2 or bad or (len(args) == 2 and not args[1].isdigit()):
        sys.exit("usage: lut_levels.py NETLIST.json[.gz] [N] [--all]" +
                 ("" if not bad else " (unknown option %s)" % bad[0]))
    opener = gzip.open if args[0].endswith(".gz") else open
    try:
        with opener(args[0], "rt") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("lut_levels.py: %s: not a readable yosys JSON netlist (%s)" % (args[0], e))
    topn = int(args[1]) if len(args) > 1 else 8
    mods = d["modules"]
    user = {k: v for k, v in mods.items()
            if not str(v.get("attributes", {}).get("blackbox", "0")).strip("0")
            and not str(v.get("attributes", {}).get("whitebox", "0")).strip("0")
            and v.get("cells")}
    if "--all" in sys.argv:
        for k in sorted(user):
            short = k.split("\\")[-1]
            print("module %s (%s)" % (short, k))
            analyze(user[k], topn, "")
        return
    top = [k for k, v in mods.items() if str(v.get("attributes", {}).get("top", "0")).strip("0") != ""]
    analyze(mods[top[0]] if top else next(iter(user.values())), topn)


if __name__ == "__main__":
    main()
