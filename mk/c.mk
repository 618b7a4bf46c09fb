# mk/c.mk - the C code in folders by concern, each a layer that sees only the folders below it
# (docs/architecture.md section 1), built in two variants: plain (build/) and sanitized with ASan
# and UBSan (build/asan/). Each folder's objects are compiled with the include path of its layer
# alone (WS_INC_<folder>), so an include of a folder above is a build error.
#   driver/         libwiresum.a: the protocol core (wire codec, validation, exact sum, drop
#                   reasons, register map, counters, configuration) and the driver (register-bus
#                   device access, the worker transport). Its headers are driver/wiresum/*.h,
#                   included as "wiresum/NAME.h". The plain build is position-independent and also
#                   makes build/libwiresum.so.1; `make install` installs both with the headers and
#                   wiresum.pc (pkg-config).
#   util/           small helpers of every tool: growing arrays, the generator, ini lines, JSON,
#                   the progress display, plots. Sees the driver.
#   sim/            libwssim.a: the devices behind one session (sim/wiresum/session.h): the software
#                   reference (sim/refdev.c, sim/wiresum/refdev.h) and the RTL models' C side
#                   (sim/ws_sim.c, the Icarus bridge, the Verilator shim of mk/models.mk or, in a
#                   build without the models, sim/ws_shim_none.c, which makes opening a model say
#                   so). Sees util/ and the driver.
#   trace/          traces: pcap files, gen, check, the replay through a device (`wiresum sim`), the
#                   counters file. Sees sim/ and below.
#   loop/           the closed loop of `wiresum run`: one entry, one device or several (a fabric),
#                   its simulated channel and its values. Sees trace/ and below.
#   eval/           benchmarks and numerics (bench, numerics, testfloat). Sees trace/ and below.
#   cluster/model/  the cluster's C model (mk/cluster.mk): the cluster file, topology, device
#                   timing model, collectives, background. Sees loop/ and below.
#   cli/            main.c and one file per command; sees everything, nothing includes it.
# util/ to cli/ less main.c make libwstools.a; build/wiresum is cli/main.c on the three
# libraries; tests/test_* (cmocka) and tests/tool_* the same way. Also the register map generator
# (tools/regmap_gen.c).

LIBS     := -lpcap -linih -ljansson -lm
TLIBS    := -lcmocka

# the layers from the bottom up, and the include path of each: itself and every folder below
WS_LAYERS     := driver util sim trace loop eval cluster/model cli
WS_INC_driver := -Idriver
WS_INC_util   := -Iutil $(WS_INC_driver)
WS_INC_sim    := -Isim $(WS_INC_util)
WS_INC_trace  := -Itrace $(WS_INC_sim)
WS_INC_loop   := -Iloop $(WS_INC_trace)
WS_INC_eval   := -Ieval $(WS_INC_trace)
WS_INC_cluster/model := -Icluster/model $(WS_INC_loop)
WS_INC_cli    := -Icli -Ieval -Icluster/model $(WS_INC_loop)
# the tests see every layer
INC           := $(WS_INC_cli)
# `make print-layers`: each folder's include path (tests/layers.sh checks docs/architecture.md's
# table against it)
.PHONY: print-layers
print-layers:
	@$(foreach l,$(WS_LAYERS),echo '$(l): $(WS_INC_$(l))';)

