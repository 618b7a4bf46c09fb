# mk/trace_opt.mk - read after a Verilated model's own makefile (WS_SUBMAKE in mk/models.mk), in
# the model's directory. <prefix>__Trace__<n>.cpp is the code that dumps the changed signals
# into a waveform: it runs only when a trace is being written, and at -O2 it is about a third of
# a model's compile time (23.6 s for one file of the 1024-bit model, 10.0 s at -O1). It is built
# at -O1; the evaluation code keeps WS_SIM_OPT.
WS_TRACE_OBJS := $(patsubst %.cpp,%.o,$(filter-out %__Slow.cpp,$(wildcard *__Trace__*.cpp)))
$(WS_TRACE_OBJS): override OPT_FAST = -O1
