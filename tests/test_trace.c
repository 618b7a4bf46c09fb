/* test_trace.c - cmocka tests of trace/trace.c: merge order, precision, errors, sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

#define ERRLEN 1024

typedef struct {
    char dir[64];
    char err[ERRLEN];
    char path[256];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_trace.XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    DIR *dp = opendir(f->dir);
    if (dp) {
        struct dirent *de;
        while ((de = readdir(dp)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", f->dir, de->d_name);
            unlink(p);
        }
        closedir(dp);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static void rename_in(fx *f, const char *from, const char *to)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/%s", f->dir, from);
    snprintf(b, sizeof b, "%s/%s", f->dir, to);
    assert_int_equal(rename(a, b), 0);
}

static const char *fpath(fx *f, const char *name)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    return f->path;
}

/* Deterministic frame bytes for (port, index, len). */
static void fill_frame(uint8_t *b, size_t len, unsigned port, uint64_t index)
{
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)(port * 31u + index * 7u + i);
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (len)
        assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* Writes a pcap with any link type / snaplen; hdr lengths given per frame. */
typedef struct {
    uint32_t caplen, len;
} rawfr;

static void write_raw_pcap(const char *path, int dlt, int snaplen, const rawfr *fr, size_t n)
{
    pcap_t *dead = pcap_open_dead(dlt, snaplen);
    assert_non_null(dead);
    pcap_dumper_t *d = pcap_dump_open(dead, path);
    assert_non_null(d);
    static uint8_t buf[262145];
    for (size_t i = 0; i < n; i++) {
        struct pcap_pkthdr h;
        memset(&h, 0, sizeof h);
        h.ts.tv_sec = 1;
        h.ts.tv_usec = (suseconds_t)i;
        h.caplen = fr[i].caplen;
        h.len = fr[i].len;
        fill_frame(buf, fr[i].caplen, 0, i + 1);
        pcap_dump((u_char *)d, &h, buf);
    }
    pcap_dump_close(d);
    pcap_close(dead);
}

/* ------------------------------------------------------------------------ */

typedef struct {
    unsigned port;
    uint64_t index, ts;
    size_t len;
} expect;

static void test_global_order(void **state)
{
    fx *f = *state;
    /* port 0: 100 200 200 500; port 1: 50 200 300; port 2: 400 150 600 (goes backwards) */
    static const struct { unsigned port; uint64_t ts; } wr[] = {
        {2, 400}, {0, 100}, {1, 50}, {0, 200}, {2, 150}, {1, 200},
        {0, 200}, {1, 300}, {0, 500}, {2, 600},
    };
    ws_trace_out *o = ws_trace_create(f->dir, "in", 3, 1, f->err, ERRLEN);
    assert_non_null(o);
    uint64_t cnt[3] = {0, 0, 0};
    uint8_t buf[128];
    for (size_t i = 0; i < sizeof wr / sizeof wr[0]; i++) {
        uint64_t idx = ++cnt[wr[i].port];
        size_t len = 14 + (size_t)wr[i].port * 10 + (size_t)idx;
        fill_frame(buf, len, wr[i].port, idx);
        assert_int_equal(ws_trace_write(o, wr[i].port, wr[i].ts, buf, len, f->err, ERRLEN), 0);
    }
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);

    static const expect ex[] = {
        {1, 1, 50, 0}, {0, 1, 100, 0}, {0, 2, 200, 0}, {0, 3, 200, 0}, {1, 2, 200, 0},
        {1, 3, 300, 0}, {2, 1, 400, 0}, {2, 2, 150, 0}, {0, 4, 500, 0}, {2, 3, 600, 0},
    };
    ws_trace_in *t = ws_trace_open(f->dir, "in", 3, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
        assert_int_equal(pk.port, ex[i].port);
        assert_int_equal(pk.index, ex[i].index);
        assert_int_equal(pk.ts_ns, ex[i].ts);
        size_t len = 14 + (size_t)ex[i].port * 10 + (size_t)ex[i].index;
        assert_int_equal(pk.len, len);
        fill_frame(buf, len, ex[i].port, ex[i].index);
        assert_memory_equal(pk.data, buf, len);
    }
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

static uint32_t file_magic(const char *path)
{
    uint32_t m = 0;
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(&m, sizeof m, 1, fp), 1);
    fclose(fp);
    return m;
}

