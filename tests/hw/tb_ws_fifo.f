hw/ws_fifo.v
hw/ws_skid.v
tests/hw/tb_ws_fifo.v
