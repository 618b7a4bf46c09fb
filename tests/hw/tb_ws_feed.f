# tb_ws_feed: one engine's feed and lanes (hw/ws_regmap.vh and the layouts come in through `include, -I hw)
hw/ws_fifo.v
hw/ws_pipe_reg.v
hw/ws_f32_to_fx.v
hw/ws_fx_to_f32.v
hw/ws_acc_lane.v
hw/ws_feed.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_feed.v
