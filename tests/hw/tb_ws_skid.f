hw/ws_skid.v
tests/hw/tb_ws_skid.v
