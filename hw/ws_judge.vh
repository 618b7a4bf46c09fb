// ws_judge.vh - what ws_judge hands to the rest of ws_engine: a decision (to an engine's lanes)
// and a completion (to the combine), one definition for both. Included inside a module body
// that defines ENGINES, FC_W and the widths of ws_widths.vh.
/* verilator lint_off UNUSEDPARAM */  // a shared block: each module uses the fields it needs
// a decision: the frame accepted, its engine's first frame of the round (the entries start
// empty), the round's last frame (ENGINES = 1: the lanes round), its set
localparam DC_Q      = 0;
localparam DC_LAST   = DC_Q + Q_W;
localparam DC_FIRST  = DC_LAST + 1;
localparam DC_ACCEPT = DC_FIRST + 1;
localparam DC_W      = DC_ACCEPT + 1;
// a completion: the set, the round's count and its result RAM rows, the engines that took part,
// and the fence (every engine's count of decisions up to and including the round's last frame)
localparam CF_FENCE  = 0;
localparam CF_TOUCH  = CF_FENCE + ENGINES * FC_W;
localparam CF_ROWS   = CF_TOUCH + ENGINES;
localparam CF_COUNT  = CF_ROWS + BT_W;
localparam CF_Q      = CF_COUNT + CN_W;
localparam CF_PART   = CF_Q + Q_W;          // the round's exact sums go to the PARTIAL encoder, not rounded
localparam CF_W      = CF_PART + 1;
/* verilator lint_on UNUSEDPARAM */
