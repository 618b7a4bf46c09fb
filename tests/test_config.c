/* test_config.c - unit tests of driver/config.c: job.ini parsing, checks, writing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wiresum/config.h"

/* Lines 1-5: a valid [device] section. */
#define DEV                                                                                        \
    "[device]\n"                                                                                   \
    "mac = 02:00:00:00:00:fe\n"                                                                    \
    "ip = 10.0.0.254\n"                                                                            \
    "udp_port = 48900\n"                                                                           \
    "bypass = 1 0 3 2          ; bypass egress port for ingress ports 0..N-1\n"

/* Lines 6-10 (after DEV): a valid two-worker job 7. */
#define JOB7                                                                                       \
    "[job 7]\n"                                                                                    \
    "workers = 2\n"                                                                                \
    "slots = 16\n"                                                                                 \
    "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n"                                               \
    "member1 = 02:00:00:00:01:01 10.0.1.1 40000 1\n"

/* The example of the spec, with the members its four workers need. */
static const char example[] = "[device]\n"
                              "mac = 02:00:00:00:00:fe\n"
                              "ip = 10.0.0.254\n"
                              "udp_port = 48900\n"
                              "bypass = 1 0 3 2          ; bypass egress port for ingress ports\n"
                              "\n"
                              "[job 7]\n"
                              "workers = 4\n"
                              "slots = 16\n"
                              "max_count = 256\n"
                              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0   ; MAC IP UDP dev\n"
                              "member1 = 02:00:00:00:01:01 10.0.1.1 40000 1\n"
                              "member2 = 02:00:00:00:01:02 10.0.1.2 40000 2\n"
                              "member3 = 02:00:00:00:01:03 10.0.1.3 40001 3\n";

static ws_config *new_cfg(void)
{
    ws_config *cfg = malloc(sizeof(*cfg));
    assert_non_null(cfg);
    return cfg;
}

/* Parse text as "t.ini", expect a rejection whose message holds where and why. */
static void rejects(const char *text, const char *where, const char *why)
{
    ws_config *cfg = new_cfg();
    char err[256] = "";

    if (ws_config_parse_string(cfg, text, "t.ini", err, sizeof(err)) != -1)
        fail_msg("accepted, expected \"%s ... %s\"", where, why);
    if (strstr(err, where) == NULL || strstr(err, why) == NULL)
        fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err, where, why);
    free(cfg);
}

static void accepts(const char *text, ws_config *cfg)
{
    char err[256] = "";

    if (ws_config_parse_string(cfg, text, "t.ini", err, sizeof(err)) != 0)
        fail_msg("rejected: %s", err);
}

static void test_example_parses(void **state)
{
    ws_config *cfg = new_cfg();
    const ws_job *job;
    static const uint8_t dev_mac[6] = {2, 0, 0, 0, 0, 0xfe};
    static const uint8_t m3[6] = {2, 0, 0, 0, 1, 3};

    (void)state;
    accepts(example, cfg);
    assert_memory_equal(cfg->mac, dev_mac, 6);
    assert_int_equal(cfg->ip, 0x0a0000fe);
    assert_int_equal(cfg->udp_port, 48900);
    assert_int_equal(cfg->n_ports, 4);
    assert_int_equal(cfg->bypass[0], 1);
    assert_int_equal(cfg->bypass[1], 0);
    assert_int_equal(cfg->bypass[2], 3);
    assert_int_equal(cfg->bypass[3], 2);
    assert_int_equal(cfg->max_jobs, WS_DEFAULT_MAX_JOBS);
    assert_int_equal(cfg->max_workers, WS_DEFAULT_MAX_WORKERS);
    assert_int_equal(cfg->pool_slots, WS_DEFAULT_POOL_SLOTS);
    assert_int_equal(cfg->max_count, WS_DEFAULT_MAX_COUNT);
    assert_int_equal(cfg->n_jobs, 1);
    job = ws_config_find_job(cfg, 7);
    assert_ptr_equal(job, &cfg->job[0]);
    assert_null(ws_config_find_job(cfg, 8));
    assert_true(job->enable);
    assert_int_equal(job->workers, 4);
    assert_int_equal(job->slots, 16);
    assert_int_equal(job->slot_base, 0);
    assert_int_equal(job->max_count, 256);
    assert_memory_equal(job->member[3].mac, m3, 6);
    assert_int_equal(job->member[3].ip, 0x0a000103);
    assert_int_equal(job->member[3].udp_port, 40001);
    assert_int_equal(job->member[3].port, 3);
    assert_int_equal(job->member[0].port, 0);
    assert_int_equal(ws_config_check(cfg, NULL, 0), 0);
    free(cfg);
}

