// ns3_bg.h - the congestion side of the ns-3 layer (ns3_bg.cc): DCTCP for TCP when the switches mark ECN
// (net.cc's Switch marks), and the background TCP flows of a [background] section
// (cluster/model/bg.h plans them and keeps their counts; this moves their bytes).
#ifndef WS_NS3_BG_H
#define WS_NS3_BG_H

#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/traffic-control-module.h>

#include <functional>
#include <memory>
#include <map>
#include <vector>

extern "C" {
#include "bg.h"
#include "cluster.h"
}

// With ecn_threshold: TCP sockets are DCTCP (ECT on data, the sender's window from the marked
// fraction) and acknowledge every segment. Call before any socket exists.
void WsEcnDefaults(const ws_cluster* c);

// The background flows of one run: a TCP connection per flow from its source host to its
// destination's listening port at its start time, its bytes sent, and counted as they arrive.
class WsBackground
{
  public:
    // nodes: hosts first (node h, address host_ip[h])
    WsBackground(const ws_cluster* c, ns3::NodeContainer nodes, const uint32_t* host_ip,
                 uint64_t start_ps, std::function<void()> on_done);
    ~WsBackground();
    // 0, or -1 with err (the plan could not be made)
    int Setup(char* err, size_t errlen);
    bool Done() const;
    void Result(ws_bg_result* r) const;

  private:
    void Start(size_t i);
    void SendMore(size_t i, ns3::Ptr<ns3::Socket> s, uint32_t);
    void Accept(ns3::Ptr<ns3::Socket> s, const ns3::Address& from);
    void Recv(size_t i, ns3::Ptr<ns3::Socket> s);

    const ws_cluster* c_;
    ns3::NodeContainer hosts_;
    std::vector<uint32_t> ip_;
    uint64_t start_ps_;
    std::function<void()> on_done_;
    ws_bg* g_ = nullptr;
    std::vector<uint64_t> left_; // bytes of flow i not yet handed to its socket
    std::map<std::pair<uint32_t, uint16_t>, size_t> by_src_; // source address -> flow
};

#endif
