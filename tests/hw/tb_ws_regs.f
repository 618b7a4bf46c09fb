# tb_ws_regs: the AXI4-Lite register block (hw/ws_regmap.vh comes in through `include, -I hw)
hw/ws_counters.v
hw/ws_regs.v
tests/hw/tb_ws_regs.v
