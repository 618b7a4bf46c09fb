/* ws_shim_none.c - the Verilator shim of a build without the models (no hw/wiresum_top.f): no
 * DATA_WIDTH is built in, so ws_sim_new (sim/ws_sim.c) and ws_session_open (sim/session.c) say
 * so when a model is asked for. Linked instead of sim/ws_sim_shim.cpp (mk/c.mk). */
#include "ws_sim_shim.h"

size_t ws_shim_verilator_widths(unsigned *widths, size_t max)
{
    (void)widths;
    (void)max;
    return 0;
}

void *ws_shim_verilator_new(unsigned data_width)
{
    (void)data_width;
    return NULL;
}

void *ws_shim_verilator_new_model(unsigned data_width, int untraced)
{
    (void)data_width;
    (void)untraced;
    return NULL;
}

int ws_shim_verilator_traced(unsigned data_width)
{
    (void)data_width;
    return 0;
}

/* never called: no model is ever made */
const ws_shim_ops ws_shim_verilator = {.engine = "verilator"};