static void test_example_rank_gap(void **state)
{
    (void)state;
    rejects("[device]\n"
                 "mac = 02:00:00:00:00:fe\n"
                 "ip = 10.0.0.254\n"
                 "udp_port = 48900\n"
                 "bypass = 1 0 3 2          ; bypass egress port for ingress ports 0..N-1\n"
                 "\n"
                 "[job 7]\n"
                 "workers = 4\n"
                 "slots = 16\n"
                 "max_count = 256\n"
                 "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0   ; MAC IP UDP-port device-port\n"
                 "member1 = 02:00:00:00:01:01 10.0.1.1 40000 1\n",
                 "t.ini:7: ", "job 7: member2 missing (ranks 0..3 required)");
}

static void test_defaults_and_order(void **state)
{
    ws_config *cfg = new_cfg();

    (void)state;
    /* jobs before [device]; slot_base follows file order; max_count from the device */
    accepts("# jobs first\n"
              "[job 0x10]\n"
              "workers = 1\n"
              "slots = 4\n"
              "enable = 0\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n"
              "[job 3]\n"
              "workers = 1\n"
              "slots = 8\n"
              "member0 = 0A:00:00:00:01:00 10.0.1.0 40000 1\n"
              "[job 65535]\n"
              "slot_base = 40\n"
              "workers = 1\n"
              "slots = 2\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 1\n"
              "[job 9]\n"
              "workers = 1\n"
              "slots = 2\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 1\n"
              "[device]\n"
              "mac = 02:00:00:00:00:fe\n"
              "ip = 10.0.0.254\n"
              "bypass = 1 0\n"
              "ports = 2\n"
              "max_count = 512\n",
              cfg);
    assert_int_equal(cfg->n_jobs, 4);
    assert_int_equal(cfg->n_ports, 2);
    assert_int_equal(cfg->udp_port, WS_DEFAULT_UDP_PORT);
    assert_int_equal(cfg->job[0].id, 16);
    assert_false(cfg->job[0].enable);
    assert_int_equal(cfg->job[0].slot_base, 0);
    assert_int_equal(cfg->job[0].max_count, 512);
    assert_int_equal(cfg->job[1].id, 3);
    assert_true(cfg->job[1].enable);
    assert_int_equal(cfg->job[1].slot_base, 4);
    assert_int_equal(cfg->job[1].member[0].mac[0], 0x0a);
    assert_int_equal(cfg->job[2].id, 65535);
    assert_int_equal(cfg->job[2].slot_base, 40);
    assert_int_equal(cfg->job[3].slot_base, 42);
    free(cfg);
}

/* Write cfg, parse the text back and compare byte for byte. */
static void round_trip(const ws_config *cfg)
{
    ws_config *back = new_cfg();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    char err[256] = "";

    assert_non_null(f);
    assert_int_equal(ws_config_write(cfg, f), 0);
    assert_int_equal(fclose(f), 0);
    if (ws_config_parse_string(back, text, "written.ini", err, sizeof(err)) != 0)
        fail_msg("written text rejected: %s\n%s", err, text);
    assert_memory_equal(cfg, back, sizeof(*cfg));
    free(text);
    free(back);
}

static void test_round_trip(void **state)
{
    ws_config *cfg = new_cfg();

    (void)state;
    accepts(example, cfg);
    round_trip(cfg);
    accepts("[device]\n"
              "mac = 02:aa:bb:cc:dd:ee\n"
              "ip = 192.168.1.1\n"
              "udp_port = 5000\n"
              "bypass = 5 4 3 2 1 0\n"
              "max_jobs = 3\n"
              "max_workers = 8\n"
              "pool_slots = 100\n"
              "max_count = 2048\n"
              "[job 1]\n"
              "workers = 1\n"
              "slots = 10\n"
              "slot_base = 50\n"
              "max_count = 1024\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 1 5\n"
              "[job 2]\n"
              "workers = 3\n"
              "slots = 5\n"
              "enable = 0\n"
              "member2 = 02:00:00:00:01:02 10.0.1.2 65535 2\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n"
              "member1 = 02:00:00:00:01:00 10.0.1.0 40001 1\n"
              "[job 3]\n"
              "workers = 1\n"
              "slots = 50\n"
              "slot_base = 0\n"
              "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n",
              cfg);
    assert_int_equal(cfg->job[1].slot_base, 60);
    round_trip(cfg);
    free(cfg);
}

