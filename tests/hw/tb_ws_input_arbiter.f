hw/ws_fifo.v
hw/ws_skid.v
hw/ws_input_arbiter.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_input_arbiter.v
