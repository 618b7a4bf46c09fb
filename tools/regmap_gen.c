/* regmap_gen.c - generate the Verilog, C and Markdown forms of the register map.
 *
 * The register map lives in driver/regmap.def (with the drop reasons of driver/wiresum/reasons.h).
 * This program checks it (alignment, overlaps, room in the address space, the counter layout)
 * and writes one of
 *   vh           hw/ws_regmap.vh          Verilog package ws_regmap of localparams, include-guarded:
 *                                         the map, the drop reason codes and the build limits
 *                                         (WS_LIMIT_* of driver/wiresum/config.h) for the RTL
 *   h            driver/wiresum/regmap.h  C #defines and the commit code enum, for the driver
 *   md           docs/registers.md        the register tables
 *   gtkw-reason  sim/wiresum_reason.txt   GTKWave translate filter: drop reason code -> name
 * Usage: regmap_gen FORMAT [FILE]          write FILE (replaced atomically), or stdout
 *        regmap_gen --check FORMAT FILE    exit 1 if FILE differs from what would be written
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "wiresum/reasons.h"
#include "wiresum/wire.h"

typedef enum { IT_CONST, IT_SECTION, IT_REG, IT_TABLE, IT_TREG, IT_BITS, IT_CODE } rm_kind;
typedef enum { RM_ACC_NONE, RM_ACC_RO, RM_ACC_RW, RM_ACC_WO, RM_ACC_C64 } rm_access;

/* One entry of regmap.def. Which fields mean something depends on the kind. */
typedef struct {
    rm_kind kind;
    const char *name;
    const char *parent; /* TREG: its table; BITS: its register */
    uint32_t value;     /* CONST value, REG/TREG offset, TABLE base, BITS lsb, CODE value */
    uint32_t aux;       /* REG reset, TABLE stride, BITS width */
    uint32_t limit;     /* TABLE: records the map has room for */
    rm_access access;   /* REG, TREG */
    const char *text;   /* SECTION title, TABLE count expression, TREG reset */
    const char *index;  /* TABLE index name; SECTION text */
    const char *desc;
} rm_item;

