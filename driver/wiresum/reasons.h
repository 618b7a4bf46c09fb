/* wiresum/reasons.h - the one list of frame verdicts and drop reasons.
 *
 * Every drop reason of docs/protocol.md section 4 appears here exactly once. The
 * counters, the messages of every tool and docs/protocol.md use these names.
 * X(ENUM, "name", "description")
 */
#ifndef WIRESUM_REASONS_H
#define WIRESUM_REASONS_H

#define WS_DROP_REASONS(X)                                                              \
    X(BAD_IPV4, "bad_ipv4",                                                             \
      "IPv4 header invalid: version, options, fragment, header checksum or length")     \
    X(BAD_UDP, "bad_udp", "UDP length wrong, or non-zero UDP checksum wrong")           \
    X(BAD_HEADER, "bad_header",                                                         \
      "aggregation header: version, type, dtype or reserved bits")          \
    X(RESULT_TO_DEVICE, "result_to_device", "a RESULT frame was sent to the device")    \
    X(UNKNOWN_JOB, "unknown_job", "job id not configured, or job disabled")             \
    X(BAD_RANK, "bad_rank", "worker rank not below the job's number of workers")        \
    X(SPOOFED, "spoofed", "source MAC, IPv4 address or UDP port is not the member's")   \
    X(BAD_SLOT, "bad_slot", "slot not below the job's number of slots")                 \
    X(BAD_COUNT, "bad_count", "count is 0 or above the job's max_count")                \
    X(BAD_LENGTH, "bad_length",                                                         \
      "frame shorter than 64 bytes, or its length is not exactly 64 + 4*count")         \
    X(MISMATCH, "mismatch", "offset, tensor or count differ from the open round's")     \
    X(EARLY, "early", "set complete but other workers have not moved on yet")           \
    X(DUPLICATE, "duplicate",                                                           \
      "worker already contributed to this set (RESULT re-sent if the round is complete)")

typedef enum {
    WS_OK = 0,
#define WS_X_ENUM(e, n, d) WS_DROP_##e,
    WS_DROP_REASONS(WS_X_ENUM)
#undef WS_X_ENUM
    WS_N_REASONS /* number of entries including WS_OK */
} ws_reason;

#define WS_N_DROPS (WS_N_REASONS - 1)

/* "ok" for WS_OK, the short name otherwise; "?" when out of range. */
const char *ws_reason_name(ws_reason r);
/* One-line description. */
const char *ws_reason_desc(ws_reason r);
/* Reverse lookup; returns -1 when the name is unknown. */
int ws_reason_from_name(const char *name);

#endif