static void test_precision(void **state)
{
    fx *f = *state;
    const uint64_t ts[3] = {UINT64_C(1234567891234), UINT64_C(999), UINT64_C(4294967295999999999)};
    uint8_t fr[60];
    fill_frame(fr, sizeof fr, 0, 1);
    for (int nano = 0; nano <= 1; nano++) {
        const char *prefix = nano ? "n" : "u";
        ws_trace_out *o = ws_trace_create(f->dir, prefix, 1, nano, f->err, ERRLEN);
        assert_non_null(o);
        for (int i = 0; i < 3; i++)
            assert_int_equal(ws_trace_write(o, 0, ts[i], fr, sizeof fr, f->err, ERRLEN), 0);
        /* beyond 32-bit seconds: refused */
        assert_int_equal(ws_trace_write(o, 0, UINT64_C(4294967296000000000), fr, sizeof fr, f->err, ERRLEN), -1);
        assert_non_null(strstr(f->err, "timestamp"));
        assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);
        assert_int_equal(file_magic(fpath(f, nano ? "n0.pcap" : "u0.pcap")), nano ? 0xa1b23c4du : 0xa1b2c3d4u);

        ws_trace_in *t = ws_trace_open(f->dir, prefix, 1, 1, f->err, ERRLEN);
        assert_non_null(t);
        ws_pkt pk;
        for (int i = 0; i < 3; i++) {
            assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
            assert_int_equal(pk.ts_ns, nano ? ts[i] : ts[i] / 1000 * 1000);
            assert_int_equal(pk.len, sizeof fr);
            assert_memory_equal(pk.data, fr, sizeof fr);
        }
        assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
        ws_trace_close(t);
    }
}