static const rm_item rm_items[] = {
#define WS_CONST(n, v, d) {.kind = IT_CONST, .name = #n, .value = (uint32_t)(v), .desc = d},
#define WS_SECTION(n, t, x) {.kind = IT_SECTION, .name = #n, .text = t, .index = x, .desc = ""},
#define WS_REG(n, o, a, r, d)                                                                     \
    {.kind = IT_REG, .name = #n, .value = (uint32_t)(o), .aux = (uint32_t)(r),                   \
     .access = RM_ACC_##a, .desc = d},
#define WS_TABLE(n, b, s, c, l, i, d)                                                             \
    {.kind = IT_TABLE, .name = #n, .value = (uint32_t)(b), .aux = (uint32_t)(s),                 \
     .limit = (uint32_t)(l), .text = c, .index = i, .desc = d},
#define WS_TREG(t, n, o, a, r, d)                                                                 \
    {.kind = IT_TREG, .name = #n, .parent = #t, .value = (uint32_t)(o), .access = RM_ACC_##a,    \
     .text = r, .desc = d},
#define WS_BITS(g, n, l, w, d)                                                                    \
    {.kind = IT_BITS, .name = #n, .parent = #g, .value = (uint32_t)(l), .aux = (uint32_t)(w),    \
     .desc = d},
#define WS_CODE(n, v, d) {.kind = IT_CODE, .name = #n, .value = (uint32_t)(v), .desc = d},
#include "regmap.def"
};

#define N_ITEMS (sizeof(rm_items) / sizeof(rm_items[0]))

typedef struct {
    const char *name;  /* the enum's name: BAD_IPV4 */
    const char *label; /* the short name: bad_ipv4 */
    ws_reason code;
} rm_reason;

static const rm_reason rm_reasons[] = {
#define RM_X_REASON(e, n, d) {#e, n, WS_DROP_##e},
    WS_DROP_REASONS(RM_X_REASON)
#undef RM_X_REASON
};

#define N_REASONS (sizeof(rm_reasons) / sizeof(rm_reasons[0]))

/* The ceilings of the software model (driver/wiresum/config.h), which the RTL's parameters must respect. */
static const struct {
    const char *name;
    uint32_t value;
    const char *desc;
} rm_limits[] = {
    {"PORTS", WS_LIMIT_PORTS, "N_PORTS"},
    {"JOBS", WS_LIMIT_JOBS, "MAX_JOBS"},
    {"WORKERS", WS_LIMIT_WORKERS, "MAX_WORKERS (worker bitmaps are 64-bit in software)"},
    {"SLOTS", WS_LIMIT_SLOTS, "POOL_SLOTS"},
    {"COUNT", WS_LIMIT_COUNT, "MAX_COUNT"},
    {"FRAME", WS_LIMIT_FRAME, "MAX_FRAME (bytes; the tuser length is 16 bits)"},
};

static const char *access_name(rm_access a)
{
    switch (a) {
    case RM_ACC_RO: return "RO";
    case RM_ACC_RW: return "RW";
    case RM_ACC_WO: return "WO";
    case RM_ACC_C64: return "C64";
    case RM_ACC_NONE: break;
    }
    return "?";
}

/* Bytes a register occupies. */
static uint32_t reg_size(const rm_item *it)
{
    return it->access == RM_ACC_C64 ? 8u : 4u;
}

static const rm_item *find(rm_kind kind, const char *name)
{
    for (size_t i = 0; i < N_ITEMS; i++)
        if (rm_items[i].kind == kind && strcmp(rm_items[i].name, name) == 0)
            return &rm_items[i];
    return NULL;
}

static const rm_item *find_bits(const char *reg, const char *name)
{
    for (size_t i = 0; i < N_ITEMS; i++)
        if (rm_items[i].kind == IT_BITS && strcmp(rm_items[i].parent, reg) == 0 &&
            strcmp(rm_items[i].name, name) == 0)
            return &rm_items[i];
    return NULL;
}

static uint32_t const_value(const char *name)
{
    const rm_item *c = find(IT_CONST, name);

    return c != NULL ? c->value : 0;
}

/* Start and end (exclusive) of what an item occupies at its largest extent. */
static void extent(const rm_item *it, uint64_t *lo, uint64_t *hi)
{
    if (it->kind == IT_TABLE) {
        *lo = it->value;
        *hi = (uint64_t)it->value + (uint64_t)it->aux * it->limit;
    } else {
        *lo = it->value;
        *hi = (uint64_t)it->value + reg_size(it);
    }
}

/* A constant that is an offset (named *_BASE) rather than a number. */
static bool is_address(const rm_item *it)
{
    size_t n = strlen(it->name);

    return n >= 5 && strcmp(it->name + n - 5, "_BASE") == 0;
}

static bool is_pow2(uint32_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Checks of the map: every rule an error message, all of them reported.                          */

static int check_names(void)
{
    int bad = 0;

    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *a = &rm_items[i];
        for (size_t k = 0; k < i; k++) {
            const rm_item *b = &rm_items[k];
            bool regs = (a->kind == IT_REG || a->kind == IT_TREG) &&
                        (b->kind == IT_REG || b->kind == IT_TREG);
            bool same_kind = a->kind == b->kind && a->kind != IT_BITS && a->kind != IT_TREG;
            bool fields = a->kind == IT_BITS && b->kind == IT_BITS &&
                          strcmp(a->parent, b->parent) == 0;
            if ((regs || same_kind || fields) && strcmp(a->name, b->name) == 0) {
                fprintf(stderr, "regmap: %s defined twice\n", a->name);
                bad = -1;
            }
            if (a->kind == IT_CODE && b->kind == IT_CODE && a->value == b->value) {
                fprintf(stderr, "regmap: codes %s and %s have the same value %u\n", b->name,
                        a->name, (unsigned)a->value);
                bad = -1;
            }
        }
    }
    return bad;
}

static int check_item(const rm_item *it, const rm_item *last_reg, uint64_t space)
{
    uint64_t lo, hi;

    switch (it->kind) {
    case IT_REG:
    case IT_TABLE:
        extent(it, &lo, &hi);
        if (hi > space) {
            fprintf(stderr, "regmap: %s (0x%llx..0x%llx) beyond the %llu-byte address space\n",
                    it->name, (unsigned long long)lo, (unsigned long long)hi - 1,
                    (unsigned long long)space);
            return -1;
        }
        if (it->kind == IT_REG && it->value % reg_size(it) != 0) {
            fprintf(stderr, "regmap: %s at 0x%x not aligned to %u\n", it->name,
                    (unsigned)it->value, (unsigned)reg_size(it));
            return -1;
        }
        if (it->kind == IT_TABLE && (!is_pow2(it->aux) || it->aux < 4 || it->limit == 0 ||
                                     it->value % it->aux != 0)) {
            fprintf(stderr, "regmap: table %s: stride 0x%x must be a power of two >= 4 dividing "
                    "the base 0x%x, limit %u > 0\n", it->name, (unsigned)it->aux,
                    (unsigned)it->value, (unsigned)it->limit);
            return -1;
        }
        return 0;
    case IT_TREG: {
        const rm_item *t = find(IT_TABLE, it->parent);
        if (t == NULL || t > it) {
            fprintf(stderr, "regmap: %s: table %s not defined before it\n", it->name, it->parent);
            return -1;
        }
        if (it->value % reg_size(it) != 0 || it->value + reg_size(it) > t->aux) {
            fprintf(stderr, "regmap: %s at +0x%x not aligned or beyond the record (0x%x)\n",
                    it->name, (unsigned)it->value, (unsigned)t->aux);
            return -1;
        }
        return 0;
    }
    case IT_BITS:
        if (last_reg == NULL || strcmp(last_reg->name, it->parent) != 0) {
            fprintf(stderr, "regmap: field %s.%s does not follow its register\n", it->parent,
                    it->name);
            return -1;
        }
        if (it->aux == 0 || it->value + it->aux > 32) {
            fprintf(stderr, "regmap: field %s.%s bits %u+%u outside 31:0\n", it->parent, it->name,
                    (unsigned)it->value, (unsigned)it->aux);
            return -1;
        }
        return 0;
    case IT_CONST:
    case IT_SECTION:
    case IT_CODE:
        break;
    }
    return 0;
}

/* Registers and tables never overlap, nor do the registers of a record, nor fields. */
static int check_overlaps(void)
{
    int bad = 0;

    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *a = &rm_items[i];
        for (size_t k = 0; k < i; k++) {
            const rm_item *b = &rm_items[k];
            bool clash = false;
            if ((a->kind == IT_REG || a->kind == IT_TABLE) &&
                (b->kind == IT_REG || b->kind == IT_TABLE)) {
                uint64_t alo, ahi, blo, bhi;
                extent(a, &alo, &ahi);
                extent(b, &blo, &bhi);
                clash = alo < bhi && blo < ahi;
            } else if (a->kind == IT_TREG && b->kind == IT_TREG &&
                       strcmp(a->parent, b->parent) == 0) {
                clash = a->value < b->value + reg_size(b) && b->value < a->value + reg_size(a);
            } else if (a->kind == IT_BITS && b->kind == IT_BITS &&
                       strcmp(a->parent, b->parent) == 0) {
                clash = a->value < b->value + b->aux && b->value < a->value + a->aux;
            }
            if (clash) {
                fprintf(stderr, "regmap: %s overlaps %s\n", a->name, b->name);
                bad = -1;
            }
        }
    }
    return bad;
}

