hw/ws_pipe_reg.v
hw/ws_f32_to_fx.v
hw/ws_fx_to_f32.v
hw/ws_acc_lane.v
tests/hw/tb_ws_acc_lane.v
