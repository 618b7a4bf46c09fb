hw/ws_skid.v
hw/ws_egress_arbiter.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_egress_arbiter.v