static void test_default_config(void **state)
{
    ws_config *cfg = new_cfg();
    char err[128] = "";

    (void)state;
    ws_config_default(cfg);
    assert_int_equal(cfg->n_ports, 4);
    assert_int_equal(cfg->bypass[0], 1);
    assert_int_equal(cfg->bypass[3], 2);
    assert_int_equal(cfg->ip, 0x0a0000fe);
    assert_int_equal(cfg->mac[0], 0x02);
    assert_int_equal(cfg->mac[5], 0xfe);
    assert_int_equal(cfg->udp_port, 48900);
    assert_int_equal(cfg->max_jobs, 8);
    assert_int_equal(cfg->max_workers, 64);
    assert_int_equal(cfg->pool_slots, 64);
    assert_int_equal(cfg->max_count, 256);
    assert_int_equal(cfg->n_jobs, 0);
    assert_int_equal(ws_config_check(cfg, err, sizeof(err)), 0);
    round_trip(cfg);
    free(cfg);
}

/* A default config with one job 7 of two workers, built in memory. */
static ws_config *memory_cfg(void)
{
    ws_config *cfg = new_cfg();
    ws_job *job = &cfg->job[0];

    ws_config_default(cfg);
    cfg->n_jobs = 1;
    job->id = 7;
    job->enable = true;
    job->workers = 2;
    job->slots = 8;
    job->max_count = 256;
    for (unsigned k = 0; k < 2; k++) {
        ws_member *m = &job->member[k];
        assert_int_equal(ws_parse_mac("02:00:00:00:01:00", m->mac), 0);
        m->mac[5] = (uint8_t)k;
        m->ip = 0x0a000100u + k;
        m->udp_port = 40000;
        m->port = (uint8_t)k;
    }
    return cfg;
}

static void check_fails(const ws_config *cfg, const char *text)
{
    char err[256] = "";

    assert_int_equal(ws_config_check(cfg, err, sizeof(err)), -1);
    if (strstr(err, text) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err, text);
}

static void test_check_in_memory(void **state)
{
    ws_config *cfg = memory_cfg();

    (void)state;
    assert_int_equal(ws_config_check(cfg, NULL, 0), 0);
    round_trip(cfg);
    cfg->job[1] = cfg->job[0];
    cfg->job[1].id = 8;
    cfg->job[1].slot_base = 4;
    cfg->n_jobs = 2;
    check_fails(cfg, "job 8: slot range 4..11 overlaps job 7");
    cfg->job[1].slot_base = 8;
    assert_int_equal(ws_config_check(cfg, NULL, 0), 0);
    cfg->job[1].member[1] = (ws_member){{0}, 0, 0, 0};
    check_fails(cfg, "job 8: member1 missing (ranks 0..1 required)");
    cfg->job[1].member[1] = cfg->job[1].member[0];
    check_fails(cfg, "job 8: member1: duplicate member");
    cfg->job[1].member[1].udp_port = 1;
    cfg->job[1].member[1].port = 4;
    check_fails(cfg, "job 8: member1: device port 4 out of range 0..3");
    cfg->job[1].member[1].port = 3;
    cfg->job[1].id = 7;
    check_fails(cfg, "job 7: duplicate job id");
    cfg->job[1].id = 8;
    cfg->job[1].workers = 65;
    check_fails(cfg, "job 8: workers 65 out of range 1..64");
    cfg->job[1].workers = 2;
    cfg->max_jobs = 1;
    check_fails(cfg, "job 8: too many jobs");
    cfg->max_jobs = 8;
    cfg->bypass[2] = 4;
    check_fails(cfg, "bypass entry for port 2 is 4");
    cfg->bypass[2] = 3;
    cfg->mac[0] = 1;
    check_fails(cfg, "multicast");
    cfg->mac[0] = 2;
    assert_int_equal(ws_config_check(cfg, NULL, 0), 0);
    free(cfg);
}

