# mk/bench.mk - `make bench`: docs/performance.md and its plots (not part of `make test`).

.PHONY: bench bench-fidelity-build

# `make bench`: docs/performance.md and docs/perf/*.png (bench/all.sh); the rows with 1024
# elements per packet need a model with MAX_COUNT 1024, built here; the trees of RTL devices
# (bench/fabric.sh) the default device built with PARTIAL = 1 and the longest PARTIAL of 256
# elements (MAX_FRAME 12352), one engine at 256 bits, built here too
bench: deps $(BUILD)/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/p1 WS_SIM_WIDTHS=256 \
	  WS_VFLAGS='-GPARTIAL=1 -GMAX_FRAME=12352' $(BUILD)/bench/p1/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/mc1024 WS_SIM_WIDTHS="256 512 1024" \
	  WS_VFLAGS=-GMAX_COUNT=1024 $(BUILD)/bench/mc1024/wiresum
	+@$(SUBMAKE) BUILD=$(BUILD)/bench/e4 WS_SIM_WIDTHS="256 512" WS_SIM_FAST_WIDTHS= \
	  WS_SIM_TRACED_WIDTHS="256 512" \
	  WS_VFLAGS=-GENGINES=4 $(BUILD)/bench/e4/wiresum
	+@$(SUBMAKE) $(WS_FID_FLAGS) $(BUILD)/bench/fid/wiresum $(BUILD)/bench/fid/wiresum-cluster
	@WS=$(BUILD)/wiresum WS_MC1024=$(BUILD)/bench/mc1024/wiresum WS_E4=$(BUILD)/bench/e4/wiresum \
	  WS_P1=$(BUILD)/bench/p1/wiresum WS_FID=$(BUILD)/bench/fid/wiresum \
	  sh bench/all.sh $(BENCH_ARGS)

# the fidelity of the cluster's timing model at scale (bench/cluster_fidelity.sh): the device of
# bench/cluster.sh, 1024 bits with four engines, built to take PARTIALs (a tree's leaves and
# root) of counts up to 2048 (MAX_FRAME 65535 holds the hierarchy's PARTIALs of 1344 elements);
# without tracing and at -O1 (compile time; the runs are small)
WS_FID_FLAGS := BUILD=$(BUILD)/bench/fid WS_SIM_WIDTHS=1024 WS_SIM_TRACED_WIDTHS= WS_SIM_OPT=-O1 \
                WS_VFLAGS='-GENGINES=4 -GPARTIAL=1 -GMAX_COUNT=2048 -GMAX_FRAME=65535'
bench-fidelity-build: deps $(BUILD)/wiresum
	+@$(SUBMAKE) $(WS_FID_FLAGS) $(BUILD)/bench/fid/wiresum $(BUILD)/bench/fid/wiresum-cluster
