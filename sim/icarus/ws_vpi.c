/* ws_vpi.c - the Icarus side of the bridge between sim/ws_sim.c and vvp (sim/ws_shim_icarus.c
 * is the other side): the system function $ws_bridge of sim/icarus/ws_icarus_tb.v.
 *
 * vvp loads this module (-m ws_vpi) and inherits a connected socket as file descriptor
 * $WS_BRIDGE_FD. Each call of $ws_bridge(delay, path) serves the harness's requests until one of
 * them needs the simulator to act, then returns what to do:
 *   first call  -> sends HELLO: u32 magic, u32 n, u32 bits[n] (the sizes of the TOP ports named
 *                  in WS_SHIM_PORTS order, 0 for one not found), i32 time precision
 *   'S' u8 port, u32 nwords, u32 words[] -> the TOP port (an input) takes the value now
 *   'E' u64 ps  -> returns 0 with delay = ps: the testbench waits that long; the next call
 *                  first sends the values of every output port, in WS_SHIM_PORTS order
 *   'T' u32 n, n bytes -> returns 1 with path = the file name: the testbench starts an FST
 *   'O'         -> returns 2: the testbench stops dumping
 *   'Q' or end of the socket -> returns 3: the testbench calls $finish
 * Integers are in host byte order (both ends run on one machine). X and Z bits read as 0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vpi_user.h>

#include "ws_sim_shim.h"

#define WS_BRIDGE_MAGIC 0x57534956u /* "WSIV" */

static const struct {
    const char *name;
    int input;
} port_def[WS_SHIM_N_PORTS] = {
#define WS_DEF_(e, name, in) {#name, in},
    WS_SHIM_PORTS(WS_DEF_)
#undef WS_DEF_
};

static int fd = -1;
static vpiHandle port_h[WS_SHIM_N_PORTS];
static unsigned port_words[WS_SHIM_N_PORTS];
static int reply_due;
static s_vpi_vecval *vec; /* scratch, as large as the widest port */
static uint32_t *buf;
static unsigned max_words = 1;

