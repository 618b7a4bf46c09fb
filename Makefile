# wiresum - top-level build. `make` builds build/wiresum; `make test` runs the
# whole suite (also under ASan+UBSan); `make demo` runs the default trace.

CC       ?= cc
BUILD    := build
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
DEPFLAGS := -MMD -MP
CFLAGS   ?= -O2 -g
SAN      := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
INC      := -Ihost -Idriver
LIBS     := -lpcap -linih -lm
TLIBS    := -lcmocka

HOST_SRC := $(filter-out host/main.c,$(wildcard host/*.c)) $(wildcard driver/*.c)
vpath %.c host driver
TEST_SRC := $(wildcard tests/test_*.c)
TOOL_SRC := $(wildcard tests/tool_*.c)

# The Verilator model of the device (sim/): built, linked into the tools (which then see
# -DWS_HAVE_SIM=1) and tested only once the top's filelist exists; until then only -Isim (for
# sim/ws_sim.h) takes effect. WS_TOP_F: filelist of wiresum_top (one hw/*.v a line, options such
# as -Ihw allowed, read with verilator -f; point it elsewhere to try another top). WS_SIM_WIDTHS:
# the DATA_WIDTHs built in. WS_VFLAGS: more verilator flags for the models, e.g. -GMAX_COUNT=2048.
# WS_SIM_OPT: C++ optimisation of the models. WS_LINT: DATA_WIDTH:MAX_COUNT[:ENGINES]
# configurations that `make lint` checks (ENGINES 1 when left out). A model with several engines:
# make WS_VFLAGS=-GENGINES=4 (the Icarus build takes -GENGINES and -GMAX_COUNT from WS_VFLAGS too).
WS_TOP_F      ?= hw/wiresum_top.f
WS_SIM_WIDTHS ?= 256 512 1024
# WS_SIM_FAST_WIDTHS: widths (of WS_SIM_WIDTHS) also built without FST tracing, ~1.3x faster:
# simulations that open no trace use them (ws_sim_new_untraced; run, sim and bench without
# --trace). Empty: every simulation uses the traced models.
WS_SIM_FAST_WIDTHS ?= 256
WS_VFLAGS     ?=
WS_SIM_OPT    ?= -O2
WS_LINT       ?= 512:256:4 256:256:2 1024:256 256:256 256:2048
VERILATOR     ?= verilator
# WS_E4: the 4-engine model that make test builds and tests (rule at the engines suite)
WS_E4         := $(BUILD)/e4/wiresum
WS_E4_IV      := $(BUILD)/e4/icarus/ws256.vvp
WS_HAVE_TOP   := $(wildcard $(WS_TOP_F))
INC           += -Isim
ifeq ($(WS_HAVE_TOP),)
TEST_SRC := $(filter-out tests/test_sim.c tests/test_security.c,$(TEST_SRC))
HOST_SRC := $(filter-out host/simrun.c,$(HOST_SRC))
else
INC      += -DWS_HAVE_SIM=1
endif

# Two variants of everything: plain (build/) and sanitized (build/asan/).
define variant
$(1)_OBJ   := $$(patsubst %.c,$(2)/obj/%.o,$$(notdir $$(HOST_SRC)))
$(1)_TESTS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TEST_SRC))
$(1)_TOOLS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TOOL_SRC))

$(2)/obj/%.o: %.c | $(2)/obj
	$$(CC) $$(STD) $$(WARN) $(3) $$(INC) $$(DEPFLAGS) -c $$< -o $$@

$(2)/libwshost.a: $$($(1)_OBJ)
	$$(AR) rcs $$@ $$^

$(2)/wiresum: host/main.c $(2)/libwshost.a
	$$(CC) $$(STD) $$(WARN) $(3) $$(INC) $$(DEPFLAGS) $$< $(2)/libwshost.a $$(LIBS) -o $$@

$(2)/tests/%: tests/%.c $(2)/libwshost.a | $(2)/tests
	$$(CC) $$(STD) $$(WARN) $(3) $$(INC) -Itests $$(DEPFLAGS) $$< $(2)/libwshost.a $$(LIBS) $$(TLIBS) -o $$@

$(2)/obj $(2)/tests:
	mkdir -p $$@

-include $$($(1)_OBJ:.o=.d) $$(patsubst %,%.d,$$($(1)_TESTS))
endef

$(eval $(call variant,PLAIN,$(BUILD),$(CFLAGS)))
$(eval $(call variant,ASAN,$(BUILD)/asan,$(SAN)))

# ---- Verilator model (see WS_TOP_F above) -------------------------------------------------------
# build/sim/V<width>/: wiresum_top Verilated with --prefix Vws<width>, archived by Verilator's own
# makefile as Vws<width>__ALL.a; build/sim/libverilated.a: the Verilator runtime, once for all.
# <variant>/libwssim.a: sim/ws_sim.c (C) and sim/ws_sim_shim.cpp (the only C++), compiled plain
# or sanitized; the models themselves are never sanitized (slow, and not our code to check).
ifneq ($(WS_HAVE_TOP),)
SIMB        := $(BUILD)/sim
WS_VROOT    := $(shell $(VERILATOR) --getenv VERILATOR_ROOT)
WS_TOP_SRC  := $(filter %.v %.sv,$(shell sed 's://.*::' $(WS_TOP_F)))
WS_RT_W     := $(firstword $(WS_SIM_WIDTHS))
WS_RT_OBJ   := verilated.o verilated_fst_c.o verilated_threads.o
# models: <width> traced (Vws<width>), <width>f untraced (Vws<width>f) for WS_SIM_FAST_WIDTHS
WS_FAST     := $(filter $(WS_SIM_WIDTHS),$(WS_SIM_FAST_WIDTHS))
WS_MODEL_NAMES := $(WS_SIM_WIDTHS) $(addsuffix f,$(WS_FAST))
WS_MODELS   := $(foreach m,$(WS_MODEL_NAMES),$(SIMB)/V$(m)/Vws$(m)__ALL.a)
WS_SIM_LIBS := $(WS_MODELS) $(SIMB)/libverilated.a
WS_SIM_LD   := -lstdc++ -lm -lz -pthread
WS_VERILATE := $(VERILATOR) --cc --trace-fst -f $(WS_TOP_F) --top-module wiresum_top $(WS_VFLAGS)
WS_VERILATE_FAST := $(VERILATOR) --cc -f $(WS_TOP_F) --top-module wiresum_top $(WS_VFLAGS)
WS_CXXFLAGS := -std=c++17 -Wall -Wextra -Werror -Wshadow -faligned-new \
               -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 \
               -isystem $(WS_VROOT)/include -isystem $(WS_VROOT)/include/vltstd \
               $(foreach w,$(WS_SIM_WIDTHS),-isystem $(SIMB)/V$(w) -DWS_SIM_HAVE_$(w)=1) \
               $(foreach w,$(WS_FAST),-isystem $(SIMB)/V$(w)f -DWS_SIM_HAVE_FAST_$(w)=1)
WS_SUBMAKE  = $(MAKE) --no-print-directory -C $(SIMB)/V$(1) -f Vws$(1).mk \
              OPT_FAST='$(WS_SIM_OPT)' OPT_GLOBAL='$(WS_SIM_OPT)' CXX='$(CXX)'

# A stamp that changes only when its text does: rebuilds follow changed flags and filelists.
define ws_stamp
	@mkdir -p $(dir $(1)); printf '%s\n' '$(subst ','"'"',$(2))' > $(1).tmp; \
	  if cmp -s $(1).tmp $(1); then rm -f $(1).tmp; else mv $(1).tmp $(1); fi
endef

# ws_model NAME WIDTH VERILATE: the model Vws<NAME> of DATA_WIDTH WIDTH in build/sim/V<NAME>/
define ws_model
$(SIMB)/V$(1).cfg: FORCE
	$$(call ws_stamp,$$@,$(3) -GDATA_WIDTH=$(2) $(CXX) $(WS_SIM_OPT))

$(SIMB)/V$(1)/Vws$(1).mk: $(SIMB)/V$(1).cfg $(WS_TOP_F) $(WS_TOP_SRC)
	@rm -f $(SIMB)/V$(1)/*.o $(SIMB)/V$(1)/*.a
	$(3) -GDATA_WIDTH=$(2) --prefix Vws$(1) -Mdir $(SIMB)/V$(1)
	@touch $$@

$(SIMB)/V$(1)/Vws$(1)__ALL.a: $(SIMB)/V$(1)/Vws$(1).mk
	+$(call WS_SUBMAKE,$(1)) Vws$(1)__ALL.a

-include $(SIMB)/V$(1)/Vws$(1)__ver.d
endef
$(foreach w,$(WS_SIM_WIDTHS),$(eval $(call ws_model,$(w),$(w),$(WS_VERILATE))))
$(foreach w,$(WS_FAST),$(eval $(call ws_model,$(w)f,$(w),$(WS_VERILATE_FAST))))

$(SIMB)/libverilated.a: $(SIMB)/V$(WS_RT_W)/Vws$(WS_RT_W).mk
	+$(call WS_SUBMAKE,$(WS_RT_W)) $(WS_RT_OBJ)
	rm -f $@ && $(AR) rcs $@ $(addprefix $(SIMB)/V$(WS_RT_W)/,$(WS_RT_OBJ))

$(SIMB)/widths.cfg: FORCE
	$(call ws_stamp,$@,$(WS_MODEL_NAMES))

define sim_variant
$(2)/obj/sim/ws_sim.o: sim/ws_sim.c | $(2)/obj/sim
	$$(CC) $$(STD) $$(WARN) $(3) $$(DEPFLAGS) -c $$< -o $$@

$(2)/obj/sim/ws_sim_shim.o: sim/ws_sim_shim.cpp $(SIMB)/widths.cfg \
    $(foreach m,$(WS_MODEL_NAMES),$(SIMB)/V$(m)/Vws$(m).mk) | $(2)/obj/sim
	$$(CXX) $$(WS_CXXFLAGS) $(3) $$(DEPFLAGS) -c $$< -o $$@

$(2)/obj/sim/ws_shim_icarus.o: sim/ws_shim_icarus.c | $(2)/obj/sim
	$$(CC) $$(STD) $$(WARN) $(3) $$(DEPFLAGS) -c $$< -o $$@

$(2)/libwssim.a: $(2)/obj/sim/ws_sim.o $(2)/obj/sim/ws_sim_shim.o $(2)/obj/sim/ws_shim_icarus.o
	rm -f $$@ && $$(AR) rcs $$@ $$^

$(2)/wiresum $(2)/tests/test_sim $(2)/tests/test_security: $(2)/libwssim.a $$(WS_SIM_LIBS)
$(2)/wiresum $(2)/tests/test_sim $(2)/tests/test_security: \
    LIBS := $(2)/libwssim.a $$(WS_SIM_LIBS) $$(LIBS) $$(WS_SIM_LD)

$(2)/obj/sim:
	mkdir -p $$@

-include $(2)/obj/sim/ws_sim.d $(2)/obj/sim/ws_sim_shim.d $(2)/obj/sim/ws_shim_icarus.d
endef
$(eval $(call sim_variant,PLAIN,$(BUILD),$(CFLAGS)))
$(eval $(call sim_variant,ASAN,$(BUILD)/asan,$(SAN)))

# host/examples/allreduce.c (docs/driver.md): one all-reduce through the model
$(BUILD)/allreduce: host/examples/allreduce.c $(BUILD)/libwshost.a $(BUILD)/libwssim.a $(WS_SIM_LIBS)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(INC) $< $(BUILD)/libwshost.a $(BUILD)/libwssim.a \
	  $(WS_SIM_LIBS) $(LIBS) $(WS_SIM_LD) -o $@

# ---- Icarus Verilog: `wiresum sim --sim icarus` ------------------------------------------------
# build/icarus/ws<width>.vvp: the same top under the testbench sim/icarus/ws_icarus_tb.v,
# compiled by iverilog; build/icarus/ws_vpi.vpi: the bridge vvp loads (sim/icarus/ws_vpi.c).
IVB        := $(BUILD)/icarus
WS_IV_SRC  := $(shell sed -e 's://.*::' -e '/^[[:space:]]*-/d' $(WS_TOP_F))
WS_IV_INC  := $(filter -I%,$(shell sed 's://.*::' $(WS_TOP_F)))
WS_IV_CINC := $(filter -I%,$(shell iverilog-vpi --cflags 2>/dev/null))
WS_ICARUS  := $(foreach w,$(WS_SIM_WIDTHS),$(IVB)/ws$(w).vvp) $(IVB)/ws_vpi.vpi
WS_IV_PAR  := $(patsubst -G%,-P TOP.%,$(filter -GENGINES=% -GMAX_COUNT=%,$(WS_VFLAGS)))

$(IVB)/ws%.vvp: sim/icarus/ws_icarus_tb.v $(WS_TOP_F) $(WS_IV_SRC)
	@mkdir -p $(IVB)
	iverilog -g2012 $(WS_IV_INC) -s TOP -P TOP.DATA_WIDTH=$* $(WS_IV_PAR) -o $@ $(WS_IV_SRC) $<

$(IVB)/ws_vpi.vpi: sim/icarus/ws_vpi.c sim/ws_sim_shim.h
	@mkdir -p $(IVB)
	$(CC) $(STD) $(WARN) -O2 -fPIC -shared -Isim $(WS_IV_CINC) $< -o $@
endif

.PHONY: icarus
icarus: $(if $(WS_HAVE_TOP),$(WS_ICARUS),sim-none)

.PHONY: sim lint FORCE
FORCE:

# `make sim`: the models and the plain libwssim.a alone.
sim: $(if $(WS_HAVE_TOP),$(BUILD)/libwssim.a $(WS_SIM_LIBS),sim-none)

# `make lint`: Verilator -Wall on the top in every WS_LINT configuration must print nothing. Two at
# a time, the longest first (WS_LINT's order), which is faster than all at once on two cores.
lint: $(if $(WS_HAVE_TOP),,sim-none)
	@mkdir -p $(BUILD)/lint; rc=0; \
	printf '%s\n' $(WS_LINT) | xargs -P 2 -I CFG sh -c 'c=CFG; \
	  w=$${c%%:*}; r=$${c#*:}; m=$${r%%:*}; e=1; case $$r in *:*) e=$${r#*:};; esac; \
	  $(VERILATOR) --lint-only -Wall -f $(WS_TOP_F) --top-module wiresum_top \
	      -GDATA_WIDTH=$$w -GMAX_COUNT=$$m -GENGINES=$$e > $(BUILD)/lint/$$c.log 2>&1; true'; \
	for c in $(WS_LINT); do \
	  if [ -s $(BUILD)/lint/$$c.log ]; then echo "lint: DATA_WIDTH:MAX_COUNT:ENGINES $$c:"; \
	    cat $(BUILD)/lint/$$c.log; rc=1; fi; \
	done; echo "lint wiresum_top $$((1 - rc)) $$rc" >> $(BUILD)/results.txt; exit $$rc

.PHONY: sim-none
sim-none:
	@echo "$(WS_TOP_F) does not exist (yet): no model to build or lint" >&2; exit 1

.PHONY: all deps deps-quiet test test-build engines unit unit-asan e2e rtl hw hwtest regmap-check demo clean \
        wave wave-check runloop stress fuzz fuzz-short dissector ux docs-check bench bench-tools
.DEFAULT_GOAL := all

all: deps-quiet $(BUILD)/wiresum $(if $(WS_HAVE_TOP),$(WS_ICARUS))

deps:
	@sh scripts/deps.sh

# Building needs only the compiler and libraries; fail early with the command if absent.
deps-quiet:
	@sh scripts/deps.sh

unit: deps $(PLAIN_TESTS)
	@sh tests/run_unit.sh $(BUILD)/tests $(PLAIN_TESTS)

unit-asan: deps $(ASAN_TESTS)
	@sh tests/run_unit.sh $(BUILD)/asan/tests $(ASAN_TESTS)

e2e: deps $(BUILD)/wiresum $(BUILD)/asan/wiresum $(PLAIN_TOOLS)
	@sh tests/run_e2e.sh $(BUILD)/wiresum $(BUILD)/asan/wiresum

# `make test`: everything built first (two jobs), then the suites one after the other.
test: deps
	@rm -f $(BUILD)/results.txt
	@$(MAKE) --no-print-directory -j2 test-build
	@$(MAKE) --no-print-directory -k unit unit-asan e2e dissector docs-check bench-tools $(if $(WS_HAVE_TOP),regmap-check lint rtl engines hw wave-check runloop stress fuzz-short ux); rc=$$?; \
	  sh tests/summary.sh $(BUILD)/results.txt; s=$$?; [ $$rc -eq 0 ] && [ $$s -eq 0 ]

test-build: $(PLAIN_TESTS) $(ASAN_TESTS) $(BUILD)/wiresum $(BUILD)/asan/wiresum $(PLAIN_TOOLS) \
    $(BUILD)/regmap_gen $(if $(WS_HAVE_TOP),$(IVB)/ws256.vvp $(IVB)/ws_vpi.vpi $(BUILD)/allreduce \
    $(WS_E4) $(WS_E4_IV))

# RTL regression: traces through the Verilator model at 256 and 512 bits, a smoke run at 1024
rtl: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/run_rtl.sh $(BUILD)/wiresum

# RTL stage testbenches, the quick Icarus set; `make hwtest`: the full scripts, both simulators
hw: deps $(PLAIN_TOOLS)
	@sh tests/run_hw.sh

hwtest: deps $(PLAIN_TOOLS)
	@sh tests/hw/acc_lane.sh && sh tests/hw/result_gen.sh && sh tests/hw/stream.sh

# the generated files (REGMAP_GEN: FORMAT:FILE) are up to date with host/regmap.def and
# host/ws_reasons.h, and the RTL types none of their codes or layouts by hand (tests/hw_one_source.sh)
REGMAP_GEN := vh:hw/ws_regmap.vh h:host/ws_regmap.h md:docs/registers.md \
              gtkw-reason:sim/wiresum_reason.txt
regmap-check: $(BUILD)/regmap_gen
	@rc=0; for g in $(REGMAP_GEN); do $(BUILD)/regmap_gen --check $${g%%:*} $${g#*:} || rc=1; done; \
	  sh tests/hw_one_source.sh || rc=1; \
	  if [ $$rc = 0 ]; then echo "regmap generated 1 0" >> $(BUILD)/results.txt; \
	  else echo "regmap generated 0 1" >> $(BUILD)/results.txt; exit 1; fi

demo: deps $(BUILD)/wiresum
	@sh scripts/demo.sh $(BUILD)/wiresum

# `make bench` (not part of `make test`): docs/performance.md and docs/perf/*.png (bench/run.sh);
# the rows with 1024 elements per packet need a model with MAX_COUNT 1024, built here
bench: deps $(BUILD)/wiresum
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/bench/mc1024 WS_SIM_WIDTHS="256 512 1024" \
	  WS_VFLAGS=-GMAX_COUNT=1024 $(BUILD)/bench/mc1024/wiresum
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/bench/e4 WS_SIM_WIDTHS="256 512" WS_SIM_FAST_WIDTHS= \
	  WS_VFLAGS=-GENGINES=4 $(BUILD)/bench/e4/wiresum
	@WS=$(BUILD)/wiresum WS_MC1024=$(BUILD)/bench/mc1024/wiresum WS_E4=$(BUILD)/bench/e4/wiresum \
	  sh bench/run.sh $(BENCH_ARGS)

# the docs: docs/pipeline.svg up to date with docs/pipeline.dot, relative links resolve
docs-check: deps
	@sh tests/docs_check.sh

# the resource benchmark's tools (bench/lut_levels.py, bench/resources.awk) on netlists with known answers
bench-tools: deps
	@WS_RESULTS=$(BUILD)/results.txt sh tests/bench_tools.sh

# the Wireshark dissector host/wireshark/wiresum.lua against the C codec (needs tshark, mergecap)
dissector: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/run_dissector.sh $(BUILD)/wiresum

# the tool's debugging and reporting conveniences: sim --trace-on-mismatch, counters.txt and
# `wiresum counters`, run --plot, the progress display (fst2vcd, gnuplot, script)
ux: deps $(BUILD)/wiresum $(PLAIN_TOOLS)
	@sh tests/run_ux.sh $(BUILD)/wiresum

# closed loop: workers running the driver's transport against the model, with faults
# The device with four engines (docs/architecture.md section 9): its own 256-bit model, traced
# only (the tools fall back to it), at -O1, which halves its compile time for a suite of small
# traces.
$(WS_E4): FORCE
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/e4 WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS= \
	  WS_SIM_OPT=-O1 WS_VFLAGS=-GENGINES=4 $@

# ... and the same in Icarus (WS_E4_IV, build/e4/icarus: the 4-engine model finds it beside itself)
$(WS_E4_IV): FORCE
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/e4 WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS= \
	  WS_SIM_OPT=-O1 WS_VFLAGS=-GENGINES=4 icarus

engines: deps $(BUILD)/wiresum $(PLAIN_TOOLS) $(WS_E4) $(WS_E4_IV)
	@sh tests/run_engines.sh $(WS_E4)

runloop: deps $(BUILD)/wiresum $(BUILD)/allreduce
	@sh tests/run_run.sh $(BUILD)/wiresum

# randomized stress over seeds: mixed jobs, faults, idle insertion and backpressure
STRESS_SEEDS ?= 12
stress: deps $(BUILD)/wiresum
	@sh tests/run_stress.sh $(BUILD)/wiresum 1 $(STRESS_SEEDS)

# fuzzing (tests/fuzz/README.md): `make fuzz` runs FUZZ_SECONDS of libFuzzer on the reference and
# the model; `make test` replays the corpus and every regression input, then fuzzes FUZZ_SHORT s
FUZZ_SECONDS ?= 600
FUZZ_SHORT   ?= 15
FUZZ_DEPS    := $(BUILD)/libwssim.a $(BUILD)/asan/libwssim.a $(BUILD)/asan/libwshost.a $(WS_SIM_LIBS)
fuzz: deps $(FUZZ_DEPS)
	@BUILD=$(BUILD) RESULTS= sh scripts/fuzz.sh build && \
	  BUILD=$(BUILD) RESULTS= sh scripts/fuzz.sh run $(FUZZ_SECONDS)

fuzz-short: deps $(FUZZ_DEPS)
	@BUILD=$(BUILD) sh scripts/fuzz.sh build && BUILD=$(BUILD) sh scripts/fuzz.sh replay && \
	  BUILD=$(BUILD) sh scripts/fuzz.sh run $(FUZZ_SHORT)

# `make wave`: build/wave.fst (made on first use) in GTKWave with the layout sim/wiresum.gtkw;
# `make wave WAVE=t/around.fst` for another trace
wave: deps $(BUILD)/wiresum
	@sh scripts/wave.sh $(WAVE)

# the saved GTKWave layout names only signals of the model's FST
wave-check: deps $(BUILD)/wiresum
	@sh tests/wave_check.sh

# Register map: host/regmap.def is the one source; `make regmap` regenerates the checked-in
# files of REGMAP_GEN (above) from it. Nothing depends on it yet;
# `build/regmap_gen --check FORMAT FILE` tells whether a generated file is up to date.
.PHONY: regmap
$(BUILD)/regmap_gen: tools/regmap_gen.c host/regmap.def host/ws_reasons.h host/config.h
	@mkdir -p $(BUILD)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(INC) $< -o $@

regmap: $(BUILD)/regmap_gen
	@for g in $(REGMAP_GEN); do echo "$(BUILD)/regmap_gen $${g%%:*} $${g#*:}"; \
	  $(BUILD)/regmap_gen $${g%%:*} $${g#*:} || exit 1; done

clean:
	rm -rf $(BUILD)
