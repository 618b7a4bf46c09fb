// ws_widths.vh - the widths derived from the device parameters, one definition for every module.
// Included inside a module body that has the parameters DATA_WIDTH, MAX_JOBS, MAX_WORKERS,
// POOL_SLOTS and MAX_COUNT (ws_parser, ws_judge, ws_engine, ws_result_gen, ws_regs,
// wiresum_top); what depends on N_PORTS is in ws_tuser.vh and ws_member.vh.
/* verilator lint_off UNUSEDPARAM */  // a shared block: each module uses the part it needs
localparam integer BYTES       = DATA_WIDTH / 8;                              // bytes of a beat
localparam integer LANES       = DATA_WIDTH / 32;                             // elements of a beat
localparam integer JI_W        = MAX_JOBS > 1 ? $clog2(MAX_JOBS) : 1;         // a job index
localparam integer WK_W        = MAX_WORKERS > 1 ? $clog2(MAX_WORKERS) : 1;   // a worker's rank
localparam integer WC_W        = $clog2(MAX_WORKERS + 1);                     // a number of workers
localparam integer SL_W        = $clog2(POOL_SLOTS + 1);                      // a number of slots, a slot base
localparam integer PS_W        = POOL_SLOTS > 1 ? $clog2(POOL_SLOTS) : 1;     // a pool slot
localparam integer CN_W        = $clog2(MAX_COUNT + 1);                       // a count (elements)
localparam integer N_MEM       = MAX_JOBS * MAX_WORKERS;                      // member records
localparam integer MA_W        = N_MEM > 1 ? $clog2(N_MEM) : 1;               // a member: job*MAX_WORKERS + rank
localparam integer Q_N         = 2 * POOL_SLOTS;                              // sets: q = 2*pool slot + SET
localparam integer Q_W         = $clog2(Q_N);                                 // a set
localparam integer HDR_BEATS   = (64 + BYTES - 1) / BYTES;                    // beats holding the 64 header bytes
localparam integer PAY_BEAT0   = 64 / BYTES;                                  // the first beat of the payload rows
localparam integer FRAME_BEATS = (64 + 4*MAX_COUNT + BYTES - 1) / BYTES;      // beats of the longest frame
localparam integer PAY_BEATS   = FRAME_BEATS - PAY_BEAT0;                     // result RAM rows of a set
localparam integer RDEPTH      = Q_N * PAY_BEATS;                             // result RAM rows
localparam integer RA_W        = $clog2(RDEPTH);                              // a result RAM row
localparam integer BT_W        = $clog2(FRAME_BEATS + 1);                     // a beat count, 0..FRAME_BEATS
localparam integer PART_BEATS  = (64 + 48*MAX_COUNT + BYTES - 1) / BYTES;     // beats of the longest PARTIAL
localparam integer PR_ROWS     = PART_BEATS - PAY_BEAT0;                      // its rows in a frame buffer
localparam integer PR_W        = PR_ROWS > 1 ? $clog2(PR_ROWS) : 1;           // a row of a PARTIAL's frame buffer
/* verilator lint_on UNUSEDPARAM */