/* The device counters tile CNT_DEV_BASE.. and the drop counters follow the reasons' order. */
static int check_counters(void)
{
    uint32_t base = const_value("CNT_DEV_BASE"), count = const_value("CNT_DEV_COUNT");
    uint32_t drop = const_value("CNT_DROP_BASE");
    uint32_t seen = 0;
    int bad = 0;

    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_REG || it->access != RM_ACC_C64)
            continue;
        if (it->value < base || it->value >= base + 8u * count) {
            fprintf(stderr, "regmap: counter %s outside CNT_DEV_BASE..+8*CNT_DEV_COUNT\n",
                    it->name);
            bad = -1;
        }
        seen++;
    }
    if (seen != count) {
        fprintf(stderr, "regmap: %u device counters, CNT_DEV_COUNT says %u\n", (unsigned)seen,
                (unsigned)count);
        bad = -1;
    }
    for (size_t r = 0; r < N_REASONS; r++) {
        char name[64];
        const rm_item *it;
        snprintf(name, sizeof(name), "CNT_DROP_%s", rm_reasons[r].name);
        it = find(IT_REG, name);
        if (it == NULL || it->value != drop + 8u * ((uint32_t)rm_reasons[r].code - 1u)) {
            fprintf(stderr, "regmap: %s missing or not at CNT_DROP_BASE + 8*(%d-1)\n", name,
                    (int)rm_reasons[r].code);
            bad = -1;
        }
    }
    return bad;
}

/* The map must have room for every configuration the software model accepts. */
static int check_limits(void)
{
    static const struct {
        const char *count;
        uint32_t need;
    } need[] = {{"N_PORTS", WS_LIMIT_PORTS}, {"MAX_JOBS", WS_LIMIT_JOBS}};
    int bad = 0;

    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_TABLE)
            continue;
        for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
            if (strcmp(it->text, need[k].count) == 0 && it->limit < need[k].need) {
                fprintf(stderr, "regmap: table %s has room for %u records, the software model "
                        "allows %s up to %u\n", it->name, (unsigned)it->limit, need[k].count,
                        (unsigned)need[k].need);
                bad = -1;
            }
    }
    return bad;
}