static void test_missing_port(void **state)
{
    fx *f = *state;
    uint8_t fr[64];
    ws_trace_out *o = ws_trace_create(f->dir, "in", 3, 0, f->err, ERRLEN);
    assert_non_null(o);
    fill_frame(fr, sizeof fr, 0, 1);
    assert_int_equal(ws_trace_write(o, 0, 2000, fr, sizeof fr, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_write(o, 1, 1000, fr, sizeof fr, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_write(o, 2, 3000, fr, sizeof fr, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);
    assert_int_equal(unlink(fpath(f, "in1.pcap")), 0);

    ws_trace_in *t = ws_trace_open(f->dir, "in", 3, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.port, 0);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.port, 2);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);

    /* another prefix: no files at all */
    t = ws_trace_open(f->dir, "out", 3, 0, f->err, ERRLEN);
    assert_non_null(t);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

static void test_require_any_empty(void **state)
{
    fx *f = *state;
    ws_trace_in *t = ws_trace_open(f->dir, "in", 4, 0, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);

    f->err[0] = '\0';
    assert_null(ws_trace_open(f->dir, "in", 4, 1, f->err, ERRLEN));
    char want[256];
    snprintf(want, sizeof want, "%s: no inP.pcap files", f->dir);
    assert_string_equal(f->err, want);
}

static void test_extra_port_file(void **state)
{
    fx *f = *state;
    ws_trace_out *o = ws_trace_create(f->dir, "in", 3, 0, f->err, ERRLEN);
    assert_non_null(o);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);

    assert_null(ws_trace_open(f->dir, "in", 1, 0, f->err, ERRLEN));
    char want[256];
    snprintf(want, sizeof want, "%s/in1.pcap: port 1 but the device has 1 port", f->dir);
    assert_string_equal(f->err, want);

    assert_null(ws_trace_open(f->dir, "in", 2, 0, f->err, ERRLEN));
    snprintf(want, sizeof want, "%s/in2.pcap: port 2 but the device has 2 ports", f->dir);
    assert_string_equal(f->err, want);

    /* a trailing slash on DIR gives the same path */
    char dir2[80];
    snprintf(dir2, sizeof dir2, "%s/", f->dir);
    assert_null(ws_trace_open(dir2, "in", 2, 0, f->err, ERRLEN));
    assert_string_equal(f->err, want);

    ws_trace_in *t = ws_trace_open(f->dir, "in", 3, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_trace_close(t);

    /* a huge port number does not overflow into a small one */
    write_file(fpath(f, "in18446744073709551617.pcap"), (const uint8_t *)"x", 1);
    assert_null(ws_trace_open(f->dir, "in", 3, 0, f->err, ERRLEN));
    assert_non_null(strstr(f->err, "in18446744073709551617.pcap: port number too large"));
}

static void test_prefix_edges(void **state)
{
    fx *f = *state;
    static const char *ignored[] = {"inx.pcap", "in01a.pcap", "in.pcap", "in0.pcapx", "in5.pcap.bak",
                                    "in-1.pcap", "in 2.pcap", "other9.pcap", "xin7.pcap", "in3.PCAP"};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        write_file(fpath(f, ignored[i]), (const uint8_t *)"not a pcap at all, just text", 28);
    ws_trace_out *o = ws_trace_create(f->dir, "in", 1, 0, f->err, ERRLEN);
    assert_non_null(o);
    uint8_t fr[64] = {0};
    assert_int_equal(ws_trace_write(o, 0, 5000, fr, sizeof fr, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);

    ws_trace_in *t = ws_trace_open(f->dir, "in", 1, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.ts_ns, 5000);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);

    /* a prefix that itself ends in digits: "in1" sees in10.pcap as port 0 */
    rename_in(f, "in0.pcap", "in10.pcap");
    t = ws_trace_open(f->dir, "in1", 1, 1, f->err, ERRLEN);
    assert_non_null(t);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.port, 0);
    ws_trace_close(t);
    /* ... while "in" sees it as port 10 */
    assert_null(ws_trace_open(f->dir, "in", 4, 0, f->err, ERRLEN));
    assert_non_null(strstr(f->err, "in10.pcap: port 10 but the device has 4 ports"));

    /* a leading zero would silently never be read: an error */
    rename_in(f, "in10.pcap", "in01.pcap");
    assert_null(ws_trace_open(f->dir, "in", 4, 0, f->err, ERRLEN));
    assert_non_null(strstr(f->err, "in01.pcap: port number with a leading zero (expected in1.pcap)"));
}

static void test_not_a_dir(void **state)
{
    fx *f = *state;
    write_file(fpath(f, "plain"), (const uint8_t *)"x", 1);
    char p[256];
    snprintf(p, sizeof p, "%s", f->path);
    assert_null(ws_trace_open(p, "in", 1, 0, f->err, ERRLEN));
    assert_non_null(strstr(f->err, p));
    assert_non_null(strstr(f->err, "Not a directory"));

    snprintf(p, sizeof p, "%s/nonexistent", f->dir);
    assert_null(ws_trace_open(p, "in", 1, 0, f->err, ERRLEN));
    assert_non_null(strstr(f->err, p));
    assert_non_null(strstr(f->err, "No such file or directory"));

    /* creating into a missing directory names the file */
    assert_null(ws_trace_create(p, "out", 2, 0, f->err, ERRLEN));
    snprintf(p, sizeof p, "%s/nonexistent/out0.pcap", f->dir);
    assert_non_null(strstr(f->err, p));
}

static void test_wrong_linktype(void **state)
{
    fx *f = *state;
    const rawfr fr[1] = {{20, 20}};
    write_raw_pcap(fpath(f, "in0.pcap"), DLT_RAW, 65535, fr, 1);
    assert_null(ws_trace_open(f->dir, "in", 1, 0, f->err, ERRLEN));
    char want[256];
    snprintf(want, sizeof want, "%s/in0.pcap: link type RAW is not Ethernet (DLT_EN10MB)", f->dir);
    assert_string_equal(f->err, want);
}

static void test_truncated_capture(void **state)
{
    fx *f = *state;
    const rawfr fr[3] = {{60, 60}, {60, 100}, {60, 60}};
    write_raw_pcap(fpath(f, "in0.pcap"), DLT_EN10MB, 60, fr, 3);
    ws_trace_in *t = ws_trace_open(f->dir, "in", 1, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.len, 60);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), -1);
    char want[256];
    snprintf(want, sizeof want, "%s/in0.pcap: frame 2: captured 60 of 100 bytes (truncated capture)", f->dir);
    assert_string_equal(f->err, want);
    /* the error sticks */
    f->err[0] = '\0';
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), -1);
    assert_string_equal(f->err, want);
    ws_trace_close(t);
}

static void test_oversize_frame(void **state)
{
    fx *f = *state;
    /* above 64 KiB, as captures with segmentation offload hold them: read (the device's
     * ports drop what is longer than their max_frame); above libpcap's limit: an error */
    const rawfr fr[2] = {{70000, 70000}, {262145, 262145}};
    write_raw_pcap(fpath(f, "in0.pcap"), DLT_EN10MB, 262144, fr, 2);
    ws_trace_in *t = ws_trace_open(f->dir, "in", 1, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.len, 70000);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), -1);
    char want[256];
    snprintf(want, sizeof want, "%s/in0.pcap: frame 2: ", f->dir);
    assert_int_equal(strncmp(f->err, want, strlen(want)), 0);
    ws_trace_close(t);
}

