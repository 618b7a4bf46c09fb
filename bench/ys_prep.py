#!/usr/bin/env python3
"""ys_prep.py SRC_DIR OUT_DIR - copies of the RTL that yosys 0.23's Verilog frontend reads.

The RTL is unchanged; two constructs of it are outside what that frontend accepts:
  * port widths that use localparams declared in the module body (legal, Verilator and Icarus
    take them; yosys cannot evaluate $clog2 of a not-yet-elaborated localparam): the leading
    block of body localparams, with those of the headers it includes (hw/*.vh: their other
    lines, functions, stay in the body where the `include was), is moved into the parameter
    port list as `localparam` entries (SystemVerilog-2009), in the same order;
  * `import ws_regmap::*;` inside a module body: replaced by the package's localparams
    themselves (ws_regmap_body.vh, hoisted like the rest), `ws_regmap::` qualifiers dropped and
    the package's `include removed.
"""
import os
import re
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def strip_comment(line):
    return re.sub(r"//.*", "", line).rstrip()


def hoist(text, incdir):
    lines = text.split("\n")
    try:
        m = next(i for i, l in enumerate(lines) if re.match(r"\s*module\s+\w+\s*#\s*\(", l))
    except StopIteration:
        return text
    # end of the parameter list: ") (" ; end of the header: ");"
    pend = next(i for i in range(m, len(lines)) if re.match(r"\s*\)\s*\(\s*(//.*)?$", lines[i]))
    hend = next(i for i in range(pend, len(lines)) if re.match(r"\s*\);\s*(//.*)?$", lines[i]))
    moved, i = [], hend + 1
    while i < len(lines):
        s = lines[i].strip()
        if s == "" or s.startswith("//") or s.startswith("/*"):
            i += 1
            continue
        inc = re.match(r'`include\s+"(ws_\w+\.vh)"', s)
        imp = re.match(r"import\s+ws_regmap::\*\s*;", s)
        if inc or imp:
            hdr = "ws_regmap_body.vh" if imp else inc.group(1)
            path = os.path.join(out if imp else incdir, hdr)
            kept = []
            with open(path) as f:
                for il in f.read().split("\n"):
                    c = strip_comment(il).strip()
                    if c.startswith("localparam"):
                        moved.append(c)
                    elif c and not c.startswith("/*"):
                        kept.append(il)
            lines[i] = "// (hoisted) " + lines[i] + ("\n" + "\n".join(kept) if kept else "")
            i += 1
            continue
        if s.startswith("localparam") and s.endswith(";") or \
           s.startswith("localparam") and strip_comment(s).endswith(";"):
            moved.append(strip_comment(s))
            lines[i] = "// (hoisted) " + lines[i]
            i += 1
            continue
        break
    if not moved:
        return text
    decl = []
    for st in moved:
        st = st.rstrip(";")
        # "localparam [3:0] A = 1, B = 2" -> one entry per name
        mm = re.match(r"localparam\s*(\[[^\]]*\])?\s*(.*)$", st)
        rng = mm.group(1) or ""
        for part in re.split(r",\s*(?=\w+\s*=)", mm.group(2)):
            decl.append("    , localparam %s %s" % (rng, part.strip()))
    lines[pend:pend] = decl
    return "\n".join(lines)


# the package's body first: modules that import it take its localparams from there
with open(os.path.join(src, "ws_regmap.vh")) as f:
    body = [l for l in f.read().split("\n")
            if not re.match(r"\s*(package|endpackage|`ifndef|`define|`endif|`timescale)\b", l)]
with open(os.path.join(out, "ws_regmap_body.vh"), "w") as f:
    f.write("\n".join(body))

for name in sorted(os.listdir(src)):
    if not (name.endswith(".v") or name.endswith(".vh")):
        continue
    with open(os.path.join(src, name)) as f:
        text = f.read()
    if name.endswith(".v"):
        text = re.sub(r'`include\s+"ws_regmap\.vh"', "", text)
        text = hoist(text, src)
        text = text.replace("ws_regmap::", "")
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
