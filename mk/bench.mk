# mk/bench.mk - `make bench`: docs/performance.md and its plots (not part of `make test`).

.PHONY: bench

# `make bench`: docs/performance.md and docs/perf/*.png (bench/run.sh); the rows with 1024
# elements per packet need a model with MAX_COUNT 1024, built here
bench: deps $(BUILD)/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/mc1024 WS_SIM_WIDTHS="256 512 1024" \
	  WS_VFLAGS=-GMAX_COUNT=1024 $(BUILD)/bench/mc1024/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/e4 WS_SIM_WIDTHS="256 512" WS_SIM_FAST_WIDTHS= \
	  WS_VFLAGS=-GENGINES=4 $(BUILD)/bench/e4/wiresum
	@WS=$(BUILD)/wiresum WS_MC1024=$(BUILD)/bench/mc1024/wiresum WS_E4=$(BUILD)/bench/e4/wiresum \
	  sh bench/run.sh $(BENCH_ARGS)