static void test_garbage_file(void **state)
{
    fx *f = *state;
    static const char *content[] = {"this is definitely not a pcap file, only some text", "ab", ""};
    for (size_t i = 0; i < 3; i++) {
        write_file(fpath(f, "in1.pcap"), (const uint8_t *)content[i], strlen(content[i]));
        f->err[0] = '\0';
        assert_null(ws_trace_open(f->dir, "in", 2, 0, f->err, ERRLEN));
        char want[256];
        snprintf(want, sizeof want, "%s/in1.pcap: ", f->dir);
        assert_int_equal(strncmp(f->err, want, strlen(want)), 0);
        assert_true(strlen(f->err) > strlen(want));
    }
}

static void test_cut_record(void **state)
{
    fx *f = *state;
    /* 24-byte file header, then 16 + 100 bytes per frame */
    const off_t cut[3] = {24 + 116 + 50, 24 + 116 + 7, 24 + 116 + 116 + 115};
    const uint64_t bad[3] = {2, 2, 3};
    uint8_t fr[100];
    for (int c = 0; c < 3; c++) {
        ws_trace_out *o = ws_trace_create(f->dir, "in", 1, 1, f->err, ERRLEN);
        assert_non_null(o);
        for (int i = 0; i < 3; i++) {
            fill_frame(fr, sizeof fr, 0, (uint64_t)i + 1);
            assert_int_equal(ws_trace_write(o, 0, 1000 * ((uint64_t)i + 1), fr, sizeof fr, f->err, ERRLEN), 0);
        }
        assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);
        struct stat st;
        assert_int_equal(stat(fpath(f, "in0.pcap"), &st), 0);
        assert_int_equal(st.st_size, 24 + 3 * 116);
        assert_int_equal(truncate(f->path, cut[c]), 0);

        ws_trace_in *t = ws_trace_open(f->dir, "in", 1, 1, f->err, ERRLEN);
        assert_non_null(t);
        ws_pkt pk;
        for (uint64_t i = 1; i < bad[c]; i++) {
            assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
            assert_int_equal(pk.index, i);
        }
        assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), -1);
        char want[256];
        snprintf(want, sizeof want, "%s/in0.pcap: frame %u: ", f->dir, (unsigned)bad[c]);
        assert_int_equal(strncmp(f->err, want, strlen(want)), 0);
        ws_trace_close(t);
    }
}

static void test_sizes(void **state)
{
    fx *f = *state;
    static uint8_t big[WS_MAX_FRAME + 1];
    const size_t lens[4] = {0, 9000, 1, WS_MAX_FRAME};
    ws_trace_out *o = ws_trace_create(f->dir, "in", 2, 1, f->err, ERRLEN);
    assert_non_null(o);
    for (int i = 0; i < 4; i++) {
        fill_frame(big, lens[i], (unsigned)i % 2, (uint64_t)i);
        assert_int_equal(ws_trace_write(o, (unsigned)i % 2, (uint64_t)i * 10, lens[i] ? big : NULL, lens[i],
                                        f->err, ERRLEN), 0);
    }
    /* refused without harm: too long, bad port, NULL data with a length */
    assert_int_equal(ws_trace_write(o, 0, 100, big, WS_MAX_FRAME + 1, f->err, ERRLEN), -1);
    assert_non_null(strstr(f->err, "in0.pcap: frame 3: length 262145 above 262144"));
    assert_int_equal(ws_trace_write(o, 2, 100, big, 10, f->err, ERRLEN), -1);
    assert_non_null(strstr(f->err, "port 2"));
    assert_int_equal(ws_trace_write(o, 1, 100, NULL, 10, f->err, ERRLEN), -1);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);

    ws_trace_in *t = ws_trace_open(f->dir, "in", 2, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
        assert_int_equal(pk.port, (unsigned)i % 2);
        assert_int_equal(pk.index, (uint64_t)i / 2 + 1);
        assert_int_equal(pk.ts_ns, (uint64_t)i * 10);
        assert_int_equal(pk.len, lens[i]);
        assert_non_null(pk.data);
        fill_frame(big, lens[i], (unsigned)i % 2, (uint64_t)i);
        if (lens[i])
            assert_memory_equal(pk.data, big, lens[i]);
    }
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

