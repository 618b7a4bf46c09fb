# tb_ws_judge: the slot state judge (hw/ws_regmap.vh and the layouts come in through `include, -I hw)
hw/ws_fifo.v
hw/ws_skid.v
hw/ws_judge.v
tests/hw/tb_ws_judge.v
