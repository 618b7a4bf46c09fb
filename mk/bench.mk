# mk/bench.mk - `make bench`: docs/performance.md and its plots (not part of `make test`).

.PHONY: bench

# `make bench`: docs/performance.md and docs/perf/*.png (bench/run.sh); the rows with 1024
# elements per packet need a model with MAX_COUNT 1024, built here; the trees of RTL devices
# (bench/fabric.sh) the default device built with PARTIAL = 1 and the longest PARTIAL of 256
# elements (MAX_FRAME 12352), one engine at 256 bits, built here too
bench: deps $(BUILD)/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/p1 WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS=256 \
	  WS_VFLAGS='-GPARTIAL=1 -GMAX_FRAME=12352' $(BUILD)/bench/p1/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/mc1024 WS_SIM_WIDTHS="256 512 1024" \
	  WS_VFLAGS=-GMAX_COUNT=1024 $(BUILD)/bench/mc1024/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/e4 WS_SIM_WIDTHS="256 512" WS_SIM_FAST_WIDTHS= \
	  WS_VFLAGS=-GENGINES=4 $(BUILD)/bench/e4/wiresum
	@WS=$(BUILD)/wiresum WS_MC1024=$(BUILD)/bench/mc1024/wiresum WS_E4=$(BUILD)/bench/e4/wiresum \
	  WS_P1=$(BUILD)/bench/p1/wiresum \
	  sh bench/run.sh $(BENCH_ARGS)
