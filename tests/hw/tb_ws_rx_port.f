hw/ws_fifo.v
hw/ws_rx_port.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_rx_port.v