static int check_map(void)
{
    const rm_item *last_reg = NULL;
    uint32_t addr_w = const_value("ADDR_W");
    int bad = 0;
    static const char *const needed[] = {"ADDR_W", "ID_VALUE", "CNT_DEV_BASE", "CNT_DEV_COUNT",
                                         "CNT_DROP_BASE"};

    for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
        if (find(IT_CONST, needed[i]) == NULL) {
            fprintf(stderr, "regmap: constant %s missing\n", needed[i]);
            return -1;
        }
    if (addr_w < 8 || addr_w > 32) {
        fprintf(stderr, "regmap: ADDR_W %u out of range 8..32\n", (unsigned)addr_w);
        return -1;
    }
    if (find_bits("STATUS", "CODE") == NULL) {
        fprintf(stderr, "regmap: STATUS.CODE missing\n");
        return -1;
    }
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind == IT_REG || it->kind == IT_TREG)
            last_reg = it;
        else if (it->kind == IT_SECTION)
            last_reg = NULL;
        if (check_item(it, last_reg, (uint64_t)1 << addr_w))
            bad = -1;
    }
    if (check_names() || check_overlaps() || check_counters() || check_limits())
        bad = -1;
    return bad;
}

/* ---------------------------------------------------------------------------------------------- */
/* Verilog.                                                                                       */

static unsigned hex_digits(uint32_t bits)
{
    return (unsigned)((bits + 3) / 4);
}

static void vh_addr(FILE *f, const char *name, uint32_t v, uint32_t addr_w, const char *comment)
{
    fprintf(f, "localparam [%u:0] %s = %u'h%0*X;", (unsigned)addr_w - 1, name, (unsigned)addr_w,
            hex_digits(addr_w), (unsigned)v);
    if (comment != NULL && comment[0] != '\0')
        fprintf(f, " // %s", comment);
    fputc('\n', f);
}

static void emit_vh(FILE *f)
{
    uint32_t addr_w = const_value("ADDR_W");
    const rm_item *code = find_bits("STATUS", "CODE");
    unsigned reason_w = 1;
    char name[128];

    while ((1u << reason_w) < (unsigned)WS_N_REASONS)
        reason_w++;
    fprintf(f, "// ws_regmap.vh - the wiresum register map as a package of localparams.\n"
               "//\n"
               "// GENERATED by tools/regmap_gen from driver/regmap.def, driver/wiresum/reasons.h, "
               "driver/wiresum/config.h\n// and driver/wiresum/wire.h:"
               " do not edit, run `make regmap`. Documented in docs/registers.md.\n"
               "//\n"
               "// Use: `include \"ws_regmap.vh\" at the top of a file, after `resetall and before\n"
               "// `timescale, then `import ws_regmap::*;` inside the module. The localparams "
               "live in a\n"
               "// package, not in the module, so that the include guard does not hide them from "
               "the\n"
               "// second module of a compilation unit that includes this file.\n"
               "`ifndef WS_REGMAP_VH\n"
               "`define WS_REGMAP_VH\n"
               "\n"
               "`timescale 1ns / 1ps  // the project's; a package takes one like a module\n"
               "\n"
               "// A register map: every module uses the part it needs.\n"
               "/* verilator lint_off UNUSEDPARAM */\n"
               "package ws_regmap;\n\n"
               "// Constants\n");
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_CONST)
            continue;
        snprintf(name, sizeof(name), "WS_%s", it->name);
        if (strcmp(it->name, "ID_VALUE") == 0)
            fprintf(f, "localparam [31:0] %s = 32'h%08X; // %s\n", name, (unsigned)it->value,
                    it->desc);
        else if (is_address(it))
            vh_addr(f, name, it->value, addr_w, it->desc);
        else
            fprintf(f, "localparam integer %s = %u; // %s\n", name, (unsigned)it->value,
                    it->desc);
    }
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        switch (it->kind) {
        case IT_SECTION:
            fprintf(f, "\n// %s\n", it->text);
            break;
        case IT_REG:
            snprintf(name, sizeof(name), "WS_REG_%s", it->name);
            vh_addr(f, name, it->value, addr_w, access_name(it->access));
            if (it->access == RM_ACC_RW || it->access == RM_ACC_WO)
                fprintf(f, "localparam [31:0] WS_RESET_%s = 32'h%08X;\n", it->name,
                        (unsigned)it->aux);
            break;
        case IT_TABLE:
            snprintf(name, sizeof(name), "WS_TBL_%s_BASE", it->name);
            vh_addr(f, name, it->value, addr_w, it->desc);
            snprintf(name, sizeof(name), "WS_TBL_%s_STRIDE", it->name);
            vh_addr(f, name, it->aux, addr_w, NULL);
            fprintf(f, "localparam integer WS_TBL_%s_LIMIT = %u; // room for %s\n", it->name,
                    (unsigned)it->limit, it->text);
            break;
        case IT_TREG:
            snprintf(name, sizeof(name), "WS_REG_%s_OFF", it->name);
            vh_addr(f, name, it->value, addr_w, access_name(it->access));
            break;
        case IT_BITS:
            fprintf(f, "localparam integer WS_%s_%s_LSB = %u;\n", it->parent, it->name,
                    (unsigned)it->value);
            fprintf(f, "localparam integer WS_%s_%s_WIDTH = %u;\n", it->parent, it->name,
                    (unsigned)it->aux);
            break;
        case IT_CONST:
        case IT_CODE:
            break;
        }
    }
    fprintf(f, "\n// Commit results (STATUS.CODE)\n");
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind == IT_CODE)
            fprintf(f, "localparam [%u:0] WS_COMMIT_%s = %u'd%u;\n", (unsigned)code->aux - 1,
                    it->name, (unsigned)code->aux, (unsigned)it->value);
    }
    fprintf(f, "\n// Drop reasons (driver/wiresum/reasons.h): the codes of stat_drop_reason\n");
    fprintf(f, "localparam integer WS_N_DROPS = %u;\n", (unsigned)N_REASONS);
    fprintf(f, "localparam integer WS_REASON_W = %u;\n", reason_w);
    fprintf(f, "localparam [%u:0] WS_OK = %u'd%d; // no drop: ws_reason WS_OK\n", reason_w - 1,
            reason_w, (int)WS_OK);
    for (size_t r = 0; r < N_REASONS; r++)
        fprintf(f, "localparam [%u:0] WS_DROP_%s = %u'd%d;\n", reason_w - 1, rm_reasons[r].name,
                reason_w, (int)rm_reasons[r].code);
    fprintf(f, "\n// Build limits (driver/wiresum/config.h, the software model's ceilings): every RTL module\n"
               "// checks its parameters against them\n");
    for (size_t i = 0; i < sizeof(rm_limits) / sizeof(rm_limits[0]); i++)
        fprintf(f, "localparam integer WS_LIMIT_%s = %u; // %s\n", rm_limits[i].name,
                (unsigned)rm_limits[i].value, rm_limits[i].desc);
    fprintf(f, "\nendpackage\n"
               "/* verilator lint_on UNUSEDPARAM */\n"
               "\n"
               "`endif // WS_REGMAP_VH\n");
}

