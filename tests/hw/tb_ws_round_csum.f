hw/ws_fifo.v
hw/ws_round_csum.v
tests/hw/tb_ws_round_csum.v
