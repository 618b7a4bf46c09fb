# tb_ws_combine: the combine, the result RAMs and the commands (hw/ws_regmap.vh and the layouts come in through `include, -I hw)
hw/ws_fifo.v
hw/ws_pipe_reg.v
hw/ws_fx_to_f32.v
hw/ws_round_csum.v
hw/ws_partial_enc.v
hw/ws_comb_lane.v
hw/ws_combine.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_combine.v