static int read_full(void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_full(const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t r = write(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static int hello(void)
{
    const char *env = getenv("WS_BRIDGE_FD");
    fd = env ? atoi(env) : -1;
    if (fd < 0) {
        vpi_printf("ws_vpi: WS_BRIDGE_FD is not set: this design runs only under wiresum\n");
        return -1;
    }
    uint32_t msg[2 + WS_SHIM_N_PORTS + 1];
    msg[0] = WS_BRIDGE_MAGIC;
    msg[1] = WS_SHIM_N_PORTS;
    for (int i = 0; i < WS_SHIM_N_PORTS; i++) {
        char name[64];
        snprintf(name, sizeof name, "TOP.%s", port_def[i].name);
        port_h[i] = vpi_handle_by_name(name, NULL);
        unsigned bits = port_h[i] ? (unsigned)vpi_get(vpiSize, port_h[i]) : 0;
        port_words[i] = (bits + 31) / 32;
        if (port_words[i] > max_words)
            max_words = port_words[i];
        msg[2 + i] = bits;
    }
    msg[2 + WS_SHIM_N_PORTS] = (uint32_t)vpi_get(vpiTimePrecision, NULL);
    vec = calloc(max_words, sizeof *vec);
    buf = calloc((size_t)max_words * WS_SHIM_N_PORTS, sizeof *buf);
    if (!vec || !buf)
        return -1;
    return write_full(msg, sizeof msg);
}

static int send_outputs(void)
{
    size_t n = 0;
    for (int i = 0; i < WS_SHIM_N_PORTS; i++) {
        if (port_def[i].input || !port_h[i])
            continue;
        s_vpi_value v = {.format = vpiVectorVal};
        vpi_get_value(port_h[i], &v);
        for (unsigned k = 0; k < port_words[i]; k++)
            buf[n++] = (uint32_t)(v.value.vector[k].aval & ~v.value.vector[k].bval);
    }
    return write_full(buf, n * sizeof *buf);
}

static int set_port(void)
{
    uint8_t port;
    uint32_t nw;
    if (read_full(&port, 1) || read_full(&nw, 4) || port >= WS_SHIM_N_PORTS ||
        nw != port_words[port] || !port_def[port].input || !port_h[port])
        return -1;
    if (read_full(buf, nw * 4u))
        return -1;
    for (unsigned k = 0; k < nw; k++)
        vec[k] = (s_vpi_vecval){.aval = (PLI_INT32)buf[k], .bval = 0};
    s_vpi_value v = {.format = vpiVectorVal};
    v.value.vector = vec;
    vpi_put_value(port_h[port], &v, NULL, vpiNoDelay);
    return 0;
}

static void put_return(vpiHandle sys, int code)
{
    s_vpi_value v = {.format = vpiIntVal};
    v.value.integer = code;
    vpi_put_value(sys, &v, NULL, vpiNoDelay);
}

static PLI_INT32 bridge_calltf(PLI_BYTE8 *user)
{
    (void)user;
    vpiHandle sys = vpi_handle(vpiSysTfCall, NULL);
    vpiHandle it = vpi_iterate(vpiArgument, sys);
    vpiHandle h_delay = it ? vpi_scan(it) : NULL;
    vpiHandle h_path = h_delay ? vpi_scan(it) : NULL;
    if (h_path)
        vpi_free_object(it);
    if (!h_delay || !h_path) {
        vpi_printf("ws_vpi: $ws_bridge takes (delay, path)\n");
        put_return(sys, 3);
        return 0;
    }
    if (fd < 0 && hello() != 0) {
        put_return(sys, 3);
        return 0;
    }
    if (reply_due) {
        reply_due = 0;
        if (send_outputs()) {
            put_return(sys, 3);
            return 0;
        }
    }
    for (;;) {
        uint8_t op;
        if (read_full(&op, 1)) {
            put_return(sys, 3); /* the harness has gone: end */
            return 0;
        }
        switch (op) {
        case 'S':
            if (set_port()) {
                vpi_printf("ws_vpi: malformed set request\n");
                put_return(sys, 3);
                return 0;
            }
            break;
        case 'E': {
            uint64_t ps;
            if (read_full(&ps, 8)) {
                put_return(sys, 3);
                return 0;
            }
            s_vpi_vecval d[2] = {{.aval = (PLI_INT32)(uint32_t)ps, .bval = 0},
                                 {.aval = (PLI_INT32)(uint32_t)(ps >> 32), .bval = 0}};
            s_vpi_value v = {.format = vpiVectorVal};
            v.value.vector = d;
            vpi_put_value(h_delay, &v, NULL, vpiNoDelay);
            reply_due = 1;
            put_return(sys, 0);
            return 0;
        }
        case 'T': {
            uint32_t n;
            char path[4097];
            if (read_full(&n, 4) || n == 0 || n > 4096 || read_full(path, n)) {
                put_return(sys, 3);
                return 0;
            }
            path[n] = '\0';
            s_vpi_value v = {.format = vpiStringVal};
            v.value.str = path;
            vpi_put_value(h_path, &v, NULL, vpiNoDelay);
            put_return(sys, 1);
            return 0;
        }
        case 'O':
            put_return(sys, 2);
            return 0;
        default: /* 'Q' */
            put_return(sys, 3);
            return 0;
        }
    }
}

static PLI_INT32 bridge_sizetf(PLI_BYTE8 *user)
{
    (void)user;
    return 32;
}

static void bridge_register(void)
{
    s_vpi_systf_data tf = {0};
    tf.type = vpiSysFunc;
    tf.sysfunctype = vpiSizedFunc;
    tf.tfname = "$ws_bridge";
    tf.calltf = bridge_calltf;
    tf.sizetf = bridge_sizetf;
    vpi_register_systf(&tf);
}

void (*vlog_startup_routines[])(void) = {bridge_register, NULL};
