// ws_sim_shim.cpp - the only C++ of wiresum: the Verilated models of wiresum_top behind the C
// functions of ws_sim_shim.h. One template stamps the models built in (WS_SIM_HAVE_<width>).
#include "ws_sim_shim.h"

#include <cstddef>
#include <cstdint>
#include <memory>

#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#else
class VerilatedFstC {}; // models Verilated without --trace-fst: trace_open fails
#endif

#ifdef WS_SIM_HAVE_256
#include "Vws256.h"
#endif
#ifdef WS_SIM_HAVE_512
#include "Vws512.h"
#endif
#ifdef WS_SIM_HAVE_1024
#include "Vws1024.h"
#endif
// the same models Verilated without --trace-fst (WS_SIM_FAST_WIDTHS): faster, no trace
#ifdef WS_SIM_HAVE_FAST_256
#include "Vws256f.h"
#endif
#ifdef WS_SIM_HAVE_FAST_512
#include "Vws512f.h"
#endif
#ifdef WS_SIM_HAVE_FAST_1024
#include "Vws1024f.h"
#endif

namespace {

// A port as 32-bit words: scalars (CData, SData, IData, QData) and VlWide<N>.
template <class T> unsigned words_of(const T &) { return sizeof(T) > 4 ? 2 : 1; }
template <std::size_t N> unsigned words_of(const VlWide<N> &) { return N; }

template <class T> void put(T &v, const uint32_t *w)
{
    if constexpr (sizeof(T) > 4)
        v = static_cast<T>(w[0] | static_cast<uint64_t>(w[1]) << 32);
    else
        v = static_cast<T>(w[0]);
}
template <std::size_t N> void put(VlWide<N> &v, const uint32_t *w)
{
    for (std::size_t i = 0; i < N; i++)
        v[i] = w[i];
}

template <class T> void take(const T &v, uint32_t *w)
{
    w[0] = static_cast<uint32_t>(v);
    if constexpr (sizeof(T) > 4)
        w[1] = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
}
template <std::size_t N> void take(const VlWide<N> &v, uint32_t *w)
{
    for (std::size_t i = 0; i < N; i++)
        w[i] = v[i];
}

} // namespace

struct ws_shim {
    virtual ~ws_shim() = default;
    virtual const char *model() const = 0;
    virtual unsigned words(ws_shim_port p) const = 0;
    virtual int set(ws_shim_port p, const uint32_t *w) = 0;
    virtual int get(ws_shim_port p, uint32_t *w) const = 0;
    virtual void eval() = 0;
    // The context, made the calling thread's: Verilator's runtime ($finish, $stop, messages)
    // acts on Verilated::threadContextp(), which is otherwise the last context created.
    virtual VerilatedContext &context() const = 0;
    virtual bool trace(VerilatedFstC *fst) = 0; // false: the model was Verilated without tracing
    std::unique_ptr<VerilatedFstC> fst; // closed by the derived destructor, before the model goes
};

namespace {

template <class M, bool Traced> struct shim final : ws_shim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<M> top;
    const char *name;

    explicit shim(const char *model_name) : ctx(new VerilatedContext), name(model_name)
    {
        ctx->traceEverOn(true);     // before time 0; costs nothing until a trace is opened
        ctx->fatalOnError(false);   // $stop and assertion errors end the run, not the process
        top.reset(new M(ctx.get(), "TOP"));
    }
    ~shim() override
    {
        context();
#if VM_TRACE
        if (fst)
            fst->close();
        fst.reset();
#endif
        top->final();
        top.reset();
        ctx.reset();
        Verilated::threadContextp(nullptr); // not left pointing at a dead context
    }

    // Calls f(port) with the model's member for p; false for a bad p.
    template <class F> bool with(ws_shim_port p, F f) const
    {
        switch (p) {
#define WS_SHIM_CASE_(e, port, in)                                                                 \
    case WS_SHIM_##e:                                                                              \
        f(top->port, in);                                                                          \
        return true;
            WS_SHIM_PORTS(WS_SHIM_CASE_)
#undef WS_SHIM_CASE_
        default:
            return false;
        }
    }

    const char *model() const override { return name; }
    unsigned words(ws_shim_port p) const override
    {
        unsigned n = 0;
        with(p, [&](const auto &v, int) { n = words_of(v); });
        return n;
    }
    int set(ws_shim_port p, const uint32_t *w) override
    {
        int rc = -1;
        with(p, [&](auto &v, int in) {
            if (in) {
                put(v, w);
                rc = 0;
            }
        });
        return rc;
    }
    int get(ws_shim_port p, uint32_t *w) const override
    {
        return with(p, [&](const auto &v, int) { take(v, w); }) ? 0 : -1;
    }
    void eval() override
    {
        context();
        top->eval();
    }
    VerilatedContext &context() const override
    {
        Verilated::threadContextp(ctx.get());
        return *ctx;
    }
#if VM_TRACE
    bool trace(VerilatedFstC *f) override
    {
        if constexpr (Traced) {
            top->trace(f, 99);
            return true;
        } else {
            (void)f;
            return false;
        }
    }
#else
    bool trace(VerilatedFstC *) override { return false; }
#endif
};

