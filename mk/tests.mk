# mk/tests.mk - the suites of `make test` (Makefile), each a target that can also run alone.
# Each appends "suite case passed failed" lines to build/results.txt.

.PHONY: test-build unit unit-asan e2e numerics rtl engines hw hwtest regmap-check wave wave-check wave-picture \
        runloop tree partial cluster layers \
        stress fuzz fuzz-short dissector ux docs-check readme readme-check bench-tools fresh-build lib json

# the suites, in the order make test starts them: the longest first (seconds in a make test on
# the 2-core machine of 2026-11-29 at 5e507db, two at a time, build/times.txt: hw 129,
# fuzz-short 113, partial 98, rtl 80, engines 40, cluster 29, unit-asan 25, lint 168 beside the
# build, the others under 20), so that two at a time end together
TEST_SUITES := $(if $(WS_HAVE_TOP),hw fuzz-short partial rtl engines) cluster unit-asan unit \
               fresh-build dissector $(if $(WS_HAVE_TOP),readme-check runloop ux stress lint) \
               bench-tools $(if $(WS_HAVE_TOP),json tree lib) layers e2e numerics \
               $(if $(WS_HAVE_TOP),wave-check regmap-check) docs-check
# the suites that build no model: make test runs them beside the build
TEST_EARLY  := docs-check bench-tools fresh-build $(if $(WS_HAVE_TOP),lint regmap-check)
# each suite's recipe lines run under tests/timed.sh, which adds "SUITE WALL CPU" (seconds) to
# $(BUILD)/times.txt; make test prints the table (tests/summary.sh). private: not the prerequisites'
$(TEST_SUITES): private SHELL = $(CURDIR)/tests/timed.sh
$(TEST_SUITES): private .SHELLFLAGS = $@ $(BUILD)/times.txt -c
# `make print-suites`: TEST_SUITES (tests/docs_check.sh checks README.md's list against it)
.PHONY: print-suites
print-suites:
	@echo $(TEST_SUITES)

test-build: $(PLAIN_TESTS) $(ASAN_TESTS) $(BUILD)/wiresum $(BUILD)/asan/wiresum $(PLAIN_TOOLS) \
    $(BUILD)/wiresum-cluster \
    $(BUILD)/regmap_gen $(BUILD)/libwiresum.so.$(WS_SOVER) \
    $(if $(WS_HAVE_TOP),$(IVB)/ws256.vvp $(IVB)/ws_vpi.vpi $(BUILD)/allreduce $(BUILD)/libwiresum-sim.a \
      $(WS_P1) $(WS_P1_IV) $(WS_P1_CLUSTER))

unit: deps $(PLAIN_TESTS)
	@sh tests/unit.sh $(BUILD)/tests $(PLAIN_TESTS)

unit-asan: deps $(ASAN_TESTS)
	@sh tests/unit.sh $(BUILD)/asan/tests $(ASAN_TESTS)

e2e: deps $(BUILD)/wiresum $(BUILD)/asan/wiresum $(PLAIN_TOOLS)
	@sh tests/e2e.sh $(BUILD)/wiresum $(BUILD)/asan/wiresum

# `wiresum numerics` on hand-made recordings with known answers, gen's distributions, bad input
numerics: deps $(BUILD)/wiresum $(BUILD)/asan/wiresum
	@sh tests/numerics.sh $(BUILD)/wiresum $(BUILD)/asan/wiresum

# RTL regression: traces through the Verilator model at 256 and 512 bits, a smoke run at 1024;
# tests/order.sh: the order kept per stream, several ports onto one egress (also at E = 4)
rtl: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@rc=0; sh tests/rtl.sh $(BUILD)/wiresum || rc=1; \
	 sh tests/order.sh $(BUILD)/wiresum rtl || rc=1; exit $$rc

# The device built with four engines (the PARTIAL build's 256-bit one), in Verilator and Icarus
# (WS_MODELS_BUILT=1, make test's suites after test-build: the models are built, and the
# PARTIAL build is asked of no sub-make, which would let every other suite start first)
engines: deps $(BUILD)/wiresum $(PLAIN_TOOLS) $(if $(WS_MODELS_BUILT),,$(WS_P1))
	@rc=0; sh tests/engines.sh $(WS_P1) || rc=1; \
	 sh tests/order.sh $(WS_P1) engines || rc=1; exit $$rc

