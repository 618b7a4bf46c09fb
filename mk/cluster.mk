# mk/cluster.mk - build/wiresum-cluster, the companion binary of `wiresum cluster FILE`: the
# cluster simulation on ns-3 (docs/cluster.md).
#
# C everywhere ns-3 does not demand C++: the cluster file, the workers' collectives, the device's
# timing model and the report are cluster/model/*.c (in libwstools.a, built and tested with the
# other tools' code, -Wall -Wextra -Werror), the companion's main is cluster/main.c; the ns-3 layer
# (nodes, links, sockets, the event loop) is cluster/ns3/*.cc, the only C++. The link takes from
# libwstools.a only what the cluster uses; a device with model = rtl is the session's Verilator
# model (libwssim.a and the model archives of mk/models.mk, WS_SIM_LIBS: the ones build/wiresum
# links, never Verilated again for this binary). Debian's ns-3 3.37 (libns3-dev) is installed by
# scripts/deps.sh; its pkg-config files carry a stray "-I/usr;" in their Cflags, dropped here.
NS3_MODULES  := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-traffic-control
# asked when a recipe needs them (as WS_VROOT, mk/models.mk): pkg-config may not be there yet
NS3_CFLAGS    = $(eval NS3_CFLAGS := $(filter-out %;,$(shell pkg-config --cflags $(NS3_MODULES))))$(NS3_CFLAGS)
NS3_LIBS      = $(eval NS3_LIBS := $(shell pkg-config --libs $(NS3_MODULES)))$(NS3_LIBS)
# the objects: the main build's when this one shares its model-independent parts (the PARTIAL
# build's companion, build/p1/wiresum-cluster: mk/models.mk)
CLB          := $(or $(WS_SHARED_FROM),$(BUILD))/cluster
CLUSTER_CXX  := $(wildcard cluster/ns3/*.cc)
CLUSTER_OBJ  := $(CLB)/main.o $(CLB)/fidelity.o $(patsubst cluster/ns3/%.cc,$(CLB)/%.o,$(CLUSTER_CXX))
# the companion sees the cluster's model and everything below it
WS_INC_cluster := -Icluster -Icluster/ns3 $(WS_INC_cluster/model)
CLUSTER_CXXFLAGS = -std=c++17 -O2 -g -Wall -Wextra -Werror $(WS_INC_cluster) \
                   $(NS3_CFLAGS)
# ns-3 allocates a packet, its buffer and its events for every hop of every packet: gperftools'
# tcmalloc (libgoogle-perftools-dev) serves those from per-size free lists, glibc's malloc did
# it in 9 % of the k = 8 scale run's profile (docs/performance.md section 5). This binary only:
# the sanitizer builds keep their own allocator.
CLUSTER_MALLOC := -ltcmalloc_minimal

.PHONY: cluster
cluster: $(BUILD)/wiresum-cluster

$(CLB)/%.o: cluster/%.c | $(CLB)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(WS_INC_cluster) $(DEPFLAGS) -c $< -o $@

$(CLB)/%.o: cluster/ns3/%.cc | $(CLB)
	$(CXX) $(CLUSTER_CXXFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/wiresum-cluster: $(CLUSTER_OBJ) $(PLAIN_LIBS) $(WS_SIM_LIBS)
	$(CXX) $(CLUSTER_OBJ) $(PLAIN_LIBS) $(WS_SIM_LIBS) $(LIBS) $(NS3_LIBS) $(WS_SIM_LD) \
	  $(CLUSTER_MALLOC) -o $@

# The PARTIAL build's companion (mk/models.mk), build/p1/wiresum-cluster: `wiresum cluster`
# with model = rtl devices of four ports and engines and in trees (the fidelity check,
# docs/cluster.md section 3), linked from the main build's cluster objects
$(WS_P1_CLUSTER): $(CLUSTER_OBJ) $(BUILD)/libwstools.a $(BUILD)/libwiresum.a $(SIMB)/libverilated.a \
    $(WS_P1) FORCE
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/p1 $(WS_P1_FLAGS) WS_SHARED_FROM=$(BUILD) $@

$(CLB):
	mkdir -p $@

-include $(CLUSTER_OBJ:.o=.d)
