/* ws_shim_icarus.c - wiresum_top under Icarus Verilog behind the functions of ws_sim_shim.h.
 *
 * The design is compiled ahead by iverilog (build/icarus/ws<width>.vvp, the testbench
 * sim/icarus/ws_icarus_tb.v around hw/wiresum_top.v) and run by vvp in a child process, which
 * loads the VPI bridge sim/icarus/ws_vpi.c (build/icarus/ws_vpi.vpi). The two talk over a socket
 * pair with the requests described in ws_vpi.c: input values are sent only when they changed,
 * batched with the request to let time pass ('E'); the reply to it carries every output port,
 * which get() then serves from the copy here. One round trip per eval.
 *
 * Time: eval lets the time accumulated by time_inc pass in the child after applying the inputs,
 * so an input set at a falling edge takes effect at once and the outputs read back are those
 * after the edge, as with Verilator. An eval with no time passed still needs a step of the
 * precision (1 ps) for vvp to settle the nonblocking updates; the next time_inc pays it back,
 * so the edges stay on the harness's times.
 */
#include "ws_sim_shim.h"
#include "ws_grow.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define WS_BRIDGE_MAGIC 0x57534956u /* "WSIV", as in ws_vpi.c */
#define CHILD_FD 3

static const int port_input[WS_SHIM_N_PORTS] = {
#define WS_IN_(e, name, in) in,
    WS_SHIM_PORTS(WS_IN_)
#undef WS_IN_
};

typedef struct {
    int fd;
    pid_t pid;
    int finished, failed_exit;
    unsigned words[WS_SHIM_N_PORTS];
    uint32_t *val[WS_SHIM_N_PORTS];  /* inputs as set, outputs as last read */
    uint32_t *sent[WS_SHIM_N_PORTS]; /* inputs as the child has them */
    int precision;
    uint64_t time, pending, owed;
    int trace; /* 0 none, 1 opened (starts at the first dump), 2 dumping, 3 stopped */
    char trace_path[4096];
    uint8_t *wb;
    size_t wn, wcap;
    uint32_t *rb;
    size_t rwords; /* words of all output ports */
    char model[32];
} iv;

static int io_full(int fd, void *p, size_t n, int wr)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = wr ? send(fd, b, n, MSG_NOSIGNAL) : read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static void child_gone(iv *m)
{
    if (m->finished)
        return;
    m->finished = 1;
    if (m->pid > 0) {
        int st = 0;
        if (waitpid(m->pid, &st, 0) == m->pid)
            m->failed_exit = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        m->pid = -1;
    }
}

static int put(iv *m, const void *p, size_t n)
{
    uint8_t *nb = ws_grow(m->wb, &m->wcap, m->wn + n, 1, 4096);
    if (!nb)
        return -1;
    m->wb = nb;
    memcpy(m->wb + m->wn, p, n);
    m->wn += n;
    return 0;
}

static int flush(iv *m)
{
    if (m->finished)
        return -1;
    int rc = io_full(m->fd, m->wb, m->wn, 1);
    m->wn = 0;
    if (rc)
        child_gone(m);
    return rc;
}

static const char *iv_model(const void *vm)
{
    return ((const iv *)vm)->model;
}

static unsigned iv_words(const void *vm, ws_shim_port p)
{
    return (unsigned)p < WS_SHIM_N_PORTS ? ((const iv *)vm)->words[p] : 0;
}

static int iv_set(void *vm, ws_shim_port p, const uint32_t *w)
{
    iv *m = vm;
    if ((unsigned)p >= WS_SHIM_N_PORTS || !port_input[p] || !m->words[p])
        return -1;
    memcpy(m->val[p], w, m->words[p] * 4u);
    return 0;
}

static int iv_get(const void *vm, ws_shim_port p, uint32_t *w)
{
    const iv *m = vm;
    if ((unsigned)p >= WS_SHIM_N_PORTS || !m->words[p])
        return -1;
    memcpy(w, m->val[p], m->words[p] * 4u);
    return 0;
}

