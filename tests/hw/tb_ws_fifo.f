hw/ws_fifo.v
tests/hw/tb_ws_fifo.v