static void test_write_error(void **state)
{
    fx *f = *state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    assert_int_equal(symlink("/dev/full", fpath(f, "out1.pcap")), 0);
    ws_trace_out *o = ws_trace_create(f->dir, "out", 2, 0, f->err, ERRLEN);
    if (!o) { /* the header write may already fail */
        assert_non_null(strstr(f->err, "out1.pcap"));
        return;
    }
    static uint8_t fr[9000];
    int rc = 0;
    for (int i = 0; i < 64 && rc == 0; i++)
        rc = ws_trace_write(o, 1, (uint64_t)i, fr, sizeof fr, f->err, ERRLEN);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(f->err, "out1.pcap"));
    /* later writes, even to a healthy port, and finish report it too */
    assert_int_equal(ws_trace_write(o, 0, 1, fr, 10, f->err, ERRLEN), -1);
    f->err[0] = '\0';
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), -1);
    assert_non_null(strstr(f->err, "out1.pcap"));

    /* an error found only at the final flush */
    assert_int_equal(unlink(fpath(f, "out1.pcap")), 0);
    assert_int_equal(unlink(fpath(f, "out0.pcap")), 0);
    assert_int_equal(symlink("/dev/full", fpath(f, "out0.pcap")), 0);
    o = ws_trace_create(f->dir, "out", 2, 1, f->err, ERRLEN);
    assert_non_null(o);
    assert_int_equal(ws_trace_write(o, 0, 1, fr, 10, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_write(o, 1, 1, fr, 10, f->err, ERRLEN), 0);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), -1);
    assert_non_null(strstr(f->err, "out0.pcap: write failed"));
    /* out1.pcap was still closed and complete */
    ws_trace_in *t = ws_trace_open(f->dir, "out", 2, 1, f->err, ERRLEN);
    assert_null(t); /* out0.pcap (/dev/full) reads as empty: not a pcap */
    assert_non_null(strstr(f->err, "out0.pcap"));
    assert_int_equal(unlink(fpath(f, "out0.pcap")), 0);
    t = ws_trace_open(f->dir, "out", 2, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.port, 1);
    assert_int_equal(pk.len, 10);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A hand-made big-endian microsecond pcap, seconds above 2^31. */
static void test_foreign_file(void **state)
{
    fx *f = *state;
    uint8_t b[24 + 16 + 14];
    memset(b, 0, sizeof b);
    put_be32(b, 0xa1b2c3d4u);
    b[4] = 0, b[5] = 2, b[6] = 0, b[7] = 4; /* version 2.4 */
    put_be32(b + 16, 65535);
    put_be32(b + 20, 1); /* LINKTYPE_ETHERNET */
    put_be32(b + 24, 0x80000005u);
    put_be32(b + 28, 123456);
    put_be32(b + 32, 14);
    put_be32(b + 36, 14);
    for (int i = 0; i < 14; i++)
        b[40 + i] = (uint8_t)(0xa0 + i);
    write_file(fpath(f, "in0.pcap"), b, sizeof b);
    ws_trace_in *t = ws_trace_open(f->dir, "in", 1, 1, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 1);
    assert_int_equal(pk.ts_ns, UINT64_C(0x80000005) * 1000000000u + 123456000u);
    assert_int_equal(pk.len, 14);
    assert_memory_equal(pk.data, b + 40, 14);
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

static void test_null_handles(void **state)
{
    (void)state;
    char err[64] = "";
    assert_int_equal(ws_trace_finish(NULL, err, sizeof err), 0);
    ws_trace_close(NULL);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(NULL, &pk, err, sizeof err), -1);
    assert_int_equal(ws_trace_write(NULL, 0, 0, NULL, 0, NULL, 0), -1);
    assert_null(ws_trace_open(NULL, "in", 1, 0, NULL, 0));
}

static void test_zero_ports(void **state)
{
    fx *f = *state;
    ws_trace_out *o = ws_trace_create(f->dir, "in", 0, 0, f->err, ERRLEN);
    assert_non_null(o);
    assert_int_equal(ws_trace_write(o, 0, 0, NULL, 0, f->err, ERRLEN), -1);
    assert_int_equal(ws_trace_finish(o, f->err, ERRLEN), 0);
    ws_trace_in *t = ws_trace_open(f->dir, "in", 0, 0, f->err, ERRLEN);
    assert_non_null(t);
    ws_pkt pk;
    assert_int_equal(ws_trace_next(t, &pk, f->err, ERRLEN), 0);
    ws_trace_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_global_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_precision, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_port, setup, teardown),
        cmocka_unit_test_setup_teardown(test_require_any_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extra_port_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prefix_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_linktype, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_capture, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversize_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_file, setup, teardown),
        cmocka_unit_test(test_null_handles),
        cmocka_unit_test_setup_teardown(test_zero_ports, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
