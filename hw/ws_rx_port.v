// ws_rx_port - per-port ingress: store-and-forward frame FIFO, length, oversize drop and per-frame checksum metadata.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// Write side. Beats go into a RAM of FIFO_BEATS = FIFO_BYTES/BYTES words as they arrive. A frame
// that grows past MAX_FRAME stops being written, the write pointer is rolled back to the frame's
// first beat and the rest of the frame is consumed and discarded. In parallel, every beat feeds
// two pipelined adder trees (one level per register stage) whose roots are accumulated per frame;
// TL + 3 cycles after a frame's last beat (TL = log2(BYTES/2)) its {beats, length, metadata} word
// is pushed into a metadata FIFO (a ws_fifo of FIFO_BEATS words: every frame waiting there holds
// at least one RAM beat, so it can never overflow).
//
// Read side. A frame is started only when its metadata word is available, i.e. once all of its
// beats are in the RAM (store and forward); its beats then leave back to back, and the next frame
// may follow on the next cycle. m_axis_tdata is the RAM's registered read port, every m_axis
// output is a register. tkeep and tlast are rebuilt from the length (the RAM holds tdata only).
//
// Latency (no backpressure): the first beat of a frame is transferred on m_axis TL + 6 cycles after
// the cycle in which its last beat was accepted on s_axis (10 at 256 bits, 11 at 512, 12 at 1024);
// frame_ready pulses TL + 3 cycles after that cycle.
//
// Metadata (m_axis_tmeta, held on every beat of the frame):
//   [0]    ip_ok:  len >= 34 and the ones-complement sum of the 16-bit words at bytes 14..33 is 0xFFFF
//   [1]    udp_ok: len >= 42 and fold(words 26..33 + 0x0011 + word 38 + all words from byte 34 on,
//                  an odd last byte padded with a zero low byte) == 0xFFFF
//   [2]    vport_valid: len >= 18 + 4*IHL (IHL = low nibble of byte 14)
//   [18:3] vport: the big-endian word at byte 16 + 4*IHL (the UDP destination port); 0 if not valid
module ws_rx_port #(
    parameter DATA_WIDTH = 256,     // stream width in bits: 256, 512 or 1024
    parameter N_PORTS    = 4,       // number of device ports (width of the one-hot tuser fields), 1..16
    parameter PORT       = 0,       // this port's index, 0..N_PORTS-1 (tuser source = 1 << PORT)
    parameter MAX_FRAME  = 9216,    // largest frame carried, bytes (1..65535); longer ones are dropped
    parameter FIFO_BYTES = 32768    // frame FIFO size in bytes: a power of two >= 2*MAX_FRAME
) (
    input  wire                         clk,
    input  wire                         rst,

    input  wire [DATA_WIDTH-1:0]        s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]      s_axis_tkeep,
    input  wire                         s_axis_tvalid,
    output reg                          s_axis_tready,
    input  wire                         s_axis_tlast,

    output reg  [DATA_WIDTH-1:0]        m_axis_tdata,
    output reg  [DATA_WIDTH/8-1:0]      m_axis_tkeep,
    output reg                          m_axis_tvalid,
    input  wire                         m_axis_tready,
    output reg                          m_axis_tlast,
    output reg  [TUSER_W-1:0]           m_axis_tuser,   // length, source 1 << PORT, destination 0 (ws_tuser.vh)
    output reg  [18:0]                  m_axis_tmeta,

    output reg                          stat_rx,
    output reg  [15:0]                  stat_rx_len,
    output reg                          stat_oversize,
    output wire                         frame_ready     // pulse: a kept frame is whole in the FIFO (its metadata pushed);
                                                        // the same latency on every port, so pulses keep arrival order
);

    import ws_regmap::*;  // WS_LIMIT_PORTS

    `include "ws_tuser.vh"  // TUSER_W, tuser_pack()

    localparam integer BYTES = DATA_WIDTH / 8;
    localparam LB         = $clog2(BYTES);
    localparam WORDS      = BYTES / 2;                      // 16-bit words per beat
    localparam TL         = $clog2(WORDS);                  // adder tree levels
    localparam TW         = 17 + TL;                        // tree node width (leaves <= 2*0xFFFF)
    localparam FIFO_BEATS = FIFO_BYTES / BYTES;
    localparam AW         = $clog2(FIFO_BEATS);
    localparam MAX_BEATS  = (MAX_FRAME + BYTES - 1) / BYTES;
    localparam NBW        = $clog2(MAX_BEATS + 1);          // beats-per-frame field width
    localparam FD         = TL - 1;                         // frame-info delay to meet the sums
    localparam MW         = NBW + 16 + 19;                  // metadata FIFO word

    localparam integer BM1        = BYTES - 1;
    localparam integer MAXF       = MAX_FRAME;
    localparam integer TWO        = 2;
    localparam integer SRC        = 1 << PORT;
    localparam [16:0]  BYTES_17   = BYTES[16:0];
    localparam [15:0]  MAX_16     = MAXF[15:0];
    localparam [17:0]  BM1_18     = BM1[17:0];
    localparam [NBW-1:0] NBW_2    = TWO[NBW-1:0];
    localparam integer FB1        = FIFO_BEATS - 1;
    localparam [AW:0]  FB1_AW     = FB1[AW:0];
    localparam [N_PORTS-1:0] SRC_ONEHOT = SRC[N_PORTS-1:0];

    generate
        if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
            initial begin
                $error("Error: ws_rx_port %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                       DATA_WIDTH);
                $finish;
            end
        end
        if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS || PORT < 0 || PORT >= N_PORTS) begin : g_bad_port
            initial begin
                $error("Error: ws_rx_port %m: N_PORTS must be 1..WS_LIMIT_PORTS, PORT 0..N_PORTS-1 (N_PORTS = %0d, WS_LIMIT_PORTS = %0d, PORT = %0d)",
                       N_PORTS, WS_LIMIT_PORTS, PORT);
                $finish;
            end
        end
        if (MAX_FRAME < 1 || MAX_FRAME > WS_LIMIT_FRAME) begin : g_bad_max
            initial begin
                $error("Error: ws_rx_port %m: MAX_FRAME must be 1..%0d, the tuser length is 16 bits (MAX_FRAME = %0d)",
                       WS_LIMIT_FRAME, MAX_FRAME);
                $finish;
            end
        end
        if ((1 << $clog2(FIFO_BYTES)) != FIFO_BYTES || FIFO_BYTES < 2 * MAX_FRAME ||
            FIFO_BEATS <= MAX_BEATS || FIFO_BEATS < 2) begin : g_bad_fifo
            initial begin
                $error("Error: ws_rx_port %m: FIFO_BYTES must be a power of two >= 2*MAX_FRAME, more than MAX_BEATS beats (FIFO_BYTES = %0d, MAX_FRAME = %0d, MAX_BEATS = %0d)",
                       FIFO_BYTES, MAX_FRAME, MAX_BEATS);
                $finish;
            end
        end
    endgenerate

    // ------------------------------------------------------------------------------------------
    // Frame RAM
    reg [DATA_WIDTH-1:0] mem [0:FIFO_BEATS-1];
    reg [AW:0]           wr_ptr;        // next write (uncommitted frame included)
    reg [AW:0]           frame_start;   // first beat of the frame being written
    reg [AW:0]           rd_ptr;

    // ------------------------------------------------------------------------------------------
    // Write side, stage 0 (the accepted beat)
    reg         in_frame;       // the next beat is not a first beat
    reg         dropping;       // current frame is oversize: discard until tlast
    reg [16:0]  pos;            // byte offset of the current beat, saturates at 65536
    reg [15:0]  room;           // MAX_FRAME - pos while not dropping (saturates at 0)
    reg [1:0]   bidx;           // beat index, saturates at 3 (every header byte is below 3*BYTES)
    reg [3:0]   ihl_q;
    reg [15:0]  vport_q;

    wire        beat     = s_axis_tvalid && s_axis_tready;
    wire        first    = !in_frame;
    // the beat takes the frame past MAX_FRAME: byte number `room` of the beat is present
    wire        over_now = !dropping && (room[15:LB] == 0) && s_axis_tkeep[room[LB-1:0]];
    wire        drop_now = dropping || over_now;
    wire        wr_en    = beat && !drop_now;
    wire [AW:0] fs_cur   = first ? wr_ptr : frame_start;
    wire [3:0]  ihl_cur  = first ? s_axis_tdata[14*8 +: 4] : ihl_q;

    // vport: the word at byte 16 + 4*IHL, taken from whichever beat holds it, a cycle after the
    // beat (v1_*: the beat's 16 candidate words, its index and IHL, registered), so that the
    // choice does not follow the input's IHL in the same cycle
    reg        v1_beat;
    reg [1:0]  v1_bidx;
    reg [3:0]  v1_ihl;
    reg [255:0] v1_words;           // word vi: the bytes at 16 + 4*vi of the beat (mod BYTES)
    integer vi;
    always @(posedge clk) begin
        v1_beat <= !rst && beat;
        v1_bidx <= bidx;
        v1_ihl  <= ihl_cur;
        if (beat)   // read only with v1_beat
            for (vi = 0; vi < 16; vi = vi + 1)
                v1_words[vi*16 +: 16] <= {s_axis_tdata[((16 + 4 * vi) % BYTES) * 8 +: 8],
                                          s_axis_tdata[((16 + 4 * vi) % BYTES) * 8 + 8 +: 8]};
    end
    // the frame's vport with the beat of the cycle before: the word of its IHL (a 16-way select)
    // if this beat holds it (byte 16 + 4*IHL is in beat 0, 1 or 2 at every width)
    function [1:0] word_beat;
        input [3:0] ihl;
        /* verilator lint_off UNUSEDSIGNAL */  // the beat index is 0..2
        reg   [31:0] b;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            b = (16 + 4 * {28'd0, ihl}) / BYTES;
            word_beat = b[1:0];
        end
    endfunction
    wire [15:0] vport_cur = v1_bidx == word_beat(v1_ihl) ? v1_words[v1_ihl*16 +: 16] : vport_q;

    wire        drop_next   = beat ? (!s_axis_tlast && drop_now) : dropping;
    wire [AW:0] wr_ptr_next = (beat && over_now) ? fs_cur : (wr_en ? wr_ptr + 1'b1 : wr_ptr);
    wire        rd_en;
    wire [AW:0] rd_ptr_next = rd_en ? rd_ptr + 1'b1 : rd_ptr;

    // RAM full after this cycle: the fill and its compares come from registers, and the beat's
    // and the read's decisions (late: tkeep, the arbiter's ready) only pick among them. A beat
    // is written below FIFO_BEATS only (ready, not dropped), a read or a roll-back frees room.
    wire [AW:0] fill        = wr_ptr - rd_ptr;
    wire        fill_last   = (fill == FB1_AW);
    wire        full_next   = !rd_en && (wr_en ? fill_last : fill[AW]);

    always @(posedge clk) begin
        if (rst) begin
            in_frame      <= 1'b0;
            dropping      <= 1'b0;
            pos           <= 17'd0;
            room          <= MAX_16;
            bidx          <= 2'd0;
            wr_ptr        <= {AW+1{1'b0}};
            frame_start   <= {AW+1{1'b0}};
            s_axis_tready <= 1'b0;
        end else begin
            wr_ptr        <= wr_ptr_next;
            dropping      <= drop_next;
            // ready when the RAM has room for a beat, or when the beat will be discarded anyway
            s_axis_tready <= drop_next || !full_next;
            if (beat) begin
                if (first) begin
                    frame_start <= wr_ptr;
                end
                if (s_axis_tlast) begin
                    in_frame <= 1'b0;
                    pos      <= 17'd0;
                    room     <= MAX_16;
                    bidx     <= 2'd0;
                end else begin
                    in_frame <= 1'b1;
                    pos      <= pos[16] ? pos : pos + BYTES_17;
                    room     <= (room > BYTES_17[15:0]) ? room - BYTES_17[15:0] : 16'd0;
                    bidx     <= (bidx == 2'd3) ? bidx : bidx + 2'd1;
                end
            end
        end
    end

    always @(posedge clk) begin
        if (wr_en) begin
            mem[wr_ptr[AW-1:0]] <= s_axis_tdata;
        end
        if (beat)
            ihl_q   <= ihl_cur;
        if (v1_beat)
            vport_q <= vport_cur;
    end

    // per-beat control, delayed to meet the roots (element k is valid in cycle k after the beat)
    reg [TL+1:1] cd_v;
    reg [TL+1:1] cd_first;
    reg [TL+1:1] cd_last;
    reg [TL+1:1] cd_drop;
    always @(posedge clk) begin
        if (rst) begin
            cd_v <= {TL+1{1'b0}};
        end else begin
            cd_v <= {cd_v[TL:1], beat};
        end
        cd_first <= {cd_first[TL:1], first};
        cd_last  <= {cd_last[TL:1], s_axis_tlast};
        cd_drop  <= {cd_drop[TL:1], drop_now};
    end

    // ------------------------------------------------------------------------------------------
    // Checksum adder trees. Leaf j is the big-endian word at byte 2j of the beat, bytes outside
    // tkeep read as zero. Tree A (IPv4 header) takes the words at frame bytes 14..32; tree B (UDP)
    // takes words 26..32 once, word 38 twice (UDP length: pseudo-header and header) and every
    // other word from byte 34 on once. The per-word weights depend only on bidx.
    //
    // heap-ordered nodes: node n = node 2n + node 2n+1, leaves at WORDS..2*WORDS-1, root at 1;
    // every node is a register, so the root holds the sum of the beat of TL+1 cycles ago. A node
    // at depth d (root 0) sums 2^(TL-d) leaves and needs 17+TL-d bits: the bits above are masked
    // to constant zero so that synthesis drops their flip-flops. Each level loads only with the
    // beat that goes through it (the leaves with `beat`, depth d with cd_v[TL-d]; the root is
    // read only with cd_v[TL+1]): a clock enable per level, and Verilator evaluates the leaves
    // (from the input bus: twice a cycle, as input logic) and the adds only for a beat of this
    // port.
    reg [TW-1:0] tree_a [1:2*WORDS-1];
    reg [TW-1:0] tree_b [1:2*WORDS-1];

    // leaf j's word, and its weights in the two trees by bidx: per beat index bi (0 to 2; 3,
    // past the headers: tree A 0, tree B 1) a constant of the frame byte the leaf holds, as the
    // table of constants it is (a function of bidx alone, not arithmetic on it)
    function [15:0] leaf_w(input integer j);
        begin
            leaf_w = {s_axis_tkeep[2*j]   ? s_axis_tdata[16*j +: 8]     : 8'd0,
                      s_axis_tkeep[2*j+1] ? s_axis_tdata[16*j + 8 +: 8] : 8'd0};
        end
    endfunction
    function a_sel_at(input integer fb);   // fb: the frame byte of the leaf at a beat index
        a_sel_at = fb >= 14 && fb <= 32;
    endfunction
    function [1:0] b_wt_at(input integer fb);
        b_wt_at = (fb >= 34) ? ((fb == 38) ? 2'd2 : 2'd1) : ((fb >= 26) ? 2'd1 : 2'd0);
    endfunction
    function [TW-1:0] leaf_a(input integer j);
        reg sel;
        begin
            case (bidx)
            2'd0:    sel = a_sel_at(2 * j);
            2'd1:    sel = a_sel_at(BYTES + 2 * j);
            2'd2:    sel = a_sel_at(2 * BYTES + 2 * j);
            default: sel = 1'b0;
            endcase
            leaf_a = sel ? {{(TW-16){1'b0}}, leaf_w(j)} : {TW{1'b0}};
        end
    endfunction
    function [TW-1:0] leaf_b(input integer j);
        reg [1:0] wt;
        begin
            case (bidx)
            2'd0:    wt = b_wt_at(2 * j);
            2'd1:    wt = b_wt_at(BYTES + 2 * j);
            2'd2:    wt = b_wt_at(2 * BYTES + 2 * j);
            default: wt = 2'd1;
            endcase
            leaf_b = (wt == 2'd2) ? {{(TW-17){1'b0}}, leaf_w(j), 1'b0} :
                     (wt == 2'd1) ? {{(TW-16){1'b0}}, leaf_w(j)} : {TW{1'b0}};
        end
    endfunction

    integer tn;
    always @(posedge clk) begin
        if (beat)
            for (tn = 0; tn < WORDS; tn = tn + 1) begin
                tree_a[WORDS+tn] <= leaf_a(tn);
                tree_b[WORDS+tn] <= leaf_b(tn);
            end
    end

    genvar gn;
    generate
        for (gn = 1; gn < WORDS; gn = gn + 1) begin : g_node
            localparam [TW-1:0] MASK = {TW{1'b1}} >> ($clog2(gn + 1) - 1);
            localparam integer  LVL  = TL - ($clog2(gn + 1) - 1);   // TL - depth: cd_v's index
            always @(posedge clk)
                if (cd_v[LVL]) begin
                    tree_a[gn] <= (tree_a[2*gn] + tree_a[2*gn+1]) & MASK;
                    tree_b[gn] <= (tree_b[2*gn] + tree_b[2*gn+1]) & MASK;
                end
        end
    endgenerate

    // per-frame accumulation (cycle TL+1), then fold to 17 bits (TL+2); the result is checked
    // in cycle TL+3: fold16(f) == 0xFFFF  <=>  f == 0x0FFFF or f == 0x1FFFE
    reg [31:0] acc_a;
    reg [31:0] acc_b;
    reg [16:0] f1_a;
    reg [16:0] f1_b;
    reg        e1_v;
    reg        e2_v;
    always @(posedge clk) begin
        if (cd_v[TL+1]) begin
            acc_a <= (cd_first[TL+1] ? 32'd0  : acc_a) + {{(32-TW){1'b0}}, tree_a[1]};
            acc_b <= (cd_first[TL+1] ? 32'h11 : acc_b) + {{(32-TW){1'b0}}, tree_b[1]};
        end
        f1_a <= {1'b0, acc_a[15:0]} + {1'b0, acc_a[31:16]};
        f1_b <= {1'b0, acc_b[15:0]} + {1'b0, acc_b[31:16]};
    end
    always @(posedge clk) begin
        if (rst) begin
            e1_v <= 1'b0;
            e2_v <= 1'b0;
        end else begin
            e1_v <= cd_v[TL+1] && cd_last[TL+1] && !cd_drop[TL+1];
            e2_v <= e1_v;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Frame end: length, vport, statistics (stages s1..s4), then delayed to cycle TL+3
    reg         s1_v, s2_v, s3_v;
    reg         s1_drop, s2_drop, s3_drop;
    reg [BYTES-1:0] s1_keep;
    reg [16:0]  s1_pos, s2_pos;
    reg [LB-1:0] s2_hb;
    reg [17:0]  s3_len;
    reg [3:0]   s1_ihl, s2_ihl, s3_ihl;
    reg [15:0]  s2_vport, s3_vport;   // (vport_cur has the last beat in cycle s1)

    // highest kept byte of the last beat (tkeep is contiguous from bit 0): an OR of the indexes
    // of its top bit, a bit of the index per OR
    function [LB-1:0] top_byte(input [BYTES-1:0] keep);
        reg [BYTES-1:0] top;
        integer hi;
        begin
            top = keep & ~(keep >> 1);
            top_byte = {LB{1'b0}};
            for (hi = 0; hi < BYTES; hi = hi + 1)
                if (top[hi])
                    top_byte = top_byte | hi[LB-1:0];
        end
    endfunction

    wire [15:0]    s3_len16   = (s3_len > 18'd65535) ? 16'hFFFF : s3_len[15:0];
    /* verilator lint_off UNUSEDSIGNAL */ // only the low NBW bits: a kept frame has <= MAX_BEATS beats
    wire [17:0]    s3_beats   = (s3_len + BM1_18) >> LB;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [17:0]    s3_vp_need = 18'd18 + {12'd0, s3_ihl, 2'b00};
    // frame info: {beats, len, vport, vport_valid, len >= 42, len >= 34}
    localparam FW = NBW + 16 + 16 + 3;
    wire           s3_vp_ok   = (s3_len >= s3_vp_need);
    wire [FW-1:0]  s3_info = {s3_beats[NBW-1:0], s3_len16, s3_vp_ok ? s3_vport : 16'd0, s3_vp_ok,
                              s3_len >= 18'd42, s3_len >= 18'd34};
    reg  [FW-1:0]  fd [1:FD+1];     // fd[1] in cycle 4, fd[FD+1] in cycle TL+3

    always @(posedge clk) begin
        if (rst) begin
            s1_v          <= 1'b0;
            s2_v          <= 1'b0;
            s3_v          <= 1'b0;
            stat_rx       <= 1'b0;
            stat_oversize <= 1'b0;
        end else begin
            s1_v          <= beat && s_axis_tlast;
            s2_v          <= s1_v;
            s3_v          <= s2_v;
            stat_rx       <= s3_v;
            stat_oversize <= s3_v && s3_drop;
        end
    end

    // each stage loads with its frame end (the valid of the stage before), as a clock enable:
    // what the stages hold between frame ends is read by nothing, and Verilator evaluates
    // them, the top byte's OR above and the length's add only for a frame end
    integer fi;
    always @(posedge clk) begin
        if (beat && s_axis_tlast) begin
            s1_drop <= drop_now;
            s1_keep <= s_axis_tkeep;
            s1_pos  <= pos;
            s1_ihl  <= ihl_cur;
        end
        if (s1_v) begin
            s2_drop  <= s1_drop;
            s2_pos   <= s1_pos;
            s2_hb    <= top_byte(s1_keep);
            s2_ihl   <= s1_ihl;
            s2_vport <= vport_cur;
        end
        if (s2_v) begin
            s3_drop  <= s2_drop;
            s3_len   <= {1'b0, s2_pos} + {{(18-LB){1'b0}}, s2_hb} + 18'd1;
            s3_ihl   <= s2_ihl;
            s3_vport <= s2_vport;
        end
        stat_rx_len <= s3_len16;
        fd[1]       <= s3_info;
        for (fi = 2; fi <= FD + 1; fi = fi + 1) begin
            fd[fi] <= fd[fi-1];
        end
    end

    // ------------------------------------------------------------------------------------------
    // Metadata FIFO: {beats, length, meta}, pushed in cycle TL+3 after a kept frame's last beat
    wire [FW-1:0] e_info = fd[FD+1];
    wire          e_ip   = e_info[0] && (f1_a == 17'h0FFFF || f1_a == 17'h1FFFE);
    wire          e_udp  = e_info[1] && (f1_b == 17'h0FFFF || f1_b == 17'h1FFFE);
    wire [MW-1:0] meta_in = {e_info[FW-1 -: NBW + 16 + 16 + 1], e_udp, e_ip};

    wire [MW-1:0]  meta_out;
    wire           meta_valid;
    wire           meta_pop;
    wire           meta_in_ready;
    wire [AW:0]    meta_count;

    ws_fifo #(
        .WIDTH (MW),
        .DEPTH (FIFO_BEATS)
    ) u_meta_fifo (
        .clk     (clk),
        .rst     (rst),
        .s_data  (meta_in),
        .s_valid (e2_v),
        .s_ready (meta_in_ready),
        .m_data  (meta_out),
        .m_valid (meta_valid),
        .m_ready (meta_pop),
        .count   (meta_count)
    );

    assign frame_ready = e2_v;

`ifndef SYNTHESIS
    always @(posedge clk) begin
        if (!rst && e2_v && !meta_in_ready) begin
            $error("Error: ws_rx_port %m: metadata FIFO overflow (count = %0d)", meta_count);
        end
    end