/* ---------------------------------------------------------------------------------------------- */
/* GTKWave translate filter of the drop reasons: one "CODE name" line per code, the code in hex as
 * GTKWave shows a 4-bit value, "0 ok" first. No comment line: the file is read as it is.         */

static void emit_gtkw_reason(FILE *f)
{
    fprintf(f, "%X ok\n", (unsigned)WS_OK);
    for (size_t r = 0; r < N_REASONS; r++)
        fprintf(f, "%X %s\n", (unsigned)rm_reasons[r].code, rm_reasons[r].label);
}

/* ---------------------------------------------------------------------------------------------- */
/* C.                                                                                             */

static void emit_h(FILE *f)
{
    unsigned digits = hex_digits(const_value("ADDR_W"));

    fprintf(f, "/* wiresum/regmap.h - the wiresum register map: offsets, fields and codes.\n"
               " *\n"
               " * GENERATED by tools/regmap_gen from driver/regmap.def and driver/wiresum/reasons.h: do "
               "not edit,\n"
               " * run `make regmap`. Documented in docs/registers.md. Byte offsets of 32-bit "
               "registers;\n"
               " * a C64 counter is LO at its offset and HI at offset + 4 (read LO first).\n"
               " */\n"
               "#ifndef WIRESUM_REGMAP_H\n"
               "#define WIRESUM_REGMAP_H\n\n"
               "#include <stdint.h>\n\n"
               "/* Constants */\n");
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_CONST)
            continue;
        if (strcmp(it->name, "ID_VALUE") == 0)
            fprintf(f, "#define WS_%s 0x%08Xu /* %s */\n", it->name, (unsigned)it->value,
                    it->desc);
        else if (is_address(it))
            fprintf(f, "#define WS_%s 0x%0*Xu /* %s */\n", it->name, (int)digits,
                    (unsigned)it->value, it->desc);
        else
            fprintf(f, "#define WS_%s %uu /* %s */\n", it->name, (unsigned)it->value, it->desc);
    }
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        switch (it->kind) {
        case IT_SECTION:
            fprintf(f, "\n/* %s */\n", it->text);
            break;
        case IT_REG:
            fprintf(f, "#define WS_REG_%s 0x%0*Xu /* %s: %s */\n", it->name, (int)digits,
                    (unsigned)it->value, access_name(it->access), it->desc);
            if (it->access == RM_ACC_RW || it->access == RM_ACC_WO)
                fprintf(f, "#define WS_RESET_%s 0x%08Xu\n", it->name, (unsigned)it->aux);
            break;
        case IT_TABLE:
            fprintf(f, "#define WS_TBL_%s_BASE 0x%0*Xu /* record i = %s < %s: %s */\n", it->name,
                    (int)digits, (unsigned)it->value, it->index, it->text, it->desc);
            fprintf(f, "#define WS_TBL_%s_STRIDE 0x%Xu\n", it->name, (unsigned)it->aux);
            fprintf(f, "#define WS_TBL_%s_LIMIT %uu /* room for %s */\n", it->name,
                    (unsigned)it->limit, it->text);
            break;
        case IT_TREG:
            fprintf(f, "#define WS_REG_%s_OFF 0x%Xu /* %s: %s */\n", it->name,
                    (unsigned)it->value, access_name(it->access), it->desc);
            fprintf(f, "#define WS_REG_%s(i) (WS_TBL_%s_BASE + WS_TBL_%s_STRIDE * (uint32_t)(i) + "
                    "WS_REG_%s_OFF)\n", it->name, it->parent, it->parent, it->name);
            break;
        case IT_BITS: {
            uint32_t mask = it->aux >= 32 ? 0xffffffffu : ((1u << it->aux) - 1u) << it->value;
            fprintf(f, "#define WS_%s_%s_LSB %uu\n", it->parent, it->name, (unsigned)it->value);
            fprintf(f, "#define WS_%s_%s_WIDTH %uu\n", it->parent, it->name, (unsigned)it->aux);
            fprintf(f, "#define WS_%s_%s_MASK 0x%08Xu\n", it->parent, it->name, (unsigned)mask);
            break;
        }
        case IT_CONST:
        case IT_CODE:
            break;
        }
    }
    fprintf(f, "\n/* Drop counter of reason r (a ws_reason other than WS_OK). */\n"
               "#define WS_REG_CNT_DROP(r) (WS_CNT_DROP_BASE + 8u * ((uint32_t)(r) - 1u))\n");
    fprintf(f, "\n/* Commit results: STATUS.CODE after a write of JOB_CTRL. */\n"
               "typedef enum {\n");
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind == IT_CODE)
            fprintf(f, "    WS_COMMIT_%s = %u, /* %s */\n", it->name, (unsigned)it->value,
                    it->desc);
    }
    fprintf(f, "} ws_commit_status;\n\n#endif\n");
}

