# mk/models.mk - the device models: wiresum_top Verilated at each width (linked into the tools,
# behind sim/wiresum/session.h), the same top under Icarus Verilog, `make lint`, and the device
# built with four engines that make test checks.
#
# WS_TOP_F: filelist of wiresum_top (one hw/*.v a line, options such as -Ihw allowed, read with
# verilator -f; point it elsewhere to try another top). WS_SIM_WIDTHS: the DATA_WIDTHs built in,
# each as one model or two (below).
# WS_VFLAGS: more verilator flags for the models, e.g. -GMAX_COUNT=2048; WS_VFLAGS_<width>: more
# for the model of that width alone (the PARTIAL build below). WS_SIM_OPT: C++
# optimisation of the models. WS_LINT: DATA_WIDTH:MAX_COUNT[:ENGINES[:PARTIAL]] configurations that
# `make lint` checks (ENGINES 1 and PARTIAL 0 when left out). A model with several engines:
# make WS_VFLAGS=-GENGINES=4 (the Icarus build takes -GENGINES, -GMAX_COUNT, -GPARTIAL and
# -GMAX_FRAME from WS_VFLAGS and WS_VFLAGS_<width> too).
WS_SIM_WIDTHS ?= 256 512 1024
# WS_SIM_TRACED_WIDTHS: the widths (of WS_SIM_WIDTHS) with a model that writes FST waveforms
# (--trace, --trace-on-mismatch, make wave). WS_SIM_FAST_WIDTHS: the widths with a model built
# without tracing, ~1.3x faster and a third to half the C++ (a wide model's trace code is more
# than half of it): simulations that open no trace use it (ws_sim_new_untraced; run, sim and
# bench without --trace), and a width without a traced model uses it for everything (a trace
# asked of it is refused, naming the make variable). Every width needs one of the two. The
# default: waveforms at 256 bits, the width of the demo and of docs/debugging.md, and the fast
# model at every width; `make WS_SIM_TRACED_WIDTHS='256 512 1024'` traces every width.
WS_SIM_TRACED_WIDTHS ?= 256
WS_SIM_FAST_WIDTHS   ?= $(WS_SIM_WIDTHS)
WS_VFLAGS     ?=
# WS_VOPT: Verilator's optimisation options for every model (the PARTIAL builds too). Its gate
# optimiser folds a net into the one process that reads it only up to --gate-stmts statements
# (default 100); at 5000 the lanes' rounding trees (hw/ws_fx_to_f32.v), a node read once, fold
# into their stage's enabled load and run once a result, not after every clock: 16 % fewer
# instructions a simulated cycle, smaller C++ (docs/performance.md section 3).
WS_VOPT       ?= --gate-stmts 5000
WS_SIM_OPT    ?= -O2
WS_LINT       ?= 512:256:4:1 256:256:4 256:256:2 1024:256 256:256 256:2048 256:256:1:1
# WS_LINT_ENC: DATA_WIDTH:MAX_COUNT:READERS configurations of hw/ws_partial_enc.v (a child's PARTIAL
# encoder) that `make lint` checks alone, with the modules it instantiates: shapes the top's
# configurations above do not give it (1024 bits, MAX_COUNT 2048 and 1)
WS_LINT_ENC   ?= 256:256:1 512:256:2 1024:256:1 256:2048:1 1024:1:2
WS_ENC_SRC    := hw/ws_fifo.v hw/ws_round_csum.v hw/ws_partial_enc.v
VERILATOR     ?= verilator
# WS_P1: the build that takes PARTIAL frames (-GPARTIAL=1), four engines at 256 bits and one at
# 512, that make test builds and tests (rule at the end)
WS_P1         := $(BUILD)/p1/wiresum
WS_P1_IV      := $(BUILD)/p1/icarus/ws256.vvp
WS_P1_CLUSTER := $(BUILD)/p1/wiresum-cluster

.PHONY: sim icarus lint sim-none install-sim