`endif

    // ------------------------------------------------------------------------------------------
    // Read side
    wire [NBW-1:0] mo_beats = meta_out[MW-1 -: NBW];
    wire [15:0]    mo_len   = meta_out[19 +: 16];
    wire [18:0]    mo_meta  = meta_out[18:0];       // {vport, vport_valid, udp_ok, ip_ok}

    reg             rd_in_frame;
    reg [NBW-1:0]   rd_left;        // beats after the next one
    reg [BYTES-1:0] rd_lastkeep;

    wire [LB-1:0]    mo_rem      = mo_len[LB-1:0];
    wire [BYTES-1:0] mo_lastkeep = (mo_rem == {LB{1'b0}}) ? {BYTES{1'b1}} : ~({BYTES{1'b1}} << mo_rem);

    wire rd_avail = rd_in_frame || meta_valid;
    assign rd_en    = rd_avail && (!m_axis_tvalid || m_axis_tready);
    assign meta_pop = rd_en && !rd_in_frame;
    wire rd_last  = rd_in_frame ? (rd_left == {NBW{1'b0}}) : (mo_beats == {{(NBW-1){1'b0}}, 1'b1});

    always @(posedge clk) begin
        if (rst) begin
            rd_ptr        <= {AW+1{1'b0}};
            rd_in_frame   <= 1'b0;
            m_axis_tvalid <= 1'b0;
        end else begin
            rd_ptr <= rd_ptr_next;
            if (rd_en) begin
                m_axis_tvalid <= 1'b1;
                rd_in_frame   <= !rd_last;
            end else if (m_axis_tready) begin
                m_axis_tvalid <= 1'b0;
            end
        end
    end

    always @(posedge clk) begin
        if (rd_en) begin
            m_axis_tdata <= mem[rd_ptr[AW-1:0]];
            m_axis_tlast <= rd_last;
            m_axis_tkeep <= !rd_last ? {BYTES{1'b1}} : (rd_in_frame ? rd_lastkeep : mo_lastkeep);
            rd_left      <= rd_in_frame ? rd_left - 1'b1 : mo_beats - NBW_2;
            if (!rd_in_frame) begin
                rd_lastkeep  <= mo_lastkeep;
                m_axis_tuser <= tuser_pack(mo_len, SRC_ONEHOT, {N_PORTS{1'b0}});
                m_axis_tmeta <= mo_meta;
            end
        end
    end

endmodule

`resetall