/* ---------------------------------------------------------------------------------------------- */
/* Markdown.                                                                                      */

/* Text for a table cell: '|' escaped. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void md_addr(FILE *f, uint32_t v)
{
    fprintf(f, "0x%0*X", (int)hex_digits(const_value("ADDR_W")), (unsigned)v);
}

/* The index of a table as a factor: "p", or "(j*MAX_WORKERS + w)". */
static void md_index(FILE *f, const rm_item *table)
{
    if (strpbrk(table->index, " +-*/") != NULL)
        fprintf(f, "(%s)", table->index);
    else
        fprintf(f, "%s", table->index);
}

/* Fields of the registers of section items [from, to). */
static void md_fields(FILE *f, size_t from, size_t to)
{
    bool any = false;

    for (size_t i = from; i < to; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_BITS)
            continue;
        if (!any)
            fprintf(f, "\n| register | bits | field | description |\n|---|---|---|---|\n");
        any = true;
        fprintf(f, "| `%s` | ", it->parent);
        if (it->aux == 1)
            fprintf(f, "%u", (unsigned)it->value);
        else
            fprintf(f, "%u:%u", (unsigned)(it->value + it->aux - 1), (unsigned)it->value);
        fprintf(f, " | `%s` | ", it->name);
        md_cell(f, it->desc);
        fprintf(f, " |\n");
    }
}

static void md_codes(FILE *f, size_t from, size_t to)
{
    bool any = false;

    for (size_t i = from; i < to; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_CODE)
            continue;
        if (!any)
            fprintf(f, "\nCommit results (`STATUS.CODE`), in the order the commit checks them:\n"
                       "\n| code | name | meaning |\n|---|---|---|\n");
        any = true;
        fprintf(f, "| %u | `%s` | ", (unsigned)it->value, it->name);
        md_cell(f, it->desc);
        fprintf(f, " |\n");
    }
}