static void test_text_helpers(void **state)
{
    uint8_t mac[6];
    uint32_t ip = 0;
    char text[18];

    (void)state;
    assert_int_equal(ws_parse_mac("02:AB:cd:00:00:FE", mac), 0);
    ws_format_mac(mac, text);
    assert_string_equal(text, "02:ab:cd:00:00:fe");
    assert_int_equal(ws_parse_mac("02:00:00:00:00", mac), -1);
    assert_int_equal(ws_parse_mac("02:00:00:00:00:fe:", mac), -1);
    assert_int_equal(ws_parse_mac("02-00-00-00-00-fe", mac), -1);
    assert_int_equal(ws_parse_mac("2:00:00:00:00:fe0", mac), -1);
    assert_int_equal(ws_parse_mac("", mac), -1);
    assert_int_equal(ws_parse_ipv4("255.255.255.255", &ip), 0);
    assert_int_equal(ip, 0xffffffffu);
    assert_int_equal(ws_parse_ipv4("0.0.0.0", &ip), 0);
    assert_int_equal(ip, 0);
    assert_int_equal(ws_parse_ipv4("10.0.1.20", &ip), 0);
    ws_format_ipv4(ip, text);
    assert_string_equal(text, "10.0.1.20");
    assert_int_equal(ws_parse_ipv4("10.0.1", &ip), -1);
    assert_int_equal(ws_parse_ipv4("10.0.1.2.", &ip), -1);
    assert_int_equal(ws_parse_ipv4("10.0.1.2 ", &ip), -1);
    assert_int_equal(ws_parse_ipv4("10.0.01.2", &ip), -1);
    assert_int_equal(ws_parse_ipv4("10.0.1.1000", &ip), -1);
    assert_int_equal(ws_parse_ipv4("-1.0.1.2", &ip), -1);
}

static void test_unknown_key(void **state)
{
    (void)state;
    rejects(DEV "colour = blue\n", "t.ini:6: ", "unknown key 'colour'");
    rejects(DEV JOB7 "Workers = 2\n", "t.ini:11: ", "unknown key 'Workers'");
    rejects(DEV JOB7 "member = 1\n", "t.ini:11: ", "unknown key 'member'");
    rejects(DEV JOB7 "member01 = 02:00:00:00:01:01 10.0.1.1 40000 1\n", "t.ini:11: ",
                 "member01");
}

static void test_unknown_section(void **state)
{
    (void)state;
    rejects(DEV "[devices]\n", "t.ini:6: ", "unknown section [devices]");
    rejects(DEV "\n[job]\n", "t.ini:7: ", "unknown section [job]");
    rejects(DEV "[job  7]\n", "t.ini:6: ", "bad job id");
    rejects(DEV "[job 65536]\n", "t.ini:6: ", "bad job id");
    rejects(DEV "[job -1]\n", "t.ini:6: ", "bad job id");
    rejects(DEV "[job 0x]\n", "t.ini:6: ", "bad job id");
    rejects(DEV "[job 7] x\n", "t.ini:6: ", "unexpected text");
    rejects(DEV "[job 7\n", "t.ini:6: ", "without ']'");
}

static void test_key_outside_section(void **state)
{
    (void)state;
    rejects("; comment\nworkers = 2\n" DEV, "t.ini:2: ", "outside any section");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    rejects(DEV "ip = 10.0.0.1\n", "t.ini:6: ", "duplicate key 'ip' (first at line 3)");
    rejects(DEV JOB7 "member1 = 02:00:00:00:01:09 10.0.1.9 40000 1\n", "t.ini:11: ",
                 "duplicate key 'member1'");
}

static void test_duplicate_section(void **state)
{
    (void)state;
    rejects(DEV JOB7 "[job 0x7]\n", "t.ini:11: ", "duplicate job 7 (first at line 6)");
    rejects(DEV JOB7 "[device]\n", "t.ini:11: ", "duplicate section [device]");
}

static void test_empty_value(void **state)
{
    (void)state;
    rejects(DEV JOB7 "slot_base =\n", "t.ini:11: ", "empty value");
}

