# wiresum - top-level build. `make` builds build/wiresum with its models; `make test` runs the
# whole suite (also under ASan+UBSan); `make demo` runs the default trace.
#
# The rules live in mk/, one file per concern:
#   mk/c.mk       the host C code (tools, libraries, unit tests), plain and sanitized
#   mk/models.mk  the device models: Verilator at each width, Icarus, lint, the 4-engine device
#   mk/tests.mk   the suites of `make test`, each a target of its own
#   mk/bench.mk   `make bench` and the register map generator
#   mk/cluster.mk build/wiresum-cluster, the ns-3 cluster simulation (`wiresum cluster`)
#
# Entry points (all, demo, test) first run scripts/deps.sh, which installs the missing Debian
# packages, and only then start a second make that reads the rules: what the rules ask of the
# installed tools (Verilator's include directory, iverilog-vpi's flags) is asked after the
# install, so a fresh machine builds on the first try. The second make runs as many jobs as the
# machine has cores unless the command line gave -j.

CC       ?= cc
BUILD    := build
# the suites (tests/lib.sh) put their results and scratch files under it
export BUILD
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
DEPFLAGS := -MMD -MP
CFLAGS   ?= -O2 -g
SAN      := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# WS_DEPS: the install step of the entry points (tests/fresh_build.sh puts a stand-in here)
WS_DEPS  ?= sh scripts/deps.sh
NPROC    := $(shell nproc 2>/dev/null || echo 1)
# -j for the second make: the machine's cores, unless the caller chose
WS_JOBS   = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
SUBMAKE   = $(MAKE) --no-print-directory $(WS_JOBS)

.PHONY: all build-all deps deps-quiet demo test clean FORCE
.DEFAULT_GOAL := all
FORCE:

# WS_ALL_GOALS: what `make` builds (tests/fresh_build.sh asks for less)
WS_ALL_GOALS ?= build-all
all:
	+@$(WS_DEPS)
	+@$(SUBMAKE) $(WS_ALL_GOALS)

# `make demo` runs at 256 bits: it builds the tool with the 256-bit models alone (and keeps the
# other widths a build already has), so that a fresh clone reaches the demo in minutes; make and
# make test build every width of WS_SIM_WIDTHS into the same tool
WS_DEMO_WIDTHS = $(filter 256 $(patsubst %f,%,$(shell cat $(BUILD)/sim/widths.cfg 2>/dev/null)),$(WS_SIM_WIDTHS))
demo:
	+@$(WS_DEPS)
	+@$(SUBMAKE) WS_SIM_WIDTHS='$(WS_DEMO_WIDTHS)' $(BUILD)/wiresum
	@sh scripts/demo.sh $(BUILD)/wiresum

# `make test`: everything built, with the suites that need no model (TEST_EARLY) run beside the
# build, then the others, as many at a time as the machine has cores (each suite's output kept
# together); tests/summary.sh prints the closing line "N passed, N failed". A failed build stops
# make test after the early suites.
test:
	+@$(WS_DEPS)
	@rm -f $(BUILD)/results.txt $(BUILD)/suites.rc $(BUILD)/times.txt
	+@mkdir -p $(BUILD); sh tests/timed.sh build $(BUILD)/times.txt -c \
	  '$(SUBMAKE) -k --output-sync=target test-build $(TEST_EARLY)'; \
	  echo $$? >> $(BUILD)/suites.rc
	+@$(SUBMAKE) test-build
	+@sh tests/timed.sh suites $(BUILD)/times.txt -c \
	  '$(SUBMAKE) -k --output-sync=target WS_MODELS_BUILT=1 $(filter-out $(TEST_EARLY),$(TEST_SUITES))'; \
	  echo $$? >> $(BUILD)/suites.rc
	@sh tests/summary.sh $(BUILD)/results.txt $(BUILD)/times.txt && ! grep -qv '^0$$' $(BUILD)/suites.rc

deps deps-quiet:
	@$(WS_DEPS)

clean:
	rm -rf $(BUILD)

include mk/c.mk
include mk/models.mk
include mk/tests.mk
include mk/bench.mk
include mk/cluster.mk