struct entry {
    unsigned width;
    ws_shim *(*make)();
};

template <class M, bool Traced> ws_shim *make_shim(const char *name)
{
    return new shim<M, Traced>(name);
}

#define WS_SHIM_ENTRY_(w)                                                                          \
    { w, [] { return make_shim<Vws##w, true>("Vws" #w); } }
#define WS_SHIM_FAST_ENTRY_(w)                                                                     \
    { w, [] { return make_shim<Vws##w##f, false>("Vws" #w "f"); } }

const entry models[] = {
#ifdef WS_SIM_HAVE_256
    WS_SHIM_ENTRY_(256),
#endif
#ifdef WS_SIM_HAVE_512
    WS_SHIM_ENTRY_(512),
#endif
#ifdef WS_SIM_HAVE_1024
    WS_SHIM_ENTRY_(1024),
#endif
    {0, nullptr},
};

const entry fast_models[] = {
#ifdef WS_SIM_HAVE_FAST_256
    WS_SHIM_FAST_ENTRY_(256),
#endif
#ifdef WS_SIM_HAVE_FAST_512
    WS_SHIM_FAST_ENTRY_(512),
#endif
#ifdef WS_SIM_HAVE_FAST_1024
    WS_SHIM_FAST_ENTRY_(1024),
#endif
    {0, nullptr},
};

ws_shim *S(void *m) { return static_cast<ws_shim *>(m); }
const ws_shim *S(const void *m) { return static_cast<const ws_shim *>(m); }

void vl_free(void *m) { delete S(m); }
const char *vl_model(const void *m) { return S(m)->model(); }
unsigned vl_words(const void *m, ws_shim_port p) { return S(m)->words(p); }
int vl_set(void *m, ws_shim_port p, const uint32_t *w) { return S(m)->set(p, w); }
int vl_get(const void *m, ws_shim_port p, uint32_t *w) { return S(m)->get(p, w); }
void vl_eval(void *m) { S(m)->eval(); }
void vl_time_inc(void *m, uint64_t units) { S(m)->context().timeInc(units); }
uint64_t vl_time(const void *m) { return S(m)->context().time(); }
int vl_time_precision(const void *m) { return S(m)->context().timeprecision(); }
int vl_got_finish(const void *m)
{
    VerilatedContext &c = S(m)->context();
    return c.gotError() ? 2 : c.gotFinish() ? 1 : 0;
}

int vl_trace_open(void *vm, const char *path)
{
    ws_shim *m = S(vm);
    if (m->fst)
        return -1;
#if !VM_TRACE
    (void)path;
    return -1;
#else
    try {
        std::unique_ptr<VerilatedFstC> f(new VerilatedFstC);
        if (!m->trace(f.get()))
            return -1;
        f->open(path);
        if (!f->isOpen())
            return -1;
        m->fst = std::move(f);
        return 0;
    } catch (...) {
        return -1;
    }
#endif
}

void vl_trace_dump(void *vm)
{
    ws_shim *m = S(vm);
#if VM_TRACE
    if (m->fst)
        m->fst->dump(m->context().time());
#else
    (void)m;
#endif
}

void vl_trace_close(void *vm)
{
    ws_shim *m = S(vm);
#if VM_TRACE
    if (m->fst) {
        m->fst->close();
        m->fst.reset();
    }
#else
    (void)m;
#endif
}

// the entry of that width in a table, or nullptr
const entry *find(const entry *table, unsigned data_width)
{
    for (const entry *e = table; e->make; e++)
        if (e->width == data_width)
            return e;
    return nullptr;
}

} // namespace

extern "C" {

size_t ws_shim_verilator_widths(unsigned *widths, size_t max)
{
    // the union of both tables, ascending (each table is)
    size_t n = 0;
    const entry *a = models, *b = fast_models;
    while (a->make || b->make) {
        unsigned w;
        if (!b->make || (a->make && a->width <= b->width)) {
            w = a->width;
            if (b->make && b->width == w)
                b++;
            a++;
        } else {
            w = b->width;
            b++;
        }
        if (n < max)
            widths[n] = w;
        n++;
    }
    return n;
}

int ws_shim_verilator_traced(unsigned data_width) { return find(models, data_width) != nullptr; }

void *ws_shim_verilator_new(unsigned data_width) { return ws_shim_verilator_new_model(data_width, 0); }

void *ws_shim_verilator_new_model(unsigned data_width, int untraced)
{
    // the kind asked for when the binary has it, else the other
    const entry *e = untraced ? find(fast_models, data_width) : find(models, data_width);
    if (!e)
        e = untraced ? find(models, data_width) : find(fast_models, data_width);
    if (!e)
        return nullptr;
    try {
        return e->make();
    } catch (...) { // std::bad_alloc
        return nullptr;
    }
}

const ws_shim_ops ws_shim_verilator = {
    "verilator",  vl_free,           vl_model,      vl_words,      vl_set,
    vl_get,       vl_eval,           vl_time_inc,   vl_time,       vl_time_precision,
    vl_got_finish, vl_trace_open,    vl_trace_dump, vl_trace_close,
};

} // extern "C"
