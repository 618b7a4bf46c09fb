-- wiresum.lua - Wireshark / tshark dissector for the wiresum aggregation protocol, wire protocol v2
-- (docs/protocol.md; field names as in driver/wiresum/wire.h).
--
--   tshark -X lua_script:tools/wireshark/wiresum.lua -r FILE.pcap -O wiresum
--   wireshark -X lua_script:tools/wireshark/wiresum.lua FILE.pcap
--
-- or copy this file into the personal Lua plugins folder (Help > About > Folders).
--
-- The aggregation header is the UDP payload to or from the aggregation port (preference
-- "wiresum.udp_port", default 48900; 0 turns the port off, "Decode As... > UDP port > WIRESUM"
-- still works). Header (offsets from the start of the UDP payload, big-endian):
--   0 ver_type (version 7..4, type 3..0)  1 dtype  2 flags (SET bit 0, RETX bit 1)  3 reserved
--   4 job  6 worker  8 slot  10 count  12 offset  16 tensor  20 ext (PARTIAL; else reserved)
--   22.. count binary32 elements; a PARTIAL: count 8-byte words (X 63, S 62, E 61..54,
--   M 53..0: (-1)^S * M * 2^(E-149), E 255 the NaN/-Inf/+Inf flags), then ext record words of
--   the same format (an element with X goes on in the next one)
-- Malformed headers (the stateless checks of docs/protocol.md section 4) raise expert info.
-- As root, tshark loads Lua scripts only if init.lua sets run_user_scripts_when_superuser = true
-- (Debian's does). docs/debugging.md section 6 has the fields and filters; tests/dissector.sh
-- checks every field against the C codec.

local HDR_LEN = 22
local DEFAULT_PORT = 48900

local ws = Proto("wiresum", "wiresum in-network aggregation")

local VERSION = 2
local types = { [0] = "DATA", [1] = "RESULT", [2] = "PARTIAL" }
local PARTIAL = 2
local dtypes = { [0] = "binary32" }

local f = {
    ver_type = ProtoField.uint8("wiresum.ver_type", "Version / type", base.HEX),
    version = ProtoField.uint8("wiresum.version", "Version", base.DEC, nil, 0xf0),
    type = ProtoField.uint8("wiresum.type", "Type", base.DEC, types, 0x0f),
    dtype = ProtoField.uint8("wiresum.dtype", "Element type (dtype)", base.DEC, dtypes),
    flags = ProtoField.uint8("wiresum.flags", "Flags", base.HEX),
    flags_set = ProtoField.uint8("wiresum.flags.set", "SET (copy of the slot)", base.DEC, nil, 0x01),
    flags_retx = ProtoField.bool("wiresum.flags.retx", "RETX (retransmission)", 8, nil, 0x02),
    flags_rsvd = ProtoField.uint8("wiresum.flags.reserved", "Reserved flag bits", base.HEX, nil, 0xfc),
    reserved = ProtoField.uint8("wiresum.reserved", "Reserved (byte 3)", base.HEX),
    job = ProtoField.uint16("wiresum.job", "Job", base.DEC),
    worker = ProtoField.uint16("wiresum.worker", "Worker (rank)", base.DEC),
    slot = ProtoField.uint16("wiresum.slot", "Slot", base.DEC),
    count = ProtoField.uint16("wiresum.count", "Count (elements)", base.DEC),
    offset = ProtoField.uint32("wiresum.offset", "Offset (elements)", base.DEC),
    tensor = ProtoField.uint32("wiresum.tensor", "Tensor", base.HEX),
    reserved2 = ProtoField.uint16("wiresum.reserved2", "Reserved (bytes 20-21)", base.HEX),
    ext = ProtoField.uint16("wiresum.ext", "Record words (ext)", base.DEC),
    word = ProtoField.uint64("wiresum.word", "Partial word", base.HEX),
    word_x = ProtoField.bool("wiresum.word.escape", "X (escape, bit 63)"),
    word_s = ProtoField.bool("wiresum.word.sign", "S (negative, bit 62)"),
    word_e = ProtoField.uint8("wiresum.word.exp", "E (bits 61..54)", base.DEC),
    word_m = ProtoField.uint64("wiresum.word.mag", "M (bits 53..0)", base.HEX),
    record = ProtoField.uint64("wiresum.record", "Record word", base.HEX),
    elems = ProtoField.none("wiresum.elems", "Elements"),
    elem = ProtoField.float("wiresum.elem", "Element"),
    elem_index = ProtoField.uint32("wiresum.elem.index", "Index", base.DEC),
    elem_raw = ProtoField.uint32("wiresum.elem.raw", "Raw binary32", base.HEX),
}
ws.fields = { f.ver_type, f.version, f.type, f.dtype, f.flags, f.flags_set, f.flags_retx,
              f.flags_rsvd, f.reserved, f.job, f.worker, f.slot, f.count, f.offset, f.tensor,
              f.reserved2, f.ext, f.word, f.word_x, f.word_s, f.word_e, f.word_m, f.record,
              f.elems, f.elem, f.elem_index, f.elem_raw }

local MAL, ERR, NOTE = expert.group.MALFORMED, expert.severity.ERROR, expert.severity.NOTE
local e = {
    truncated = ProtoExpert.new("wiresum.truncated", "Truncated aggregation header", MAL, ERR),
    bad_version = ProtoExpert.new("wiresum.bad_version", "Bad version (not 2)", MAL, ERR),
    bad_type = ProtoExpert.new("wiresum.bad_type", "Bad type (not DATA, RESULT or PARTIAL)", MAL,
                               ERR),
    bad_dtype = ProtoExpert.new("wiresum.bad_dtype", "Bad dtype (not binary32)", MAL, ERR),
    bad_flags = ProtoExpert.new("wiresum.bad_flags", "Reserved flag bits set", MAL, ERR),
    bad_reserved = ProtoExpert.new("wiresum.bad_reserved", "Reserved bytes not zero", MAL, ERR),
    bad_count = ProtoExpert.new("wiresum.bad_count", "Count is 0", MAL, ERR),
    bad_length = ProtoExpert.new("wiresum.bad_length",
                                 "Length is not 64 + 4*count (PARTIAL: 64 + 8*(count + ext))", MAL, ERR),
    retx = ProtoExpert.new("wiresum.retx", "Retransmission (RETX)", expert.group.SEQUENCE, NOTE),
}
ws.experts = { e.truncated, e.bad_version, e.bad_type, e.bad_dtype, e.bad_flags, e.bad_reserved,
               e.bad_count, e.bad_length, e.retx }

ws.prefs.udp_port = Pref.uint("Aggregation UDP port", DEFAULT_PORT,
    "UDP port of the device's aggregation traffic (job.ini [device] udp_port); 0: none")

-- "1.5", "-0", "inf", "nan": enough digits to tell every binary32 apart
local function fmt_float(v)
    if v ~= v then return "NaN" end
    if v == math.huge then return "+Inf" end
    if v == -math.huge then return "-Inf" end
    if v == 0 and 1 / v < 0 then return "-0" end
    return string.format("%.9g", v)
end

function ws.dissector(tvb, pinfo, tree)
    local len = tvb:reported_length_remaining()
    local cap = tvb:len()
    pinfo.cols.protocol = "wiresum"
    local root = tree:add(ws, tvb())

    -- fields whose bytes are there, even in a truncated header
    local function have(off, n) return cap >= off + n end
    if len < HDR_LEN then
        if have(0, 1) then
            local vt = root:add(f.ver_type, tvb(0, 1))
            vt:add(f.version, tvb(0, 1))
            vt:add(f.type, tvb(0, 1))
        end
        if have(1, 1) then root:add(f.dtype, tvb(1, 1)) end
        if have(2, 1) then
            local fl = root:add(f.flags, tvb(2, 1))
            fl:add(f.flags_set, tvb(2, 1))
            fl:add(f.flags_retx, tvb(2, 1))
            fl:add(f.flags_rsvd, tvb(2, 1))
        end
        if have(3, 1) then root:add(f.reserved, tvb(3, 1)) end
        if have(4, 2) then root:add(f.job, tvb(4, 2)) end
        if have(6, 2) then root:add(f.worker, tvb(6, 2)) end
        if have(8, 2) then root:add(f.slot, tvb(8, 2)) end
        if have(10, 2) then root:add(f.count, tvb(10, 2)) end
        if have(12, 4) then root:add(f.offset, tvb(12, 4)) end
        if have(16, 4) then root:add(f.tensor, tvb(16, 4)) end
        root:add_proto_expert_info(e.truncated, string.format(
            "Truncated aggregation header: UDP payload of %d bytes, the header needs %d (a frame of 64)",
            len, HDR_LEN))
        pinfo.cols.info = string.format("wiresum truncated header (%d of %d bytes)", len, HDR_LEN)
        return cap
    end

    local vt_byte = tvb(0, 1):uint()
    local version, typ = math.floor(vt_byte / 16), vt_byte % 16
    local dtype = tvb(1, 1):uint()
    local flags = tvb(2, 1):uint()
    local rsvd, rsvd2 = tvb(3, 1):uint(), tvb(20, 2):uint()
    local job, worker, slot = tvb(4, 2):uint(), tvb(6, 2):uint(), tvb(8, 2):uint()
    local count, offset, tensor = tvb(10, 2):uint(), tvb(12, 4):uint(), tvb(16, 4):uint()
    local set, retx = flags % 2, math.floor(flags / 2) % 2 ~= 0
    local fl_rsvd = flags - flags % 4 -- bits 7..2

    local tname = types[typ] or string.format("type %d", typ)
    root:append_text(string.format(", %s, Job: %d, Worker: %d, Slot: %d, SET: %d, Count: %d",
                                   tname, job, worker, slot, set, count))

    local vt = root:add(f.ver_type, tvb(0, 1))
    local vi = vt:add(f.version, tvb(0, 1))
    if version ~= VERSION then vi:add_proto_expert_info(e.bad_version, string.format(
        "Bad version %d (wire protocol v2 has version 2)", version)) end
    local ti = vt:add(f.type, tvb(0, 1))
    if not types[typ] then ti:add_proto_expert_info(e.bad_type, string.format(
        "Bad type %d (0 DATA, 1 RESULT, 2 PARTIAL)", typ)) end

    local di = root:add(f.dtype, tvb(1, 1))
    if dtype ~= 0 then di:add_proto_expert_info(e.bad_dtype, string.format(
        "Bad dtype %d (0 binary32; other values reserved)", dtype)) end

    local fl = root:add(f.flags, tvb(2, 1))
    local names = {}
    if set ~= 0 then names[#names + 1] = "SET" end
    if retx then names[#names + 1] = "RETX" end
    if fl_rsvd ~= 0 then names[#names + 1] = "reserved" end
    fl:append_text(#names > 0 and " (" .. table.concat(names, ", ") .. ")" or "")
    fl:add(f.flags_set, tvb(2, 1))
    local ri = fl:add(f.flags_retx, tvb(2, 1))
    if retx then ri:add_proto_expert_info(e.retx) end
    local fr = fl:add(f.flags_rsvd, tvb(2, 1))
    if fl_rsvd ~= 0 then fr:add_proto_expert_info(e.bad_flags, string.format(
        "Reserved flag bits set: 0x%02x (bits 7..2 must be zero)", fl_rsvd)) end

    local r1 = root:add(f.reserved, tvb(3, 1))
    if rsvd ~= 0 then r1:add_proto_expert_info(e.bad_reserved, string.format(
        "Reserved byte 3 is 0x%02x, not zero", rsvd)) end
    root:add(f.job, tvb(4, 2))
    root:add(f.worker, tvb(6, 2))
    root:add(f.slot, tvb(8, 2))
    local ci = root:add(f.count, tvb(10, 2))
    if count == 0 then ci:add_proto_expert_info(e.bad_count, "Count is 0 (1..the job's max_count)") end
    root:add(f.offset, tvb(12, 4))
    root:add(f.tensor, tvb(16, 4))
    local partial = typ == PARTIAL
    if partial then
        root:add(f.ext, tvb(20, 2))
        rsvd2 = 0
    else
        local r2 = root:add(f.reserved2, tvb(20, 2))
        if rsvd2 ~= 0 then r2:add_proto_expert_info(e.bad_reserved, string.format(
            "Reserved bytes 20-21 are 0x%04x, not zero", rsvd2)) end
    end

    -- elements: as many whole ones as the frame holds, at most count
    local want = HDR_LEN + 4 * count
    if partial then want = HDR_LEN + 8 * (count + tvb(20, 2):uint()) end
    local n = math.min(count, math.floor((cap - HDR_LEN) / (partial and 8 or 4)))
    if partial and count > 0 and len > HDR_LEN then
        local ext = tvb(20, 2):uint()
        local et = root:add(f.elems, tvb(HDR_LEN, math.min(cap, HDR_LEN + 8 * count) - HDR_LEN))
        et:set_text(string.format("Elements: %d exact partial sums%s", count,
                                  n < count and string.format(" (%d present)", n) or ""))
        for i = 0, n - 1 do
            local r = tvb(HDR_LEN + 8 * i, 8)
            local hi, lo = r(0, 4):uint(), r(4, 4):uint()
            local x, sg = hi >= 0x80000000, math.floor(hi / 0x40000000) % 2 == 1
            local ex = math.floor(hi / 0x400000) % 256
            local m = (hi % 0x400000) * 4294967296.0 + lo
            local it = et:add(f.word, r)
            local what
            if ex == 255 then
                local fl = {}
                if lo % 8 >= 4 then fl[#fl + 1] = "NaN" end
                if lo % 4 >= 2 then fl[#fl + 1] = "-Inf" end
                if lo % 2 == 1 then fl[#fl + 1] = "+Inf" end
                what = "special " .. (#fl > 0 and table.concat(fl, "+") or "(no flag)")
            else
                what = string.format("%s%s", sg and "-" or "", fmt_float(m * 2.0 ^ (ex - 149)))
                if x then what = what .. " + record words" end
            end
            it:set_text(string.format("[%d] %s (0x%08x%08x)", i, what, hi, lo))
            it:add(f.elem_index, r, i):set_generated()
            it:add(f.word_x, r(0, 1), x)
            it:add(f.word_s, r(0, 1), sg)
            it:add(f.word_e, r(0, 2), ex)
            it:add(f.word_m, r(1, 7), UInt64.new(lo, hi % 0x400000))
        end
        for k = 0, ext - 1 do
            local off = HDR_LEN + 8 * (count + k)
            if cap < off + 8 then break end
            root:add(f.record, tvb(off, 8)):prepend_text(string.format("[%d] ", k))
        end
        n = 0 -- no binary32 elements
    end
    if count > 0 and len > HDR_LEN and not partial then
        local er = tvb(HDR_LEN, math.min(cap, want) - HDR_LEN)
        local et = root:add(f.elems, er)
        et:set_text(string.format("Elements: %d binary32%s", count,
                                  n < count and string.format(" (%d present)", n) or ""))
        for i = 0, n - 1 do
            local r = tvb(HDR_LEN + 4 * i, 4)
            local v = r:float()
            local it = et:add(f.elem, r)
            it:set_text(string.format("[%d] %s (0x%08x)", i, fmt_float(v), r:uint()))
            it:add(f.elem_index, r, i):set_generated()
            it:add(f.elem_raw, r)
        end
    end
    if len ~= want and count > 0 then
        local what = len < want and "elements missing (truncated)" or "trailing bytes"
        root:add_proto_expert_info(e.bad_length, string.format(
            "Length is not %s: UDP payload of %d bytes, count %d needs %s = %d: %s",
            partial and "64 + 8*(count + ext)" or "64 + 4*count", len, count,
            partial and "22 + 8*(count + ext)" or "22 + 4*count", want, what))
    elseif len ~= HDR_LEN and count == 0 then
        root:add_proto_expert_info(e.bad_length, string.format(
            "Length is not 64 + 4*count: UDP payload of %d bytes with count 0", len))
    end

    local info = string.format("%s job %d worker %d slot %d SET %d offset %d count %d tensor 0x%x",
                               tname, job, worker, slot, set, offset, count, tensor)
    if retx then info = info .. " [RETX]" end
    if version ~= VERSION or not types[typ] or dtype ~= 0 or fl_rsvd ~= 0 or rsvd ~= 0 or
       rsvd2 ~= 0 or count == 0 or len ~= want then
        info = info .. " [malformed]"
    end
    pinfo.cols.info = info
    return cap
end

-- the port from the preference, and "Decode As" for any other UDP port
local udp_table = DissectorTable.get("udp.port")
local cur_port = 0

-- (a "Decode As" entry on the very port the preference moves away from goes with it)
local function register_port()
    if cur_port ~= 0 then udp_table:remove(cur_port, ws) end
    cur_port = ws.prefs.udp_port
    if cur_port > 65535 then cur_port = 0 end
    if cur_port ~= 0 then udp_table:add(cur_port, ws) end
end

function ws.prefs_changed()
    if ws.prefs.udp_port ~= cur_port then register_port() end
end

udp_table:add_for_decode_as(ws)
register_port()