# build/sim/V<width>/: wiresum_top Verilated with --prefix Vws<width>, archived by Verilator's own
# makefile as Vws<width>__ALL.a; build/sim/libverilated.a: the Verilator runtime, once for all.
# <variant>/libwssim.a (mk/c.mk) takes sim/ws_sim_shim.cpp (the only C++), compiled plain or
# sanitized; the models themselves are never sanitized (slow, and not our code to check).
ifneq ($(WS_HAVE_TOP),)
SIMB        := $(BUILD)/sim
# Verilator's root, asked once and only when a recipe needs it (never while the makefile is
# read: Verilator may not be installed yet then).
WS_VROOT     = $(eval WS_VROOT := $(shell $(VERILATOR) --getenv VERILATOR_ROOT))$(WS_VROOT)
WS_TOP_SRC  := $(filter %.v %.sv,$(shell sed 's://.*::' $(WS_TOP_F)))
WS_RT_OBJ   := verilated.o verilated_fst_c.o verilated_threads.o
# models: <width> traced (Vws<width>) for WS_SIM_TRACED_WIDTHS, <width>f untraced (Vws<width>f)
# for WS_SIM_FAST_WIDTHS
WS_TRACED   := $(filter $(WS_SIM_WIDTHS),$(WS_SIM_TRACED_WIDTHS))
WS_FAST     := $(filter $(WS_SIM_WIDTHS),$(WS_SIM_FAST_WIDTHS))
WS_NO_MODEL := $(filter-out $(WS_TRACED) $(WS_FAST),$(WS_SIM_WIDTHS))
ifneq ($(WS_NO_MODEL),)
$(error width $(WS_NO_MODEL) of WS_SIM_WIDTHS is in neither WS_SIM_TRACED_WIDTHS nor WS_SIM_FAST_WIDTHS: it would have no model)
endif
WS_MODEL_NAMES := $(WS_TRACED) $(addsuffix f,$(WS_FAST))
# the Verilator runtime is compiled in the first model's directory
WS_RT_W     := $(firstword $(WS_MODEL_NAMES))
WS_MODELS   := $(foreach m,$(WS_MODEL_NAMES),$(SIMB)/V$(m)/Vws$(m)__ALL.a)
WS_SIM_LIBS := $(WS_MODELS) $(or $(WS_SHARED_FROM),$(BUILD))/sim/libverilated.a
WS_SIM_LD   := -lstdc++ -lm -lz -pthread
WS_VERILATE := $(VERILATOR) --cc --trace-fst $(WS_VOPT) -f $(WS_TOP_F) --top-module wiresum_top $(WS_VFLAGS)
WS_VERILATE_FAST := $(VERILATOR) --cc $(WS_VOPT) -f $(WS_TOP_F) --top-module wiresum_top $(WS_VFLAGS)
WS_CXXFLAGS  = -std=c++17 -Wall -Wextra -Werror -Wshadow -faligned-new \
               -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 \
               -isystem $(WS_VROOT)/include -isystem $(WS_VROOT)/include/vltstd \
               $(foreach w,$(WS_TRACED),-isystem $(SIMB)/V$(w) -DWS_SIM_HAVE_$(w)=1) \
               $(foreach w,$(WS_FAST),-isystem $(SIMB)/V$(w)f -DWS_SIM_HAVE_FAST_$(w)=1)
WS_SUBMAKE  = $(MAKE) --no-print-directory -C $(SIMB)/V$(1) -f Vws$(1).mk \
              -f $(CURDIR)/mk/model_cc.mk \
              OPT_FAST='$(WS_SIM_OPT)' OPT_GLOBAL='$(WS_SIM_OPT)' CXX='$(CXX)'

# A stamp that changes only when its text does: rebuilds follow changed flags and filelists.
define ws_stamp
	@mkdir -p $(dir $(1)); printf '%s\n' '$(subst ','"'"',$(2))' > $(1).tmp; \
	  if cmp -s $(1).tmp $(1); then rm -f $(1).tmp; else mv $(1).tmp $(1); fi
endef

# ws_model NAME WIDTH VERILATE: the model Vws<NAME> of DATA_WIDTH WIDTH in build/sim/V<NAME>/
define ws_model
$(SIMB)/V$(1).cfg: FORCE
	$$(call ws_stamp,$$@,$(3) -GDATA_WIDTH=$(2) $(WS_VFLAGS_$(2)) $(CXX) $(WS_SIM_OPT))

