/* cmd_cluster.c - `wiresum cluster FILE`: the cluster simulation on ns-3 (docs/cluster.md). It
 * lives in the companion binary wiresum-cluster (mk/cluster.mk: the ns-3 layer is C++ and links
 * ns-3), next to this tool; this command runs it with the same arguments. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int ws_cmd_cluster(int argc, char **argv)
{
    (void)argc; /* argv ends with NULL, as execv wants */
    char self[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) {
        fprintf(stderr, "wiresum cluster: cannot find this program's directory: %s\n",
                strerror(errno));
        return 2;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    snprintf(path, sizeof path, "%.*s/wiresum-cluster", slash ? (int)(slash - self) : 1,
             slash ? self : ".");
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "wiresum cluster: cannot run %s: %s (the cluster simulation is a companion "
            "binary beside wiresum, built by `make` or `make build/wiresum-cluster` with ns-3, "
            "libns3-dev)\n", path, strerror(errno));
    return 2;
}
