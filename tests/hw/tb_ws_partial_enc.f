hw/ws_fifo.v
hw/ws_round_csum.v
hw/ws_partial_enc.v
tests/hw/tb_ws_partial_enc.v