static void test_bad_mac(void **state)
{
    (void)state;
    rejects("[device]\nmac = 02:00:00:00:fe\n", "t.ini:2: ", "bad MAC");
    rejects("[device]\nmac = 02:00:00:00:00:0fe\n", "t.ini:2: ", "bad MAC");
    rejects("[device]\nmac = 02:00:00:0g:00:fe\n", "t.ini:2: ", "bad MAC");
    rejects("[device]\nmac = 03:00:00:00:00:fe\n", "t.ini:2: ", "multicast");
    rejects(DEV JOB7 "[job 8]\nmember0 = 01:00:5e:00:00:01 10.0.1.0 40000 0\n",
                 "t.ini:12: ", "multicast");
}

static void test_bad_ip(void **state)
{
    (void)state;
    rejects("[device]\nip = 10.0.0.0.1\n", "t.ini:2: ", "bad IPv4");
    rejects("[device]\nip = 10.0.0.256\n", "t.ini:2: ", "bad IPv4");
    rejects("[device]\nip = 10.zero.0.1\n", "t.ini:2: ", "bad IPv4");
    rejects("[device]\nip = 10..0.1\n", "t.ini:2: ", "bad IPv4");
    rejects(DEV "[job 8]\nmember0 = 02:00:00:00:01:00 10.0.1 40000 0\n", "t.ini:7: ",
                 "bad IPv4");
}

static void test_port_range(void **state)
{
    (void)state;
    rejects("[device]\nudp_port = 0\n", "t.ini:2: ", "udp_port 0 out of range 1..65535");
    rejects("[device]\nudp_port = 65536\n", "t.ini:2: ", "out of range 1..65535");
    rejects("[device]\nudp_port = 99999999999999999999999\n", "t.ini:2: ",
                 "out of range 1..65535");
    rejects("[device]\nudp_port = +5\n", "t.ini:2: ", "not a decimal number");
    rejects("[device]\nudp_port = 5x\n", "t.ini:2: ", "not a decimal number");
    rejects(DEV "[job 8]\nmember0 = 02:00:00:00:01:00 10.0.1.0 70000 0\n", "t.ini:7: ",
                 "out of range 1..65535");
}

static void test_bypass(void **state)
{
    (void)state;
    rejects("[device]\nbypass = 1 0 3 4\n", "t.ini:2: ",
                 "entry for port 3 is 4, out of range 0..3");
    rejects("[device]\nbypass = 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "t.ini:2: ",
                 "too many ports");
    rejects("[device]\nbypass = 1 0 x\n", "t.ini:2: ", "not a decimal number");
    rejects(DEV "ports = 8\n", "t.ini:6: ", "does not match the bypass list");
    rejects(DEV "ports = 17\n", "t.ini:6: ", "out of range 1..16");
}

static void test_build_params(void **state)
{
    (void)state;
    rejects(DEV "max_jobs = 0\n", "t.ini:6: ", "max_jobs 0 out of range 1..64");
    rejects(DEV "max_workers = 65\n", "t.ini:6: ", "out of range 1..64");
    rejects(DEV "pool_slots = 4097\n", "t.ini:6: ", "out of range 1..4096");
    rejects(DEV "max_count = 4096\n", "t.ini:6: ", "out of range 1..2048");
    rejects(DEV "max_frame = 67\n", "t.ini:6: ", "max_frame 67 out of range 68..65535");
    rejects(DEV "max_frame = 65536\n", "t.ini:6: ", "max_frame 65536 out of range 68..65535");
    /* a job whose frames the ports would drop */
    rejects(DEV "max_frame = 1000\n" JOB7 "max_count = 256\n", "t.ini:12: ",
            "job 7: max_count 256 makes frames of 1088 bytes, longer than the device's "
            "max_frame 1000");
}

static void test_max_frame(void **state)
{
    (void)state;
    ws_config *cfg = malloc(sizeof *cfg);
    assert_non_null(cfg);
    accepts(DEV JOB7, cfg); /* not given: the device's */
    assert_int_equal(cfg->max_frame, 0);
    assert_int_equal(ws_config_max_frame(cfg), WS_DEFAULT_MAX_FRAME);
    accepts(DEV "max_frame = 1518\n" JOB7, cfg);
    assert_int_equal(ws_config_max_frame(cfg), 1518);
    /* written back only when given */
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    assert_int_equal(ws_config_write(cfg, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "max_frame = 1518\n"));
    free(text);
    free(cfg);
}

