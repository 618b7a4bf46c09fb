# wiresum - top-level build. `make` builds build/wiresum; `make test` runs the
# whole suite (also under ASan+UBSan); `make demo` runs the default trace.

CC       ?= cc
BUILD    := build
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
DEPFLAGS := -MMD -MP
CFLAGS   ?= -O2 -g
SAN      := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
INC      := -Ihost
LIBS     := -lpcap -linih -lm
TLIBS    := -lcmocka

HOST_SRC := $(filter-out host/main.c,$(wildcard host/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
TOOL_SRC := $(wildcard tests/tool_*.c)

# Two variants of everything: plain (build/) and sanitized (build/asan/).
define variant
$(1)_OBJ   := $$(patsubst host/%.c,$(2)/obj/%.o,$$(HOST_SRC))
$(1)_TESTS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TEST_SRC))
$(1)_TOOLS := $$(patsubst tests/%.c,$(2)/tests/%,$$(TOOL_SRC))

$(2)/obj/%.o: host/%.c | $(2)/obj
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

.PHONY: all deps deps-quiet test unit unit-asan e2e demo clean
.DEFAULT_GOAL := all

all: deps-quiet $(BUILD)/wiresum

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

test: deps
	@rm -f $(BUILD)/results.txt
	@$(MAKE) --no-print-directory unit unit-asan e2e; rc=$$?; \
	  sh tests/summary.sh $(BUILD)/results.txt; s=$$?; [ $$rc -eq 0 ] && [ $$s -eq 0 ]

demo: deps $(BUILD)/wiresum
	@sh scripts/demo.sh $(BUILD)/wiresum

clean:
	rm -rf $(BUILD)
