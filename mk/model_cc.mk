# mk/model_cc.mk - read after a Verilated model's own makefile (WS_SUBMAKE in mk/models.mk), in
# the model's directory: how the model's C++ is compiled, where Verilator's defaults are slow.
#
# Trace code at -O1. <prefix>__Trace__<n>.cpp is the code that dumps the changed signals into a
# waveform: it runs only when a trace is being written, and at -O2 it is about a third of a
# model's compile time (23.6 s for one file of the 1024-bit model, 10.0 s at -O1). The
# evaluation code keeps WS_SIM_OPT.
WS_TRACE_OPT  := -O1
WS_TRACE_OBJS := $(patsubst %.cpp,%.o,$(filter-out %__Slow.cpp,$(wildcard *__Trace__*.cpp)))
$(WS_TRACE_OBJS): override OPT_FAST = $(WS_TRACE_OPT)

# A precompiled header. Every generated file begins with verilated.h (the trace files with
# verilated_fst_c.h), 0.55 s of g++ per file, most of a small file's time, and a model has 25
# to 70 files. ws_pch.h holds both and is -included first in every file of the model (not in
# Verilator's runtime, verilated.cpp and the like, which define macros before them). g++ takes
# from the directory ws_pch.h.gch/ the one compiled with the file's optimisation: evaluation
# (OPT_FAST), trace (WS_TRACE_OPT), construction (OPT_SLOW, none). ~70 MB each. The flags are
# taken as the makefiles are read: a header built for a trace file must not inherit its
# OPT_FAST.
WS_PCH_FLAGS := $(filter-out -MMD,$(CXXFLAGS) $(CPPFLAGS))
WS_PCH_fast  := $(OPT_FAST)
WS_PCH_trace := $(WS_TRACE_OPT)
WS_PCH_slow  := $(OPT_SLOW)
WS_PCH       := ws_pch.h.gch/fast.gch ws_pch.h.gch/trace.gch ws_pch.h.gch/slow.gch
ws_pch.h:
	printf '#include "verilated.h"\n#include "verilated_fst_c.h"\n' > $@
ws_pch.h.gch/%.gch: ws_pch.h
	@mkdir -p $(@D)
	$(CXX) $(WS_PCH_FLAGS) $(WS_PCH_$*) -x c++-header $< -o $@
$(VK_FAST_OBJS) $(VK_SLOW_OBJS): CPPFLAGS += -include ws_pch.h
$(VK_FAST_OBJS) $(VK_SLOW_OBJS): | $(WS_PCH)
