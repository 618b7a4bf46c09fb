# tb_ws_parser: the parser (hw/ws_regmap.vh and the layouts come in through `include, -I hw)
hw/ws_fifo.v
hw/ws_skid.v
hw/ws_parser.v
tests/hw/axis_tb_monitor.v
tests/hw/tb_ws_parser.v