# PARTIAL frames, as a parent and as a child (docs/protocol.md section 9): recorded trees' roots
# and children, edited and malformed PARTIALs and RESULTs, DATA traces and closed loops through
# the build with PARTIAL = 1 (build/p1: four engines at 256 bits, one at 512, and Icarus at 256)
partial: deps $(PLAIN_TOOLS) $(if $(WS_MODELS_BUILT),,$(WS_P1) $(WS_P1_IV))
	@sh tests/partial.sh $(WS_P1)

# RTL stage testbenches, the quick Icarus set; `make hwtest`: the full scripts, both simulators
hw: deps $(PLAIN_TOOLS)
	@sh tests/hw.sh

hwtest: deps $(PLAIN_TOOLS)
	@sh tests/hw/acc_lane.sh && sh tests/hw/result_gen.sh && sh tests/hw/stream.sh && sh tests/hw/partial_enc.sh && \
	 sh tests/hw/engine.sh

# the docs: docs/pipeline.svg up to date with docs/pipeline.dot, relative links resolve
docs-check: deps
	@sh tests/docs_check.sh

# README.md's output excerpts are what their commands print today (scripts/readme.sh: the demo,
# a trace, a closed loop, tshark; 26 to 33 s of CPU); `make readme` writes them again
readme-check: deps $(BUILD)/wiresum
	@sh scripts/readme.sh --check $(BUILD)/wiresum

readme: deps $(BUILD)/wiresum
	@sh scripts/readme.sh $(BUILD)/wiresum

# the resource benchmark's tools (bench/lut_levels.py, bench/resources.awk) on netlists with known answers
bench-tools: deps
	@WS_RESULTS=$(BUILD)/results.txt sh tests/bench_tools.sh

# the first steps of `make demo` and `make test` on a machine where the packages are not
# installed yet (Verilator and Icarus hidden from PATH until a stand-in install step runs)
fresh-build:
	@WS_RESULTS=$(BUILD)/results.txt sh tests/fresh_build.sh

# libwiresum installed and used from outside the tree through pkg-config (the driver alone, the
# headers, examples/allreduce.c against the shared and the static library)
lib: deps $(BUILD)/libwiresum.so.$(WS_SOVER) $(BUILD)/libwiresum-sim.a
	@WS_RESULTS=$(BUILD)/results.txt sh tests/libwiresum.sh

# the commands' summaries as JSON (--json): keys, values, one document on stdout
json: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/json.sh $(BUILD)/wiresum

# the Wireshark dissector tools/wireshark/wiresum.lua against the C codec (needs tshark, mergecap)
dissector: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/dissector.sh $(BUILD)/wiresum

# the tool's debugging and reporting conveniences: sim --trace-on-mismatch, counters.txt and
# `wiresum counters`, run --plot, the progress display (fst2vcd, gnuplot, script)
ux: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/ux.sh $(BUILD)/wiresum

# closed loop: workers running the driver's transport against the model, with faults
runloop: deps $(BUILD)/wiresum $(BUILD)/allreduce
	@sh tests/loop.sh $(BUILD)/wiresum

# several devices: shards, trees of references, RTL models mixed in; recordings replayed
tree: deps $(BUILD)/wiresum $(BUILD)/asan/wiresum $(PLAIN_TOOLS)
	@sh tests/tree.sh $(BUILD)/wiresum $(BUILD)/asan/wiresum

# the cluster simulation on ns-3 (docs/cluster.md): rack8 through the device and as a ring over
# TCP, conservation of bytes, the ring's closed form, bad cluster files
cluster: deps $(BUILD)/wiresum $(BUILD)/wiresum-cluster $(if $(WS_HAVE_TOP),$(WS_P1_CLUSTER))
	@sh cluster/test/suite.sh $(BUILD)/wiresum $(if $(WS_HAVE_TOP),$(WS_P1))