static void test_workers_range(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 0\n", "t.ini:7: ", "workers 0 out of range 1..64");
    rejects(DEV "max_workers = 1\n" JOB7, "t.ini:8: ",
                 "job 7: workers 2 out of range 1..1 (max_workers)");
}

static void test_slots_range(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 1\nslots = 65\n"
                     "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n",
                 "t.ini:8: ", "job 7: slots 65 out of range 1..64 (pool_slots)");
    rejects(DEV JOB7 "slot_base = 60\n", "t.ini:11: ",
                 "job 7: slot range 60..75 beyond the pool");
    rejects(DEV JOB7 "[job 8]\nworkers = 1\nslots = 49\n"
                          "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n",
                 "t.ini:13: ", "job 8: slot range 16..64 beyond the pool");
    rejects(DEV "[job 7]\nslots = 0\n", "t.ini:7: ", "slots 0 out of range");
}

static void test_overlap(void **state)
{
    (void)state;
    rejects(DEV JOB7 "[job 8]\nworkers = 1\nslots = 4\nslot_base = 15\n"
                          "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n",
                 "t.ini:14: ", "job 8: slot range 15..18 overlaps job 7 (slots 0..15)");
}

static void test_too_many_jobs(void **state)
{
    (void)state;
    rejects(DEV "max_jobs = 1\n" JOB7 "[job 8]\nworkers = 1\nslots = 4\n"
                                         "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n",
                 "t.ini:12: ", "job 8: too many jobs");
}

static void test_too_many_jobs_limit(void **state)
{
    char *text = malloc(70 * 32 + sizeof(DEV));
    size_t n;

    (void)state;
    assert_non_null(text);
    n = (size_t)sprintf(text, "%s", DEV);
    for (unsigned j = 0; j <= WS_LIMIT_JOBS; j++)
        n += (size_t)sprintf(text + n, "[job %u]\n", j);
    rejects(text, "t.ini:70: ", "job 64: too many jobs (limit 64)");
    free(text);
}

static void test_member_rank_too_high(void **state)
{
    (void)state;
    rejects(DEV JOB7 "member2 = 02:00:00:00:01:02 10.0.1.2 40000 2\n", "t.ini:11: ",
                 "job 7: member2: rank 2 >= workers (2)");
    rejects(DEV JOB7 "member64 = 02:00:00:00:01:02 10.0.1.2 40000 2\n", "t.ini:11: ",
                 "rank 64 out of range 0..63");
}

static void test_rank_gap(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 3\nslots = 16\n"
                     "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n"
                     "member2 = 02:00:00:00:01:02 10.0.1.2 40000 2\n",
                 "t.ini:6: ", "job 7: member1 missing (ranks 0..2 required)");
}

static void test_duplicate_member(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 3\nslots = 16\n"
                     "member0 = 02:00:00:00:01:00 10.0.1.0 40000 0\n"
                     "member1 = 02:00:00:00:01:01 10.0.1.1 40000 1\n"
                     "member2 = 02:00:00:00:01:00 10.0.1.0 40000 2\n",
                 "t.ini:11: ", "member2: duplicate member: same MAC, IP and UDP port as member0");
}

static void test_member_device_port(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 1\nslots = 16\n"
                     "member0 = 02:00:00:00:01:00 10.0.1.0 40000 4\n",
                 "t.ini:9: ", "job 7: member0: device port 4 out of range 0..3");
    rejects(DEV "[job 7]\nmember0 = 02:00:00:00:01:00 10.0.1.0 40000 16\n", "t.ini:7: ",
                 "device port 16 out of range 0..15");
}

static void test_member_fields(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nmember0 = 02:00:00:00:01:00 10.0.1.0 40000\n", "t.ini:7: ",
                 "expected 4 fields 'MAC IP UDP-port device-port', got 3");
    rejects(DEV "[job 7]\nmember0 = 02:00:00:00:01:00 10.0.1.0 40000 1 2\n", "t.ini:7: ",
                 "got more than 4");
}

static void test_member_is_device(void **state)
{
    (void)state;
    rejects(DEV "[job 7]\nworkers = 1\nslots = 16\n"
                     "member0 = 02:00:00:00:01:00 10.0.0.254 40000 0\n",
                 "t.ini:9: ", "IP 10.0.0.254 is the device's IP");
}