static void iv_eval(void *vm)
{
    iv *m = vm;
    if (m->finished)
        return;
    int bad = 0;
    for (int p = 0; p < WS_SHIM_N_PORTS; p++) {
        if (!port_input[p] || !m->words[p] || !memcmp(m->val[p], m->sent[p], m->words[p] * 4u))
            continue;
        uint8_t op = 'S', port = (uint8_t)p;
        uint32_t nw = m->words[p];
        bad |= put(m, &op, 1) | put(m, &port, 1) | put(m, &nw, 4) | put(m, m->val[p], nw * 4u);
        memcpy(m->sent[p], m->val[p], nw * 4u);
    }
    uint64_t d = m->pending;
    m->pending = 0;
    if (d == 0) {
        d = 1;
        m->owed++;
    } else if (m->owed) {
        uint64_t pay = m->owed < d ? m->owed : d - 1;
        d -= pay;
        m->owed -= pay;
    }
    uint8_t op = 'E';
    bad |= put(m, &op, 1) | put(m, &d, 8);
    if (bad || flush(m) || io_full(m->fd, m->rb, m->rwords * 4u, 0)) {
        child_gone(m);
        return;
    }
    size_t at = 0;
    for (int p = 0; p < WS_SHIM_N_PORTS; p++) {
        if (port_input[p] || !m->words[p])
            continue;
        memcpy(m->val[p], m->rb + at, m->words[p] * 4u);
        at += m->words[p];
    }
}

static void iv_time_inc(void *vm, uint64_t units)
{
    iv *m = vm;
    m->time += units;
    m->pending += units;
}

static uint64_t iv_time(const void *vm)
{
    return ((const iv *)vm)->time;
}

static int iv_time_precision(const void *vm)
{
    return ((const iv *)vm)->precision;
}

static int iv_got_finish(const void *vm)
{
    const iv *m = vm;
    return m->finished ? (m->failed_exit ? 2 : 1) : 0;
}

static int iv_trace_open(void *vm, const char *path)
{
    iv *m = vm;
    size_t n = strlen(path);
    if (m->trace != 0 || n == 0 || n >= sizeof m->trace_path)
        return -1; /* vvp has one dump file for its whole run */
    memcpy(m->trace_path, path, n + 1);
    m->trace = 1;
    return 0;
}

/* vvp dumps every change once started: the first dump call starts it, close stops it. */
static void iv_trace_dump(void *vm)
{
    iv *m = vm;
    if (m->trace != 1 || m->finished)
        return;
    uint8_t op = 'T';
    uint32_t n = (uint32_t)strlen(m->trace_path);
    if (put(m, &op, 1) | put(m, &n, 4) | put(m, m->trace_path, n) || flush(m))
        return;
    m->trace = 2;
}

static void iv_trace_close(void *vm)
{
    iv *m = vm;
    if (m->trace == 2 && !m->finished) {
        uint8_t op = 'O';
        if (put(m, &op, 1) == 0)
            flush(m);
    }
    if (m->trace)
        m->trace = 3;
}

static void iv_free(void *vm)
{
    iv *m = vm;
    if (!m)
        return;
    if (!m->finished && m->fd >= 0) {
        uint8_t op = 'Q';
        if (put(m, &op, 1) == 0)
            flush(m);
    }
    if (m->fd >= 0)
        close(m->fd);
    if (m->pid > 0) {
        int st;
        waitpid(m->pid, &st, 0);
    }
    for (int p = 0; p < WS_SHIM_N_PORTS; p++) {
        free(m->val[p]);
        free(m->sent[p]);
    }
    free(m->wb);
    free(m->rb);
    free(m);
}

const ws_shim_ops ws_shim_icarus = {
    .engine = "icarus",
    .free = iv_free,
    .model = iv_model,
    .words = iv_words,
    .set = iv_set,
    .get = iv_get,
    .eval = iv_eval,
    .time_inc = iv_time_inc,
    .time = iv_time,
    .time_precision = iv_time_precision,
    .got_finish = iv_got_finish,
    .trace_open = iv_trace_open,
    .trace_dump = iv_trace_dump,
    .trace_close = iv_trace_close,
};

/* The directory with ws<width>.vvp and ws_vpi.vpi: $WIRESUM_ICARUS_DIR, else icarus/ beside the
 * executable or up to three levels up (build/wiresum, build/asan/wiresum and the test programs
 * in build/asan/tests/ all find build/icarus). */
