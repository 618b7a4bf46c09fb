hw/ws_skid.v
hw/ws_result_gen.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_result_gen.v
