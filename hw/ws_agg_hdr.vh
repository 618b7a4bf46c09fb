// ws_agg_hdr.vh - the header sideband of an aggregation frame (ws_parser m_agg_hdr -> ws_engine),
// one definition for both. Included inside a module body that defines JI_W, PS_W, WK_W, CN_W, WC_W.
localparam H_JOBIDX  = 0;                       // job index in the table
localparam H_JOBID   = H_JOBIDX + JI_W;         // job id
localparam H_PSLOT   = H_JOBID + 16;            // pool slot = slot_base + slot
localparam H_SLOT    = H_PSLOT + PS_W;          // job-relative slot
localparam H_SET     = H_SLOT + 16;             // SET flag
localparam H_WORKER  = H_SET + 1;               // sender's rank
localparam H_COUNT   = H_WORKER + WK_W;         // elements
localparam H_OFFSET  = H_COUNT + CN_W;          // round offset
localparam H_TENSOR  = H_OFFSET + 32;           // round tensor
localparam H_ECN     = H_TENSOR + 32;           // IPv4 ECN bits
localparam H_WORKERS = H_ECN + 2;               // workers of the job
// PARTIAL = 1 (0 otherwise): the frame is the parent's RESULT for the job (whose own index and id
// are H_JOBIDX and H_JOBID, H_WORKER 0), to be fanned out to its members; the job has a parent
// (on every token of such a job: DATA, PARTIAL or the parent's RESULT)
localparam H_FANOUT  = H_WORKERS + WC_W;
localparam H_PARENT  = H_FANOUT + 1;
localparam HDR_W     = H_PARENT + 1;