static void md_registers(FILE *f, size_t from, size_t to)
{
    const rm_item *table = NULL;
    bool head = false;

    for (size_t i = from; i < to; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind == IT_TABLE) {
            table = it;
            fprintf(f, "\nRecords `%s` = 0 .. %s-1 (%s), at `", it->index, it->text, it->desc);
            md_addr(f, it->value);
            fprintf(f, " + 0x%X*", (unsigned)it->aux);
            md_index(f, it);
            fprintf(f, "`; the map has room for %u records (up to `", (unsigned)it->limit);
            md_addr(f, it->value + it->aux * it->limit - 1);
            fprintf(f, "`).\n");
            head = false;
            continue;
        }
        if (it->kind != IT_REG && it->kind != IT_TREG)
            continue;
        if (!head)
            fprintf(f, "\n| offset | name | access | reset | description |\n"
                       "|---|---|---|---|---|\n");
        head = true;
        fprintf(f, "| `");
        if (it->kind == IT_REG) {
            md_addr(f, it->value);
            fprintf(f, "` | `%s` | %s | ", it->name, access_name(it->access));
            if (it->access == RM_ACC_RW || it->access == RM_ACC_WO)
                fprintf(f, "`0x%08X`", (unsigned)it->aux);
            else if (it->access == RM_ACC_C64)
                fprintf(f, "0");
            else
                fprintf(f, "-");
        } else {
            md_addr(f, table->value);
            fprintf(f, " + 0x%X*", (unsigned)table->aux);
            md_index(f, table);
            fprintf(f, " + 0x%02X` | `%s[%s]` | %s | ", (unsigned)it->value, it->name,
                    table->index, access_name(it->access));
            md_cell(f, it->text);
        }
        fprintf(f, " | ");
        md_cell(f, it->desc);
        fprintf(f, " |\n");
    }
}

/* Lowest and highest address a section's registers and tables may use. */
static bool section_span(size_t from, size_t to, uint64_t *lo, uint64_t *hi)
{
    bool any = false;

    for (size_t i = from; i < to; i++) {
        uint64_t a, b;
        if (rm_items[i].kind != IT_REG && rm_items[i].kind != IT_TABLE)
            continue;
        extent(&rm_items[i], &a, &b);
        if (!any || a < *lo)
            *lo = a;
        if (!any || b > *hi)
            *hi = b;
        any = true;
    }
    return any;
}

static size_t section_end(size_t i)
{
    for (i++; i < N_ITEMS; i++)
        if (rm_items[i].kind == IT_SECTION)
            break;
    return i;
}

/* One line per section, in address order. */
static void md_overview(FILE *f)
{
    uint64_t done = 0; /* sections below this address are printed */

    for (;;) {
        size_t best = N_ITEMS;
        uint64_t best_lo = 0, best_hi = 0;
        for (size_t i = 0; i < N_ITEMS; i++) {
            uint64_t lo = 0, hi = 0;
            if (rm_items[i].kind != IT_SECTION || !section_span(i + 1, section_end(i), &lo, &hi))
                continue;
            if (lo >= done && (best == N_ITEMS || lo < best_lo)) {
                best = i;
                best_lo = lo;
                best_hi = hi;
            }
        }
        if (best == N_ITEMS)
            return;
        fprintf(f, "| `");
        md_addr(f, (uint32_t)best_lo);
        fprintf(f, "`..`");
        md_addr(f, (uint32_t)(best_hi - 1));
        fprintf(f, "` | %s |\n", rm_items[best].text);
        done = best_lo + 1;
    }
}