static int find_dir(unsigned width, char *dir, size_t n, char *err, size_t errlen)
{
    char vvp[4100], vpi[4100], cand[4000];
    const char *env = getenv("WIRESUM_ICARUS_DIR");
    char exe[3900];
    ssize_t el = env ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    for (int up = 0; up < 4; up++) {
        if (env) {
            if (up > 0)
                break;
            snprintf(cand, sizeof cand, "%.3900s", env);
        } else if (slash) {
            snprintf(cand, sizeof cand, "%s/%.*sicarus", exe, 3 * up, "../../../");
        } else {
            break;
        }
        snprintf(vvp, sizeof vvp, "%s/ws%u.vvp", cand, width);
        snprintf(vpi, sizeof vpi, "%s/ws_vpi.vpi", cand);
        if (access(vvp, R_OK) == 0 && access(vpi, R_OK) == 0) {
            snprintf(dir, n, "%s", cand);
            return 0;
        }
    }
    snprintf(err, errlen, "Icarus design for DATA_WIDTH %u not found (ws%u.vvp and ws_vpi.vpi in "
             "%s%s): run 'make icarus WS_ICARUS_WIDTHS=%u' (that width alone; 'make icarus' "
             "compiles every width)", width, width, env ? env : slash ? exe : "",
             env ? "" : "/icarus or up to three levels up", width);
    return -1;
}

void *ws_shim_icarus_new(unsigned data_width, char *err, size_t errlen)
{
    char dir[4000];
    if (find_dir(data_width, dir, sizeof dir, err, errlen))
        return NULL;
    iv *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->fd = -1;
    m->pid = -1;
    snprintf(m->model, sizeof m->model, "icarus ws%u", data_width);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        snprintf(err, errlen, "icarus: socketpair: %s", strerror(errno));
        free(m);
        return NULL;
    }
    char vvp[4100];
    snprintf(vvp, sizeof vvp, "%s/ws%u.vvp", dir, data_width);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "icarus: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        free(m);
        return NULL;
    }
    if (pid == 0) {
        /* the child: the socket as fd 3, vvp's messages on stderr (stdout is the tool's) */
        if (dup2(sv[1], CHILD_FD) < 0 || dup2(2, 1) < 0)
            _exit(127);
        for (int fdn = CHILD_FD + 1; fdn < 1024; fdn++)
            close(fdn);
        setenv("WS_BRIDGE_FD", "3", 1);
        signal(SIGPIPE, SIG_DFL);
        execlp("vvp", "vvp", "-n", "-M", dir, "-m", "ws_vpi", vvp, "-fst", (char *)NULL);
        fprintf(stderr, "icarus: cannot run vvp: %s (install iverilog: scripts/deps.sh)\n",
                strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    m->fd = sv[0];
    m->pid = pid;
    uint32_t hdr[2];
    if (io_full(m->fd, hdr, sizeof hdr, 0) || hdr[0] != WS_BRIDGE_MAGIC ||
        hdr[1] != WS_SHIM_N_PORTS) {
        snprintf(err, errlen, "icarus: vvp %s did not start the bridge (see its messages above)",
                 vvp);
        iv_free(m);
        return NULL;
    }
    uint32_t bits[WS_SHIM_N_PORTS];
    int32_t prec;
    if (io_full(m->fd, bits, sizeof bits, 0) || io_full(m->fd, &prec, 4, 0)) {
        snprintf(err, errlen, "icarus: vvp %s: bridge handshake cut short", vvp);
        iv_free(m);
        return NULL;
    }
    m->precision = prec;
    for (int p = 0; p < WS_SHIM_N_PORTS; p++) {
        m->words[p] = (bits[p] + 31) / 32;
        unsigned w = m->words[p] ? m->words[p] : 1;
        m->val[p] = calloc(w, 4);
        m->sent[p] = calloc(w, 4);
        if (!m->val[p] || !m->sent[p]) {
            snprintf(err, errlen, "out of memory");
            iv_free(m);
            return NULL;
        }
        if (!port_input[p])
            m->rwords += m->words[p];
    }
    /* the testbench's registers start at 0, as sent[] does */
    m->rb = calloc(m->rwords ? m->rwords : 1, 4);
    if (!m->rb) {
        snprintf(err, errlen, "out of memory");
        iv_free(m);
        return NULL;
    }
    return m;
}