# the layers on the build (tests/layers.sh): no circle between the objects, no folder including
# another's private header
layers: deps $(BUILD)/wiresum $(BUILD)/wiresum-cluster
	@sh tests/layers.sh $(BUILD)

# randomized stress over seeds: mixed jobs, faults, idle insertion and backpressure
STRESS_SEEDS ?= 12
stress: deps $(BUILD)/wiresum
	@sh tests/stress.sh $(BUILD)/wiresum 1 $(STRESS_SEEDS)

# fuzzing (tests/fuzz/README.md), two programs: one on the models of `make`, one on the PARTIAL
# build's (build/p1: DATA on four engines and PARTIAL = 1, trees of three models). `make fuzz` runs
# FUZZ_SECONDS of libFuzzer on the first, then FUZZ_SECONDS_P1 on the second if build/p1 is built
# (make build/p1/wiresum). `make test` replays the corpus and every regression input through the
# first, the regression inputs through the second (its models are slow: the whole corpus takes
# it about 110 s; `sh scripts/fuzz.sh replay` replays everything through both), then fuzzes
# FUZZ_SHORT s and FUZZ_SHORT_P1 s, both seeded from the regression inputs (the replay has run
# the corpus; a run seeded from it would run it again before it mutates)
FUZZ_SECONDS    ?= 600
FUZZ_SECONDS_P1 ?= $(FUZZ_SECONDS)
FUZZ_SHORT      ?= 5
FUZZ_SHORT_P1   ?= 3
FUZZ_DEPS    := $(BUILD)/libwssim.a $(BUILD)/asan/libwssim.a $(BUILD)/asan/libwstools.a \
                $(BUILD)/asan/libwiresum.a $(WS_SIM_LIBS)
fuzz: deps $(FUZZ_DEPS)
	@BUILD=$(BUILD) RESULTS= sh scripts/fuzz.sh build && \
	  BUILD=$(BUILD) RESULTS= sh scripts/fuzz.sh run $(FUZZ_SECONDS) && \
	  { [ ! -f $(BUILD)/p1/libwssim.a ] || BUILD=$(BUILD) RESULTS= sh scripts/fuzz.sh run-p1 $(FUZZ_SECONDS_P1); }

# (WS_MODELS_BUILT=1: make test built the PARTIAL build already, see engines). The p1 program
# runs 2 to 7 inputs a second: FUZZ_SHORT_P1 is a short look, `make fuzz` the long one
fuzz-short: deps $(FUZZ_DEPS) $(if $(WS_MODELS_BUILT),,$(WS_P1))
	@rc=0; export BUILD=$(BUILD) FUZZ_P1_REPLAY=tests/fuzz/regress FUZZ_P1_SEED=tests/fuzz/regress \
	   FUZZ_SEED=tests/fuzz/regress; \
	 sh scripts/fuzz.sh build || exit 1; \
	 sh scripts/fuzz.sh replay || rc=1; \
	 sh scripts/fuzz.sh run $(FUZZ_SHORT) || rc=1; \
	 if [ $(FUZZ_SHORT_P1) -gt 0 ]; then sh scripts/fuzz.sh run-p1 $(FUZZ_SHORT_P1) || rc=1; fi; \
	 exit $$rc

# `make wave`: build/wave.fst (made on first use) in GTKWave with the layout sim/wiresum.gtkw;
# `make wave WAVE=t/around.fst` for another trace
wave: deps $(BUILD)/wiresum
	@sh scripts/wave.sh $(WAVE)

# the saved GTKWave layouts name only signals of the model's FST, and the picture of
# docs/debugging.md section 4 and its caption are those of the current RTL
wave-check: deps $(BUILD)/wiresum
	@rc=0; sh tests/wave_check.sh || rc=1; sh tests/wave_check.sh sim/wiresum-picture.gtkw || rc=1; \
	 sh tests/wave_check.sh --picture || rc=1; exit $$rc

# docs/wave.png and its caption in docs/debugging.md, made again from the current RTL
# (GTKWave on Xvfb: scripts/wave_picture.sh installs xvfb and imagemagick, or says how)
wave-picture: deps $(BUILD)/wiresum
	@sh scripts/wave_picture.sh