DRIVER_SRC := $(wildcard driver/*.c)
TOOLS_SRC  := $(filter-out cli/main.c,$(foreach d,util trace loop eval cluster/model cli,$(wildcard $(d)/*.c)))
# sim/'s C sources (the Verilator shim, C++, is mk/models.mk's)
SIM_SRC    := sim/refdev.c sim/session.c sim/ws_sim.c sim/ws_shim_icarus.c
TEST_SRC := $(wildcard tests/test_*.c)
TOOL_SRC := $(wildcard tests/tool_*.c)

# Without the top's filelist (WS_TOP_F, mk/models.mk) there is no model: the session opens the
# reference only (sim/ws_shim_none.c) and the tests that need a model are left out. The tools
# are the same either way.
WS_TOP_F      ?= hw/wiresum_top.f
WS_HAVE_TOP   := $(wildcard $(WS_TOP_F))
ifeq ($(WS_HAVE_TOP),)
TEST_SRC := $(filter-out tests/test_sim.c tests/test_security.c,$(TEST_SRC))
SIM_SRC  += sim/ws_shim_none.c
endif

# WS_SHARED_FROM: a build directory whose model-independent parts (libwstools.a, libwiresum.a and
# the Verilator runtime, mk/models.mk) the plain variant links instead of building its own: the
# PARTIAL build (mk/models.mk) takes the main build's, which its parent make builds first.
WS_SHARED_FROM ?=

# variant NAME DIR CFLAGS [LIBDIR]: the libraries, the tool and the tests of one variant (with
# LIBDIR, its libwstools.a and libwiresum.a are those there). Objects keep their folder:
# DIR/obj/FOLDER/NAME.o, compiled with the folder's include path.
define variant
$(1)_OBJ   := $$(patsubst %.c,$(2)/obj/%.o,$$(TOOLS_SRC))
$(1)_DOBJ  := $$(patsubst %.c,$(2)/obj/%.o,$$(DRIVER_SRC))
$(1)_SOBJ  := $$(patsubst sim/%.c,$(2)/obj/sim/%.o,$$(SIM_SRC)) \
               $(if $(WS_HAVE_TOP),$(2)/obj/sim/ws_sim_shim.o)
$(1)_LIBS  := $(or $(4),$(2))/libwstools.a $(2)/libwssim.a $(or $(4),$(2))/libwiresum.a
$(1)_TESTS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TEST_SRC))
$(1)_TOOLS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TOOL_SRC))

$(2)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(STD) $$(WARN) $(3) $$(INC) $$(DEPFLAGS) -c $$< -o $$@

$(2)/libwssim.a: $$($(1)_SOBJ)
	rm -f $$@ && $$(AR) rcs $$@ $$^

$(2)/libwstools.a: $$($(1)_OBJ)
	rm -f $$@ && $$(AR) rcs $$@ $$^

$(2)/libwiresum.a: $$($(1)_DOBJ)
	rm -f $$@ && $$(AR) rcs $$@ $$^

# WS_SIM_LIBS, WS_SIM_LD: the models and what they need (mk/models.mk; empty without them)
# (`wiresum --version`: WS_VERSION below)
$(2)/wiresum: cli/main.c $$($(1)_LIBS)
	$$(CC) $$(STD) $$(WARN) $(3) $$(WS_INC_cli) -DWIRESUM_TOOL_VERSION='"$$(WS_VERSION)"' \
	  $$(DEPFLAGS) $$< $$($(1)_LIBS) $$(WS_SIM_LIBS) $$(LIBS) \
	  $$(WS_SIM_LD) -o $$@

$(2)/tests/%: tests/%.c $$($(1)_LIBS) | $(2)/tests
	$$(CC) $$(STD) $$(WARN) $(3) $$(INC) -Itests $$(DEPFLAGS) $$< $$($(1)_LIBS) $$(WS_SIM_LIBS) \
	  $$(LIBS) $$(TLIBS) $$(WS_SIM_LD) -o $$@

$(2)/tests $(2)/obj/sim:
	mkdir -p $$@

-include $$($(1)_OBJ:.o=.d) $$($(1)_DOBJ:.o=.d) $$($(1)_SOBJ:.o=.d) \
         $$(patsubst %,%.d,$$($(1)_TESTS))
endef

$(eval $(call variant,PLAIN,$(BUILD),$(CFLAGS) -fPIC,$(WS_SHARED_FROM)))
$(eval $(call variant,ASAN,$(BUILD)/asan,$(SAN)))
# each folder's include path, for its objects in both variants
$(foreach v,$(BUILD) $(BUILD)/asan,$(foreach l,$(WS_LAYERS),$(eval $(v)/obj/$(l)/%.o: INC := $(WS_INC_$(l)))))

# ---- libwiresum: the shared library and `make install` ----------------------------------------
# ABI version 1: the soname changes when a header's structures or functions change incompatibly.
WS_SOVER    := 1
WS_VERSION  := 1.0.0
PREFIX      ?= /usr/local
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DESTDIR     ?=
WS_HEADERS  := $(wildcard driver/wiresum/*.h)

$(BUILD)/libwiresum.so.$(WS_SOVER): $(PLAIN_DOBJ)
	$(CC) -shared -Wl,-soname,libwiresum.so.$(WS_SOVER) -Wl,--no-undefined $^ -linih -lm -o $@

$(BUILD)/wiresum.pc: driver/wiresum.pc.in FORCE
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(WS_VERSION)|' $< > $@

.PHONY: library install
library: $(BUILD)/libwiresum.a $(BUILD)/libwiresum.so.$(WS_SOVER) $(BUILD)/wiresum.pc

# `make install PREFIX=DIR` (DESTDIR for staging): the library, static and shared, its headers
# under DIR/include/wiresum/ and DIR/lib/pkgconfig/wiresum.pc
install: library
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/wiresum
	install -m 644 $(BUILD)/libwiresum.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/libwiresum.so.$(WS_SOVER) $(DESTDIR)$(LIBDIR)/
	ln -sf libwiresum.so.$(WS_SOVER) $(DESTDIR)$(LIBDIR)/libwiresum.so
	install -m 644 $(WS_HEADERS) $(DESTDIR)$(INCLUDEDIR)/wiresum/
	install -m 644 $(BUILD)/wiresum.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

.PHONY: regmap
# Register map: driver/regmap.def (with the drop reasons of driver/wiresum/reasons.h and the
# limits of driver/wiresum/config.h) is the one source of the checked-in files of REGMAP_GEN
# (FORMAT:FILE); `make regmap` regenerates them, `build/regmap_gen --check FORMAT FILE` tells
# whether one is up to date.
REGMAP_GEN := vh:hw/ws_regmap.vh h:driver/wiresum/regmap.h md:docs/registers.md \
              gtkw-reason:sim/wiresum_reason.txt
$(BUILD)/regmap_gen: tools/regmap_gen.c driver/regmap.def driver/wiresum/reasons.h driver/wiresum/config.h \
                    driver/wiresum/wire.h driver/wiresum/xsum.h
	@mkdir -p $(BUILD)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(INC) $< -o $@

regmap: $(BUILD)/regmap_gen
	@for g in $(REGMAP_GEN); do echo "$(BUILD)/regmap_gen $${g%%:*} $${g#*:}"; \
	  $(BUILD)/regmap_gen $${g%%:*} $${g#*:} || exit 1; done

# the generated files are up to date, and the RTL types none of their codes or layouts by hand
# (tests/hw_one_source.sh)
regmap-check: $(BUILD)/regmap_gen
	@rc=0; for g in $(REGMAP_GEN); do $(BUILD)/regmap_gen --check $${g%%:*} $${g#*:} || rc=1; done; \
	  sh tests/hw_one_source.sh || rc=1; \
	  if [ $$rc = 0 ]; then echo "regmap generated 1 0" >> $(BUILD)/results.txt; \
	  else echo "regmap generated 0 1" >> $(BUILD)/results.txt; exit 1; fi