static void emit_md(FILE *f)
{
    fprintf(f, "# wiresum registers\n\n"
               "<!-- GENERATED by tools/regmap_gen from driver/regmap.def and driver/wiresum/reasons.h: "
               "do not edit, run `make regmap`. -->\n\n"
               "Generated from `driver/regmap.def`, the one source of the register map (the drop "
               "counters from\n`driver/wiresum/reasons.h`), by `tools/regmap_gen`, which also writes "
               "`hw/ws_regmap.vh` for the RTL\n(`hw/ws_regs.v`) and `driver/wiresum/regmap.h` for the "
               "driver. Edit the `.def` and run `make regmap`.\n\n"
               "AXI4-Lite, %u-bit byte addresses, 32-bit registers. Access:\n\n"
               "- **RO** read-only; a write answers SLVERR and changes nothing.\n"
               "- **RW** read/write. Write strobes are honoured byte by byte.\n"
               "- **WO** write-only; a read returns 0.\n"
               "- **C64** 64-bit counter, read-only: LO at the offset, HI at offset + 4. "
               "Reading LO latches HI,\n  and the next read of that HI returns the latched word: "
               "LO then HI is a consistent pair\n  while the counter runs (HI without LO first "
               "returns the live word).\n\n"
               "An address no register covers (table records beyond the build's count included) "
               "reads 0 and\nanswers SLVERR, and a write to it answers SLVERR. In a register "
               "with fields, other bits read 0.\n",
            (unsigned)const_value("ADDR_W"));
    fprintf(f, "\n## Address map\n\nAt the largest sizes the map has room for.\n\n"
               "| range | section |\n|---|---|\n");
    md_overview(f);
    fprintf(f, "\n## Constants\n\n| name | value | description |\n|---|---|---|\n");
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        if (it->kind != IT_CONST)
            continue;
        if (is_address(it) || strcmp(it->name, "ID_VALUE") == 0)
            fprintf(f, "| `%s` | `0x%X` | ", it->name, (unsigned)it->value);
        else
            fprintf(f, "| `%s` | %u | ", it->name, (unsigned)it->value);
        md_cell(f, it->desc);
        fprintf(f, " |\n");
    }
    for (size_t i = 0; i < N_ITEMS; i++) {
        const rm_item *it = &rm_items[i];
        size_t end;
        if (it->kind != IT_SECTION)
            continue;
        end = section_end(i);
        fprintf(f, "\n## %s\n", it->text);
        if (it->index[0] != '\0')
            fprintf(f, "\n%s\n", it->index);
        md_registers(f, i + 1, end);
        md_fields(f, i + 1, end);
        md_codes(f, i + 1, end);
    }
}

/* ---------------------------------------------------------------------------------------------- */

static int usage(FILE *f)
{
    fprintf(f, "usage: regmap_gen FORMAT [FILE]\n"
               "       regmap_gen --check FORMAT FILE\n"
               "FORMAT: vh (hw/ws_regmap.vh), h (driver/wiresum/regmap.h), md (docs/registers.md),\n"
               "        gtkw-reason (sim/wiresum_reason.txt).\n"
               "Writes FILE (or stdout); --check exits 1 when FILE is not what would be "
               "written.\n");
    return 2;
}

/* Read a whole file; NULL with errno set on failure. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        errno = EIO;
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int write_file(const char *path, const char *text, size_t len)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    FILE *f;
    int rc = -1;

    if (tmp == NULL)
        return -1;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (f != NULL) {
        bool ok = fwrite(text, 1, len, f) == len;
        if (fclose(f) == 0 && ok && rename(tmp, path) == 0)
            rc = 0;
        else
            remove(tmp);
    }
    if (rc != 0)
        fprintf(stderr, "regmap_gen: %s: %s\n", path, strerror(errno));
    free(tmp);
    return rc;
}

int main(int argc, char **argv)
{
    bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
    int a = check ? 2 : 1;
    const char *fmt, *path;
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    int rc = 0;

    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc - a < 1 || argc - a > 2 || (check && argc - a != 2))
        return usage(stderr);
    fmt = argv[a];
    path = argc - a == 2 ? argv[a + 1] : NULL;
    if (strcmp(fmt, "vh") != 0 && strcmp(fmt, "h") != 0 && strcmp(fmt, "md") != 0 &&
        strcmp(fmt, "gtkw-reason") != 0)
        return usage(stderr);
    if (check_map() != 0) {
        fprintf(stderr, "regmap_gen: driver/regmap.def is inconsistent, nothing written\n");
        return 1;
    }
    mem = open_memstream(&text, &len);
    if (mem == NULL) {
        perror("regmap_gen");
        return 1;
    }
    if (strcmp(fmt, "vh") == 0)
        emit_vh(mem);
    else if (strcmp(fmt, "h") == 0)
        emit_h(mem);
    else if (strcmp(fmt, "md") == 0)
        emit_md(mem);
    else
        emit_gtkw_reason(mem);
    if (fclose(mem) != 0) {
        perror("regmap_gen");
        free(text);
        return 1;
    }
    if (check) {
        size_t old_len = 0;
        char *old = slurp(path, &old_len);
        if (old == NULL || old_len != len || memcmp(old, text, len) != 0) {
            fprintf(stderr, "regmap_gen: %s is not up to date with driver/regmap.def: run "
                    "`make regmap`\n", path);
            rc = 1;
        }
        free(old);
    } else if (path != NULL) {
        rc = write_file(path, text, len) != 0;
    } else {
        rc = fwrite(text, 1, len, stdout) != len;
    }
    free(text);
    return rc;
}