static void test_job_max_count(void **state)
{
    (void)state;
    rejects(DEV "max_count = 128\n" JOB7 "max_count = 256\n", "t.ini:12: ",
                 "job 7: max_count 256 out of range 1..128 (device max_count)");
}

static void test_missing_device(void **state)
{
    char err[128] = "";
    ws_config *cfg = new_cfg();

    (void)state;
    rejects(JOB7, "t.ini: ", "missing [device] section");
    assert_int_equal(ws_config_parse_string(cfg, "", "t.ini", err, sizeof(err)), -1);
    assert_string_equal(err, "t.ini: missing [device] section");
    free(cfg);
}

static void test_missing_keys(void **state)
{
    (void)state;
    rejects("\n[device]\nip = 10.0.0.254\nbypass = 0\n", "t.ini:2: ",
                 "[device]: missing required key 'mac'");
    rejects("[device]\nmac = 02:00:00:00:00:fe\nbypass = 0\n", "t.ini:1: ",
                 "missing required key 'ip'");
    rejects("[device]\nmac = 02:00:00:00:00:fe\nip = 10.0.0.254\n", "t.ini:1: ",
                 "missing required key 'bypass'");
    rejects(DEV "[job 7]\nworkers = 1\n", "t.ini:6: ", "job 7: missing required key 'slots'");
    rejects(DEV "[job 7]\n", "t.ini:6: ", "job 7: missing required key 'workers'");
}

static void test_disabled_job(void **state)
{
    ws_config *cfg = new_cfg();

    (void)state;
    accepts(DEV JOB7 "enable = 0\n", cfg);
    assert_false(cfg->job[0].enable);
    accepts(DEV JOB7 "enable = 1\n", cfg);
    assert_true(cfg->job[0].enable);
    rejects(DEV JOB7 "enable = 2\n", "t.ini:11: ", "enable 2 out of range 0..1");
    rejects(DEV JOB7 "enable = yes\n", "t.ini:11: ", "not a decimal number");
    free(cfg);
}

static void test_syntax(void **state)
{
    ws_config *cfg = new_cfg();
    char long_line[400];

    (void)state;
    rejects(DEV "just words\n", "t.ini:6: ", "expected 'key = value'");
    rejects(DEV JOB7 "   [job 8]\n", "t.ini:11: ", "continuation");
    rejects(DEV "= 5\n", "t.ini:6: ", "missing key name");
    memset(long_line, 'x', sizeof(long_line));
    memcpy(long_line, DEV "# ", sizeof(DEV) + 1);
    long_line[sizeof(long_line) - 1] = '\0';
    rejects(long_line, "t.ini:6: ", "line too long");
    /* comments, blank lines, CRLF, ':' separator, indented first key are accepted */
    accepts("; leading comment\r\n"
              "# another\r\n"
              "\r\n"
              "[device] ; trailing comment\r\n"
              "  mac = 02:00:00:00:00:fe\r\n"
              "ip: 10.0.0.254\r\n"
              "bypass = 0 ; one port\r\n",
              cfg);
    assert_int_equal(cfg->n_ports, 1);
    /* '#' is only a comment at the start of a line */
    rejects(DEV "max_jobs = 4 # four\n", "t.ini:6: ", "not a decimal number");
    free(cfg);
}

/* The first error wins, even when a later one is found first by inih. */
static void test_first_error(void **state)
{
    (void)state;
    rejects(DEV "no equals sign\n[bogus]\n", "t.ini:6: ", "expected 'key = value'");
    rejects(DEV "[bogus]\nno equals sign\n", "t.ini:6: ", "unknown section [bogus]");
    rejects(DEV "colour = 1\n[job 7]\nworkers = 0\n", "t.ini:6: ", "colour");
}

static void test_load_missing_file(void **state)
{
    ws_config *cfg = new_cfg();
    char err[256] = "";
    const char *path = "/nonexistent/dir/job.ini";

    (void)state;
    assert_int_equal(ws_config_load(cfg, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "cannot open"));
    free(cfg);
}

