/* values_kind.h - the kinds of gradient values the tools make up, and their names: one
 * enumeration for `wiresum gen` (trace/gen.c), the closed loops' inputs (loop/values.c) and the
 * cluster file's [job] values (cluster/model/cluster.c). Each maker draws its own values of a
 * kind; the kind and its name are the same everywhere.
 */
#ifndef WS_VALUES_KIND_H
#define WS_VALUES_KIND_H

/* normal: gradients; special: every value a special one (zeros, subnormals, extremes,
 * infinities, NaNs); mixed: gradients with specials among them */
typedef enum { WS_VALUES_NORMAL, WS_VALUES_SPECIAL, WS_VALUES_MIXED } ws_values_kind;

/* the names, as options and files spell them, for messages */
#define WS_VALUES_KIND_NAMES "normal, special or mixed"

/* "normal", "special" or "mixed" */
const char *ws_values_kind_name(ws_values_kind k);
/* The kind named s: 0, or -1 if s names none (*k unchanged). */
int ws_values_kind_parse(const char *s, ws_values_kind *k);

#endif
