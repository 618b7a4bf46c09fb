// ws_cmd.vh - a command to the result generators (ws_engine cmd_data -> ws_result_gen), one
// definition for both and the top: one round to send to the ranks rank_lo..rank_hi of its set.
// Included inside a module body that defines Q_W, JI_W, WK_W, CN_W (ws_widths.vh) and
// MAX_WORKERS.
/* verilator lint_off UNUSEDPARAM */  // a shared block: each module uses the fields it needs
localparam C_RANK_LO = 0;                       // first rank to send to
localparam C_RETX    = C_RANK_LO + WK_W;        // a re-send (RETX set)
localparam C_RANK_HI = C_RETX + 1;              // last rank to send to (inclusive)
localparam C_CSUM    = C_RANK_HI + WK_W;        // folded ones-complement sum of the elements' words
localparam C_ECN     = C_CSUM + 16;             // IPv4 ECN bits: the OR of the round's
localparam C_COUNT   = C_ECN + 2;               // elements, 1..MAX_COUNT
localparam C_TENSOR  = C_COUNT + CN_W;          // round tensor
localparam C_OFFSET  = C_TENSOR + 32;           // round offset
localparam C_SLOT    = C_OFFSET + 32;           // job-relative slot
localparam C_JOBID   = C_SLOT + 16;             // job id
localparam C_JOBIDX  = C_JOBID + 16;            // job table index (member table row block)
localparam C_Q       = C_JOBIDX + JI_W;         // set: 2*pool slot + SET (its result RAM rows)
localparam C_PART    = C_Q + Q_W;               // a PARTIAL to the job's parent (rank 0 only), not RESULTs
localparam C_EXT     = C_PART + 1;              // its record words (the checksum is of all its words)
localparam C_CE      = C_EXT + 16;              // a bit per rank: its contribution came marked CE
localparam CMD_W     = C_CE + MAX_WORKERS;
/* verilator lint_on UNUSEDPARAM */