/* the workload of run and bench: members, ports, bypass, and a configuration that checks */
static void test_add_workload(void **state)
{
    (void)state;
    ws_config c;
    char err[256];
    ws_config_default(&c);
    ws_job *jb = ws_config_add_workload(&c, 7, 3, 5, 4, 64);
    assert_non_null(jb);
    assert_int_equal(c.n_jobs, 1);
    assert_int_equal(c.n_ports, 3);
    assert_int_equal(c.bypass[0], 1);
    assert_int_equal(c.bypass[1], 0);
    assert_int_equal(c.bypass[2], 2); /* last odd port: to itself */
    assert_int_equal(jb->id, 7);
    assert_true(jb->enable);
    assert_int_equal(jb->workers, 5);
    assert_int_equal(jb->slots, 4);
    assert_int_equal(jb->max_count, 64);
    for (unsigned w = 0; w < 5; w++) {
        const uint8_t mac[6] = {0x02, 0, 0, 0, 0x01, (uint8_t)w};
        assert_memory_equal(jb->member[w].mac, mac, 6);
        assert_int_equal(jb->member[w].ip, 0x0a000101u + w);
        assert_int_equal(jb->member[w].udp_port, 40000);
        assert_int_equal(jb->member[w].port, w % 3);
    }
    assert_int_equal(ws_config_check(&c, err, sizeof err), 0);
    assert_ptr_equal(ws_config_find_job(&c, 7), jb);
    /* beyond the host's limits: refused, nothing appended */
    assert_null(ws_config_add_workload(&c, 8, WS_LIMIT_PORTS + 1, 2, 1, 64));
    assert_null(ws_config_add_workload(&c, 8, 2, WS_LIMIT_WORKERS + 1, 1, 64));
    assert_int_equal(c.n_jobs, 1);
    /* a second job takes the slots after the first's: the two do not overlap */
    ws_job *j2 = ws_config_add_workload(&c, 8, 3, 2, 6, 64);
    assert_non_null(j2);
    assert_int_equal(j2->slot_base, 4);
    assert_int_equal(j2->slots, 6);
    assert_int_equal(ws_config_check(&c, err, sizeof err), 0);
}

static void test_load_file(void **state)
{
    ws_config *cfg = new_cfg();
    ws_config *again = new_cfg();
    char path[] = "/tmp/test_config_XXXXXX";
    char err[256] = "";
    int fd = mkstemp(path);
    FILE *f;

    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    assert_int_equal(fputs(example, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    if (ws_config_load(cfg, path, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    accepts(example, again);
    assert_memory_equal(cfg, again, sizeof(*cfg));
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("[job 8]\nworkers = 1\nslots = 100\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ws_config_load(cfg, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, ":17: job 8: slots 100 out of range 1..64"));
    unlink(path);
    free(cfg);
    free(again);
}

static void test_small_err_buffer(void **state)
{
    ws_config *cfg = new_cfg();
    char err[8];

    (void)state;
    assert_int_equal(ws_config_parse_string(cfg, DEV "bad = 1\n", "t.ini", err, sizeof(err)), -1);
    assert_string_equal(err, "t.ini:6");
    assert_int_equal(ws_config_parse_string(cfg, DEV "bad = 1\n", "t.ini", NULL, 0), -1);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_parses),
        cmocka_unit_test(test_example_rank_gap),
        cmocka_unit_test(test_defaults_and_order),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_default_config),
        cmocka_unit_test(test_check_in_memory),
        cmocka_unit_test(test_text_helpers),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_unknown_section),
        cmocka_unit_test(test_key_outside_section),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_duplicate_section),
        cmocka_unit_test(test_empty_value),
        cmocka_unit_test(test_bad_mac),
        cmocka_unit_test(test_bad_ip),
        cmocka_unit_test(test_port_range),
        cmocka_unit_test(test_bypass),
        cmocka_unit_test(test_build_params),
        cmocka_unit_test(test_max_frame),
        cmocka_unit_test(test_workers_range),
        cmocka_unit_test(test_slots_range),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_too_many_jobs),
        cmocka_unit_test(test_too_many_jobs_limit),
        cmocka_unit_test(test_member_rank_too_high),
        cmocka_unit_test(test_rank_gap),
        cmocka_unit_test(test_duplicate_member),
        cmocka_unit_test(test_member_device_port),
        cmocka_unit_test(test_member_fields),
        cmocka_unit_test(test_member_is_device),
        cmocka_unit_test(test_job_max_count),
        cmocka_unit_test(test_missing_device),
        cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_disabled_job),
        cmocka_unit_test(test_syntax),
        cmocka_unit_test(test_first_error),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_add_workload),
        cmocka_unit_test(test_small_err_buffer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