$(SIMB)/V$(1)/Vws$(1).mk: $(SIMB)/V$(1).cfg $(WS_TOP_F) $(WS_TOP_SRC)
	@rm -rf $(SIMB)/V$(1)/*.o $(SIMB)/V$(1)/*.a $(SIMB)/V$(1)/ws_pch.h.gch
	$(3) -GDATA_WIDTH=$(2) $(WS_VFLAGS_$(2)) --prefix Vws$(1) -Mdir $(SIMB)/V$(1)
	@$(call ws_ver_deps,$(SIMB)/V$(1)/Vws$(1))
	@touch $$@

$(SIMB)/V$(1)/Vws$(1)__ALL.a: $(SIMB)/V$(1)/Vws$(1).mk
	+$(call WS_SUBMAKE,$(1)) Vws$(1)__ALL.a

-include $(SIMB)/V$(1)/Vws$(1).dep
endef
# ws_ver_deps PREFIX: PREFIX.dep from Verilator's PREFIX__ver.d: PREFIX.mk depends on every file
# Verilator read, and each of those files is a target without a recipe (as gcc -MP does), so
# that a source file deleted or renamed since makes the model again instead of stopping make
ws_ver_deps = awk '{ sub(/^[^:]*:/, ""); for (i = 1; i <= NF; i++) if ($$$$i != "\\") d[$$$$i] = 1 } \
    END { printf "$(1).mk:"; for (f in d) printf " %s", f; print ""; for (f in d) print f ":" }' \
    $(1)__ver.d > $(1).dep
$(foreach w,$(WS_TRACED),$(eval $(call ws_model,$(w),$(w),$(WS_VERILATE))))
$(foreach w,$(WS_FAST),$(eval $(call ws_model,$(w)f,$(w),$(WS_VERILATE_FAST))))

$(SIMB)/libverilated.a: $(SIMB)/V$(WS_RT_W)/Vws$(WS_RT_W).mk
	+$(call WS_SUBMAKE,$(WS_RT_W)) $(WS_RT_OBJ)
	rm -f $@ && $(AR) rcs $@ $(addprefix $(SIMB)/V$(WS_RT_W)/,$(WS_RT_OBJ))

$(SIMB)/widths.cfg: FORCE
	$(call ws_stamp,$@,$(WS_MODEL_NAMES))

# sim_variant NAME DIR FLAGS: the Verilator shim into DIR/libwssim.a (mk/c.mk builds the rest of
# it), and every program of the variant linked with the models
define sim_variant
$(2)/obj/sim/ws_sim_shim.o: sim/ws_sim_shim.cpp $(SIMB)/widths.cfg \
    $(foreach m,$(WS_MODEL_NAMES),$(SIMB)/V$(m)/Vws$(m).mk) | $(2)/obj/sim
	$$(CXX) $$(WS_CXXFLAGS) $(3) $$(DEPFLAGS) -c $$< -o $$@

$(2)/wiresum $$($(1)_TESTS) $$($(1)_TOOLS): $$(WS_SIM_LIBS)

-include $(2)/obj/sim/ws_sim_shim.d
endef
$(eval $(call sim_variant,PLAIN,$(BUILD),$(CFLAGS)))
$(eval $(call sim_variant,ASAN,$(BUILD)/asan,$(SAN)))

# examples/allreduce.c (docs/driver.md): one all-reduce through the model, on the driver and
# the session alone
$(BUILD)/allreduce: examples/allreduce.c $(BUILD)/libwiresum.a $(BUILD)/libwssim.a $(WS_SIM_LIBS)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(WS_INC_sim) $< $(BUILD)/libwssim.a $(BUILD)/libwiresum.a \
	  $(WS_SIM_LIBS) $(LIBS) $(WS_SIM_LD) -o $@

# libwiresum-sim.a: the models behind their C ABI (sim/wiresum/sim.h) in one archive, for programs
# outside the tree (`make install-sim`, wiresum-sim.pc): libwssim.a, every model, the runtime.
$(BUILD)/libwiresum-sim.a: $(BUILD)/libwssim.a $(WS_SIM_LIBS)
	rm -f $@ && { echo "CREATE $@"; for a in $^; do echo "ADDLIB $$a"; done; echo SAVE; echo END; } \
	  | $(AR) -M

$(BUILD)/wiresum-sim.pc: sim/wiresum-sim.pc.in FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(WS_VERSION)|' $< > $@

# `make install-sim PREFIX=DIR`: libwiresum-sim.a, wiresum/sim.h, wiresum/session.h and
# wiresum-sim.pc beside libwiresum (which it installs too)
install-sim: install $(BUILD)/libwiresum-sim.a $(BUILD)/wiresum-sim.pc
	install -m 644 $(BUILD)/libwiresum-sim.a $(DESTDIR)$(LIBDIR)/
	install -m 644 sim/wiresum/sim.h sim/wiresum/session.h $(DESTDIR)$(INCLUDEDIR)/wiresum/
	install -m 644 $(BUILD)/wiresum-sim.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

# ---- Icarus Verilog: `wiresum sim --sim icarus` ------------------------------------------------
# build/icarus/ws<width>.vvp: the same top under the testbench sim/icarus/ws_icarus_tb.v,
# compiled by iverilog; build/icarus/ws_vpi.vpi: the bridge vvp loads (sim/icarus/ws_vpi.c).
IVB        := $(BUILD)/icarus
WS_IV_SRC  := $(shell sed -e 's://.*::' -e '/^[[:space:]]*-/d' $(WS_TOP_F))
WS_IV_INC  := $(filter -I%,$(shell sed 's://.*::' $(WS_TOP_F)))
# asked when a recipe needs it, as WS_VROOT
WS_IV_CINC  = $(eval WS_IV_CINC := $(filter -I%,$(shell iverilog-vpi --cflags)))$(WS_IV_CINC)
# WS_ICARUS_WIDTHS: the widths `make icarus` (and `make`) compiles, every one of WS_SIM_WIDTHS
# by default; `make icarus WS_ICARUS_WIDTHS=512` compiles that one alone
# (what `wiresum sim --sim icarus` says to run when a width's design is missing)
WS_ICARUS_WIDTHS ?= $(WS_SIM_WIDTHS)
WS_ICARUS  := $(foreach w,$(WS_ICARUS_WIDTHS),$(IVB)/ws$(w).vvp) $(IVB)/ws_vpi.vpi
# WS_IV_PAR WIDTH: the parameters of WS_VFLAGS and WS_VFLAGS_<WIDTH> Icarus takes
WS_IV_PAR   = $(patsubst -G%,-P TOP.%,$(filter -GENGINES=% -GMAX_COUNT=% -GPARTIAL=% -GMAX_FRAME=%,\
                $(WS_VFLAGS) $(WS_VFLAGS_$(1))))

# the headers of the filelist's include directories too (Verilator's models follow its own
# dependency files)
WS_IV_HDR  := $(foreach d,$(patsubst -I%,%,$(WS_IV_INC)),$(wildcard $(d)/*.vh))

$(IVB)/ws%.vvp: sim/icarus/ws_icarus_tb.v $(WS_TOP_F) $(WS_IV_SRC) $(WS_IV_HDR)
	@mkdir -p $(IVB)
	iverilog -g2012 $(WS_IV_INC) -s TOP -P TOP.DATA_WIDTH=$* $(call WS_IV_PAR,$*) -o $@ $(WS_IV_SRC) $<

$(IVB)/ws_vpi.vpi: sim/icarus/ws_vpi.c sim/ws_sim_shim.h
	@mkdir -p $(IVB)
	$(CC) $(STD) $(WARN) -O2 -fPIC -shared -Isim $(WS_IV_CINC) $< -o $@
endif

build-all: $(BUILD)/wiresum $(BUILD)/wiresum-cluster $(if $(WS_HAVE_TOP),$(WS_ICARUS))

icarus: $(if $(WS_HAVE_TOP),$(WS_ICARUS),sim-none)

# `make sim`: the models and the plain libwssim.a alone.
sim: $(if $(WS_HAVE_TOP),$(BUILD)/libwssim.a $(WS_SIM_LIBS),sim-none)

# `make lint`: Verilator -Wall on the top in every WS_LINT configuration (and on hw/ws_partial_enc.v in
# every WS_LINT_ENC one, after them) must print nothing. The top's two at
# a time, the longest first (WS_LINT's order), which is faster than all at once on two cores.
lint: $(if $(WS_HAVE_TOP),,sim-none)
	@mkdir -p $(BUILD)/lint; rc=0; \
	printf '%s\n' $(WS_LINT) | xargs -P 2 -I CFG sh -c 'c=CFG; \
	  set -- $$(echo $$c | tr : " "); \
	  $(VERILATOR) --lint-only -Wall -f $(WS_TOP_F) --top-module wiresum_top \
	      -GDATA_WIDTH=$$1 -GMAX_COUNT=$$2 -GENGINES=$${3:-1} -GPARTIAL=$${4:-0} \
	      > $(BUILD)/lint/$$c.log 2>&1; true'; \
	for c in $(WS_LINT); do \
	  if [ -s $(BUILD)/lint/$$c.log ]; then echo "lint: DATA_WIDTH:MAX_COUNT:ENGINES:PARTIAL $$c:"; \
	    cat $(BUILD)/lint/$$c.log; rc=1; fi; \
	done; echo "lint wiresum_top $$((1 - rc)) $$rc" >> $(BUILD)/results.txt; rce=0; \
	for c in $(WS_LINT_ENC); do \
	  set -- $$(echo $$c | tr : " "); \
	  $(VERILATOR) --lint-only -Wall -Ihw $(WS_ENC_SRC) --top-module ws_partial_enc \
	      -GDATA_WIDTH=$$1 -GMAX_COUNT=$$2 -GREADERS=$$3 > $(BUILD)/lint/enc-$$c.log 2>&1; \
	  if [ -s $(BUILD)/lint/enc-$$c.log ]; then echo "lint: ws_partial_enc DATA_WIDTH:MAX_COUNT:READERS $$c:"; \
	    cat $(BUILD)/lint/enc-$$c.log; rce=1; fi; \
	done; echo "lint ws_partial_enc $$((1 - rce)) $$rce" >> $(BUILD)/results.txt; \
	[ $$rc = 0 ] && [ $$rce = 0 ]

sim-none:
	@echo "$(WS_TOP_F) does not exist (yet): no model to build or lint" >&2; exit 1

# The build that takes PARTIAL frames (-GPARTIAL=1, docs/protocol.md section 9), build/p1: the
# device with four engines (docs/architecture.md section 9) at 256 bits, the root a tree would
# have, and one engine at 512. One build serves the suites of both (engines: DATA traces through
# four engines; partial: trees' roots and children at both widths). A device that takes PARTIALs
# must take its jobs' longest (docs/protocol.md section 9: 64 + 48 x max_count bytes), so that
# jobs of MAX_COUNT = 256 run on the 4-engine one its MAX_FRAME is 12352. Without tracing (the
# suites write no waveform of it; one with: make WS_VFLAGS=-GENGINES=4), at -O1, which halves
# its compile time for suites of small traces.
WS_P1_FLAGS   := WS_SIM_WIDTHS='256 512' WS_SIM_TRACED_WIDTHS= WS_SIM_FAST_WIDTHS='256 512' \
                 WS_SIM_OPT=-O1 WS_VFLAGS_256='-GENGINES=4 -GMAX_FRAME=12352' WS_VFLAGS=-GPARTIAL=1
# The build for trees of devices, build/trees (`make trees`): one engine, PARTIAL = 1, at 256 and
# 512 bits, at make's optimisation (WS_SIM_OPT, -O2): the closed loops of `run --tree` and
# `--shards` (docs/driver.md), 2.4 times as fast a device as the four-engine -O1 model. Not a
# suite's: the RTL is the p1 build's one-engine 512 configuration.
WS_TREES_FLAGS := WS_SIM_WIDTHS='256 512' WS_SIM_TRACED_WIDTHS= WS_SIM_FAST_WIDTHS='256 512' \
                  WS_VFLAGS_256=-GMAX_FRAME=12352 WS_VFLAGS=-GPARTIAL=1
# ws_partial_build DIR FLAGS: the tool of BUILD/DIR with FLAGS, linking the main build's tool
# libraries and Verilator runtime (WS_SHARED_FROM, mk/c.mk)
define ws_partial_build
$(BUILD)/$(1)/wiresum: $(BUILD)/libwstools.a $(BUILD)/libwiresum.a $(SIMB)/libverilated.a FORCE
	+@$$(MAKE) --no-print-directory BUILD=$(BUILD)/$(1) $(2) WS_SHARED_FROM=$(BUILD) $$@
endef
$(eval $(call ws_partial_build,p1,$(WS_P1_FLAGS)))
$(eval $(call ws_partial_build,trees,$(WS_TREES_FLAGS)))
.PHONY: trees
trees: $(BUILD)/trees/wiresum

# ... and at 256 bits in Icarus (build/p1/icarus: the model finds it beside itself)
$(WS_P1_IV): FORCE
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/p1 $(WS_P1_FLAGS) WS_SIM_WIDTHS=256 icarus
