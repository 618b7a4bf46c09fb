// net.cc - the ns-3 layer of `wiresum cluster`: the network of a cluster file and the sockets of
// its workers and devices (ns3_run.h). Everything else is C (cluster/model/*.c): this file only
// builds nodes and links as cluster/model/topo.h numbers them, forwards packets where its routes
// say (TopoRouting: ECMP per flow), moves payloads between sockets and the C code, and keeps the
// time (picoseconds, the unit of every C call).
#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/point-to-point-module.h>
#include <ns3/traffic-control-module.h>

#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <vector>

extern "C" {
#include "topo.h"
#include "wiresum/wire.h"
#include "ns3_run.h"
#include "rng.h"
}
#include "ns3_bg.h"

using namespace ns3;

namespace
{

const uint16_t kStreamPort = 50000;
const uint64_t kStartPs = 100000000; // 100 us: TCP connections are up before the first start
const uint32_t kNet = 0x0a000000;    // link l is 10.0.0.0 + 4l /30: lower node .1, upper .2

uint64_t NowPs() { return static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()); }

Time AtPs(uint64_t t)
{
    uint64_t now = NowPs();
    return PicoSeconds(static_cast<int64_t>(t > now ? t - now : 0));
}

// What the switches saw: per link between switches and direction, bytes, packets and flows, and
// the flows a switch sent on two different links (none, with ECMP per flow); the packets the
// switches marked CE, and those they dropped for want of ECN capability.
struct Forwarding
{
    std::vector<ws_cluster_linkstat> up; // link H + D + u
    uint64_t split = 0;
    std::unordered_map<uint64_t, uint32_t> first; // (flow, switch) -> the link it took
    uint64_t marks = 0, unmarkable = 0;
    std::vector<ws_cdev*> dev; // the run's devices by cluster index (NULL: not in the run)
};

// A switch: it forwards an IPv4 packet for host or device n on the link ws_topo_route() names,
// its equal-cost choices by a hash of the packet's 5-tuple (ECMP per flow, which ns-3 3.37's
// Ipv4GlobalRouting does not have: its RandomEcmpRouting is per packet), into that port's
// drop-tail queue; to a device of several ports, on the link of the port its configuration
// gives the packet's source (its member's or parent's port: ws_cdev_port_of), so that each
// member's frames reach the device's port the device expects them on. It has no IP stack: it reads the packet's IPv4 header where the point-to-point
// device hands it up and sends the same packet on (the TTL is left as it is: nothing reads it),
// which costs a third of ns-3's IPv4 forwarding with its traffic-control layer
// (docs/cluster.md section 7). With ECN marking (ecn_threshold = K), a packet that arrives to
// a queue of its port's K or more bytes is marked CE if it is ECN-capable and dropped if not:
// DCTCP's step marking, as ns-3's RED with MinTh = MaxTh = K on the instantaneous queue does;
// a port's K is ws_cluster_ecn_bytes()'s for its link's rate (the same delay of queue).
class Switch
{
  public:
    const ws_cluster* c = nullptr;
    unsigned sw = 0;         // switch index
    unsigned node_base = 0;  // the first link between switches: H + D
    Forwarding* fwd = nullptr;
    struct Out
    {
        Ptr<PointToPointNetDevice> dev;
        uint32_t mark; // K; 0: no marking
    };
    std::unordered_map<unsigned, Out> ports; // by link

    // the port's receive callback, set in place of its node's (which would look up the protocol
    // handlers for every packet)
    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t protocol, const Address&)
    {
        Forward(p, protocol);
        return true;
    }

  private:
    void Forward(Ptr<const Packet> p, uint16_t protocol)
    {
        Ipv4Header h;
        if (protocol != Ipv4L3Protocol::PROT_NUMBER || !p->PeekHeader(h))
            return;
        uint32_t dst = h.GetDestination().Get();
        uint32_t l = (dst - kNet) / 4;
        if (dst < kNet || (dst & 3) != 1 || l >= node_base)
            return; // not a host's or a device's address
        uint64_t flow = Flow(p, h);
        unsigned out = ws_topo_route(c, sw, l, flow), H = c->topo.hosts;
        if (out >= H && out < node_base && c->dev[out - H].ports > 1)
        {
            const ws_cdev* d = fwd->dev[out - H];
            out = ws_topo_dev_link(c, out - H, d ? ws_cdev_port_of(d, h.GetSource().Get()) : 0);
        }
        auto it = ports.find(out);
        if (it == ports.end())
            return;
        Count(p, flow, out);
        Ptr<PointToPointNetDevice> dev = it->second.dev;
        Ptr<Packet> q = p->Copy();
        if (it->second.mark && dev->GetQueue()->GetNBytes() >= it->second.mark)
        {
            if (h.GetEcn() == Ipv4Header::ECN_NotECT)
            {
                fwd->unmarkable++;
                return;
            }
            q->RemoveHeader(h);
            h.SetEcn(Ipv4Header::ECN_CE);
            q->AddHeader(h);
            fwd->marks++;
        }
        dev->Send(q, dev->GetBroadcast(), Ipv4L3Protocol::PROT_NUMBER); // a full queue drops
    }

    // the packet's 5-tuple hashed: addresses, protocol, ports (the first 4 bytes of TCP and
    // UDP); an IP fragment's without the ports (those after the first have none: every fragment
    // of a datagram takes one path, as switches hash fragments on their addresses)
    static uint64_t Flow(Ptr<const Packet> p, const Ipv4Header& h)
    {
        uint8_t b[64];
        uint8_t ports[4] = {0, 0, 0, 0};
        uint32_t hl = h.GetSerializedSize();
        if (p->GetSize() >= hl + 4 && hl + 4 <= sizeof b && h.IsLastFragment() &&
            h.GetFragmentOffset() == 0)
        {
            p->CopyData(b, hl + 4);
            std::copy(b + hl, b + hl + 4, ports);
        }
        uint64_t a = static_cast<uint64_t>(h.GetSource().Get()) << 32 | h.GetDestination().Get();
        uint64_t x = static_cast<uint64_t>(h.GetProtocol()) << 32 |
                     static_cast<uint64_t>(ports[0]) << 24 | ports[1] << 16 | ports[2] << 8 |
                     ports[3];
        return ws_mix64(ws_mix64(a) ^ x);
    }

    // a packet onto link out: the flow's first link from this switch, or a split; a link
    // between switches counted. The link to a host or a device is the only way to it: no split
    // can happen there, and the table does not hold those flows.
    void Count(Ptr<const Packet> p, uint64_t flow, unsigned out)
    {
        if (out < node_base || out >= node_base + c->topo.uplinks) // a host's, a device's port
            return;
        uint64_t key = ws_mix64(flow ^ static_cast<uint64_t>(sw + 1) << 48);
        auto ins = fwd->first.try_emplace(key, out); // no node made for a flow seen before
        if (!ins.second && ins.first->second != out)
            fwd->split++;
        unsigned u = out - node_base, a, b;
        ws_cluster_link props;
        ws_topo_link(c, out, &a, &b, &props);
        int dir = a == ws_topo_switch_node(c, sw) ? 0 : 1;
        ws_cluster_linkstat& st = fwd->up[u];
        st.bytes[dir] += p->GetSize();
        st.packets[dir]++;
        if (ins.second)
            st.flows[dir]++;
    }
};

// The routes of a host or a device: a host has one interface and sends everything on it; a
// device has one a port and sends each frame on the port its emit names (`next`, set for the
// one send: a socket's SendTo asks RouteOutput at once). Either takes what is addressed to its
// one address on any of its interfaces (as ns-3's own routing does by its weak end-system
// model, Ipv4L3Protocol's WeakEsModel, true by default) and hands it up with the interface it
// came in on, which a device's socket reads as its port (Ipv4PacketInfoTag).
class TopoRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("wiresum::TopoRouting").SetParent<Ipv4RoutingProtocol>().SetGroupName("Internet");
        return tid;
    }
    struct Port
    {
        Ptr<NetDevice> dev;
        Ipv4Address gw;
    };
    uint32_t own = 0;        // its address
    std::vector<Port> ports; // its links: a host's one, a device's by port
    unsigned next = 0;       // the port of the next packet sent

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet>, const Ipv4Header& h, Ptr<NetDevice>,
                               Socket::SocketErrno& err) override
    {
        err = Socket::ERROR_NOTERROR;
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(h.GetDestination());
        r->SetSource(Ipv4Address(own));
        r->SetGateway(ports[next].gw);
        r->SetOutputDevice(ports[next].dev);
        return r;
    }

    // the port of the interface of a received packet (its ifindex, Ipv4PacketInfoTag)
    unsigned PortOf(uint32_t ifindex) const
    {
        for (unsigned k = 0; k < ports.size(); k++)
            if (ports[k].dev->GetIfIndex() == ifindex)
                return k;
        return 0;
    }

    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& h, Ptr<const NetDevice> idev,
                    UnicastForwardCallback, MulticastForwardCallback, LocalDeliverCallback lcb,
                    ErrorCallback) override
    {
        if (h.GetDestination().Get() != own)
            return false;
        if (ports.size() > 1) // the port it came in on
            lcb(p, h, static_cast<uint32_t>(m_ipv4->GetInterfaceForDevice(idev)));
        else
        {
            if (up_if < 0) // its one link's interface, the same for every packet
                up_if = m_ipv4->GetInterfaceForDevice(idev);
            lcb(p, h, static_cast<uint32_t>(up_if));
        }
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override {}
    void NotifyInterfaceDown(uint32_t) override {}
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void SetIpv4(Ptr<Ipv4> ipv4) override { m_ipv4 = ipv4; }
    void PrintRoutingTable(Ptr<OutputStreamWrapper>, Time::Unit) const override {}

  private:
    Ptr<Ipv4> m_ipv4;
    int32_t up_if = -1;
};

class TopoRoutingHelper : public Ipv4RoutingHelper
{
  public:
    TopoRoutingHelper* Copy() const override { return new TopoRoutingHelper(*this); }
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node>) const override
    {
        return CreateObject<TopoRouting>();
    }
};

struct Run;

struct DevRef
{
    Run* r;
    unsigned k;
};

// One run: the nodes, the sockets, the C job.
struct Run
{
    const ws_cluster* c;
    ws_cluster_mode mode;
    ws_cjob* job = nullptr;
    std::vector<Ptr<Socket>> udp;              // wiresum modes: worker w's socket
    std::vector<std::vector<Ptr<Socket>>> tx;  // baselines: worker w -> its peer k
    std::vector<EventId> timer;
    std::vector<Ptr<Socket>> dev_sock;         // by cluster device
    std::vector<Ptr<TopoRouting>> dev_routing; // by cluster device: its ports
    std::vector<DevRef> dev_ref;
    std::vector<uint8_t> buf;
    uint64_t net_drops = 0;
    std::vector<uint64_t> port_drops; // by net.devs index: what its transmit queue dropped
    std::unordered_map<uint32_t, unsigned> worker_of_ip;
    WsBackground* bg = nullptr; // [background] (bg.h)
    // the hosts' links (net.devs: link l's two ends at 2l and 2l + 1, a host's link l = h, the
    // host's end first); at the job's end each worker's bytes either way, in link_bytes
    const std::vector<Ptr<NetDevice>>* devs = nullptr;
    uint64_t job_end_ps = 0;
    std::vector<uint64_t> link_bytes; // worker w's link: 2w up (host to switch), 2w + 1 down

    void Reschedule(unsigned w);
    void Poll(unsigned w);
    void Send(unsigned w, unsigned k);
    void SendAll(unsigned w);
    void SendReady(unsigned w, unsigned k, Ptr<Socket>, uint32_t) { Send(w, k); }
    void CheckDone();
    void WorkerRecv(unsigned w, Ptr<Socket> s);
    void DeviceRecv(unsigned k, Ptr<Socket> s);
    void DeviceService(unsigned k);
    void DeviceSend(unsigned k, unsigned port, Ptr<Packet> p, InetSocketAddress to);
    void StreamRecv(unsigned w, unsigned from, Ptr<Socket> s);
    void Accept(unsigned w, Ptr<Socket> s, const Address& from);
};

// Bytes a point-to-point device has put on its wire: taken into its queue (the PPP header
// included), not dropped, not still queued (the frame being sent counts as sent).
uint64_t WireBytes(const Ptr<NetDevice>& d)
{
    Ptr<Queue<Packet>> q = DynamicCast<PointToPointNetDevice>(d)->GetQueue();
    return q->GetTotalReceivedBytes() - q->GetTotalDroppedBytes() - q->GetNBytes();
}

void Run::CheckDone()
{
    if (!ws_cjob_finished(job))
        return;
    if (!job_end_ps)
    {
        // the job's end: what each worker's link carried until now, either way
        job_end_ps = NowPs();
        unsigned W = c->job.workers;
        link_bytes.resize(2 * W);
        for (unsigned w = 0; w < W; w++)
            for (unsigned e = 0; e < 2; e++)
                link_bytes[2 * w + e] = WireBytes((*devs)[2 * c->job.host[w] + e]);
    }
    if (!bg || bg->Done())
        Simulator::Stop();
}

// Worker w's timer at its deadline. A timer already set for an earlier time stays: it fires,
// finds nothing due and moves to the deadline then (a RESULT moves the deadline later at
// every chunk; cancelling and scheduling an event for each would cost two of the scheduler's
// operations a packet).
void Run::Reschedule(unsigned w)
{
    uint64_t d = ws_cjob_deadline(job, w);
    if (timer[w].IsRunning())
    {
        if (static_cast<uint64_t>(timer[w].GetTs()) <= d)
            return;
        timer[w].Cancel();
    }
    if (d != WS_CLUSTER_NEVER)
        timer[w] = Simulator::Schedule(AtPs(d), &Run::Poll, this, w);
}

void Run::Poll(unsigned w)
{
    uint64_t now = NowPs();
    if (ws_cjob_deadline(job, w) <= now)
    {
        ws_cjob_poll(job, w, now);
        if (!WS_MODE_IS_WIRESUM(mode))
            SendAll(w);
    }
    Reschedule(w);
    CheckDone();
}

// baselines: as much of worker w's pending stream to peer k as its TCP socket takes now
void Run::Send(unsigned w, unsigned k)
{
    Ptr<Socket> s = tx[w][k];
    const uint8_t* data;
    size_t n;
    while ((n = ws_cjob_stream_pending(job, w, k, &data)) > 0)
    {
        uint32_t room = s->GetTxAvailable();
        if (room == 0)
            return;
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(n, std::min<uint32_t>(room, 65536)));
        int sent = s->Send(Create<Packet>(data, m));
        if (sent <= 0)
            return;
        ws_cjob_stream_sent(job, w, k, static_cast<size_t>(sent));
    }
}

void Run::SendAll(unsigned w)
{
    for (unsigned k = 0; k < tx[w].size(); k++)
        Send(w, k);
}

void Run::StreamRecv(unsigned w, unsigned from, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        buf.resize(p->GetSize());
        p->CopyData(buf.data(), p->GetSize());
        ws_cjob_stream_rx(job, w, from, buf.data(), buf.size(), NowPs());
    }
    SendAll(w);
    Reschedule(w);
    CheckDone();
}

void Run::Accept(unsigned w, Ptr<Socket> s, const Address& from)
{
    // a peer's connection to worker w: the peer is the worker at its address
    uint32_t ip = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    auto it = worker_of_ip.find(ip);
    unsigned peer = it == worker_of_ip.end() ? ~0u : it->second;
    s->SetRecvCallback(MakeCallback(&Run::StreamRecv, this).Bind(w, peer));
}

// A UDP packet's payload into buf, with its TOS and TTL (the sockets are asked to tag them)
void Take(Ptr<Packet> p, std::vector<uint8_t>& buf, uint8_t& tos, uint8_t& ttl)
{
    SocketIpTosTag tos_tag;
    SocketIpTtlTag ttl_tag;
    p->RemovePacketTag(tos_tag);
    p->RemovePacketTag(ttl_tag);
    tos = tos_tag.GetTos();
    ttl = ttl_tag.GetTtl();
    buf.resize(p->GetSize());
    p->CopyData(buf.data(), p->GetSize());
}

void Run::WorkerRecv(unsigned w, Ptr<Socket> s)
{
    Address from;
    Ptr<Packet> p;
    uint8_t tos, ttl;
    while ((p = s->RecvFrom(from)))
    {
        InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
        Take(p, buf, tos, ttl);
        ws_cjob_rx(job, w, buf.data(), buf.size(), a.GetIpv4().Get(), a.GetPort(), tos, ttl,
                   NowPs());
    }
    Reschedule(w);
    CheckDone();
}

void EmitFrame(void* ctx, uint64_t at, unsigned port, const uint8_t* f, size_t len);

// A frame's UDP payload as the packet to send, with the frame's TOS as its tag, and the frame's
// destination. The frame's 42 bytes of headers stay before the payload as the packet's room for
// its own (UDP, IPv4, PPP: 30 bytes): ns-3's Buffer writes a header into the room before its
// data, and without room (a packet of the payload alone) reallocated the buffer and copied the
// payload for each header, three copies of every frame sent, 5 % of the scale run.
struct Outgoing
{
    Ptr<Packet> p;
    InetSocketAddress to;
};
Outgoing FramePacket(const uint8_t* f, size_t len)
{
    Ptr<Packet> p = Create<Packet>(f, static_cast<uint32_t>(len));
    p->RemoveAtStart(WS_OFF_AGG);
    SocketIpTosTag tos;
    tos.SetTos(f[WS_OFF_IP + 1]);
    p->AddPacketTag(tos);
    return {p, InetSocketAddress(Ipv4Address(ws_get32(f + WS_OFF_IP + 16)),
                                 ws_get16(f + WS_OFF_UDP + 2))};
}

void Run::DeviceRecv(unsigned k, Ptr<Socket> s)
{
    Address from, self;
    s->GetSockName(self);
    InetSocketAddress me = InetSocketAddress::ConvertFrom(self);
    Ptr<Packet> p;
    uint8_t tos, ttl;
    while ((p = s->RecvFrom(from)))
    {
        InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
        Ipv4PacketInfoTag info;
        p->RemovePacketTag(info);
        Take(p, buf, tos, ttl);
        unsigned port = dev_routing[k]->PortOf(info.GetRecvIf());
        uint64_t t = ws_cdev_arrive(ws_cjob_dev(job, k), NowPs(), port, a.GetIpv4().Get(),
                                    a.GetPort(),
                                    me.GetIpv4().Get(), me.GetPort(), tos, ttl, buf.data(),
                                    buf.size(), EmitFrame, &dev_ref[k]);
        if (t != WS_CLUSTER_NEVER)
            Simulator::Schedule(AtPs(t), &Run::DeviceService, this, k);
    }
}

// A frame device k sends at `at` on `port`: its packet made now, sent then (FramePacket).
void EmitFrame(void* ctx, uint64_t at, unsigned port, const uint8_t* f, size_t len)
{
    DevRef* d = static_cast<DevRef*>(ctx);
    Outgoing o = FramePacket(f, len);
    Simulator::Schedule(AtPs(at), &Run::DeviceSend, d->r, d->k, port, o.p, o.to);
}

// the RTL's next cycle (model rtl), or the timing model's frames a port of a device of several
// has stored by now, judged (one port: no call)
void Run::DeviceService(unsigned k)
{
    uint64_t t = ws_cdev_service(ws_cjob_dev(job, k), NowPs(), EmitFrame, &dev_ref[k]);
    if (t != WS_CLUSTER_NEVER)
        Simulator::Schedule(AtPs(t), &Run::DeviceService, this, k);
}

void Run::DeviceSend(unsigned k, unsigned port, Ptr<Packet> p, InetSocketAddress to)
{
    TopoRouting& r = *dev_routing[k];
    r.next = port;
    dev_sock[k]->SendTo(p, 0, to);
    r.next = 0;
}

// A frame worker w sends, now (FramePacket)
void WorkerTx(void* ctx, unsigned w, const uint8_t* f, size_t len)
{
    Run* r = static_cast<Run*>(ctx);
    Outgoing o = FramePacket(f, len);
    r->udp[w]->SendTo(o.p, 0, o.to);
}

void CountDrop(uint64_t* n, Ptr<const QueueDiscItem>) { ++*n; }
void CountPacketDrop(uint64_t* n, Ptr<const Packet>) { ++*n; }

// ns-3's defaults for every run: picoseconds, jumbo TCP segments.
void Defaults(const ws_cluster* c)
{
    static bool once;
    if (!once)
    {
        Time::SetResolution(Time::PS);
        once = true;
    }
    // IP MTU minus IPv4 (20), TCP (20) and the timestamp option (12): 8948 at MTU 9000
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(c->topo.mtu - 52));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    // a datacenter's minimum retransmission timeout, not RFC 6298's 1 s (ns-3's default):
    // operators set Linux's rto_min (200 ms by default) to a few ms for incast (1 ms made
    // spurious timeouts here: a ring or halving-doubling step of 512 KB and more)
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(5)));
    // and a delayed ACK that waits less than that (ns-3's default: 200 ms, with Linux's rto_min
    // of 200 ms): a lone segment's ACK held longer than the sender's timeout makes the sender
    // time out, fall back to one segment, and wait again (halving-doubling, 16 workers, 16 MiB:
    // 5.34 s with 200 ms, 61.8 ms with 1 ms)
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(1)));
    WsEcnDefaults(c);
}

// The network of c (cluster/model/topo.h): every node, every link with its rate, delay and MTU,
// the switches (Switch), the hosts' and devices' IP stacks, the addresses (link l: 10.0.0.0 +
// 4l /30: the host or device .1, the switch .2; a device's other ports are interfaces without
// an address: the device has one, its first port's, as the RTL has one) and the routes.
// node_ip[n]: the address of host or device n.
struct Net
{
    NodeContainer nodes;
    std::vector<uint32_t> node_ip;
    std::vector<Ptr<NetDevice>> devs;
    std::vector<Switch> sw;
    double build_s = 0;
};

void Build(const ws_cluster* c, Net& net, Forwarding* fwd)
{
    auto t0 = std::chrono::steady_clock::now();
    const ws_cluster_topo& t = c->topo;
    unsigned H = t.hosts, D = c->n_dev, nodes = ws_topo_nodes(c), links = ws_topo_links(c);
    net.nodes.Create(nodes);
    NodeContainer ends; // hosts and devices: the nodes with an IP stack
    for (unsigned n = 0; n < H + D; n++)
        ends.Add(net.nodes.Get(n));
    InternetStackHelper stack;
    TopoRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(ends);
    net.sw.resize(nodes - H - D);
    for (unsigned k = 0; k < net.sw.size(); k++)
    {
        Switch& s = net.sw[k];
        s.c = c;
        s.sw = k;
        s.node_base = H + D;
        s.fwd = fwd;
    }

    // Every port queues in its point-to-point device's drop-tail queue of `queue` bytes, but a
    // host's: ns-3's default queue disc, FqCoDel (as Linux), over a device queue of 2 packets.
    PointToPointHelper link;
    link.SetQueue("ns3::DropTailQueue", "MaxSize",
                  QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(t.queue_bytes))));
    link.SetDeviceAttribute("Mtu", UintegerValue(t.mtu));
    TrafficControlHelper none;
    net.node_ip.assign(H + D, 0);
    for (unsigned l = 0; l < links; l++)
    {
        unsigned a, b;
        ws_cluster_link props;
        ws_topo_link(c, l, &a, &b, &props);
        link.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(props.rate))));
        link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(props.delay_ns)));
        NetDeviceContainer d = link.Install(net.nodes.Get(a), net.nodes.Get(b));
        net.devs.push_back(d.Get(0));
        net.devs.push_back(d.Get(1));
        for (unsigned e = 0; e < 2; e++)
        {
            unsigned n = e ? b : a;
            if (n < H + D)
                continue;
            Switch& s = net.sw[n - H - D];
            s.ports[l] = {DynamicCast<PointToPointNetDevice>(d.Get(e)),
                          static_cast<uint32_t>(ws_cluster_ecn_bytes(c, t.queue_bytes, props.rate))};
            d.Get(e)->SetReceiveCallback(MakeCallback(&Switch::Receive, &s));
        }
        if (a >= H + D)
            continue;
        Ptr<TopoRouting> r = DynamicCast<TopoRouting>(
            net.nodes.Get(a)->GetObject<Ipv4>()->GetRoutingProtocol());
        if (l >= H + D + t.uplinks)
        {
            // a device's port beyond its first (links in port order): an interface of the same
            // IP stack, with no address and no queue disc (a FIFO, as its first port's)
            Ptr<Ipv4> ip = net.nodes.Get(a)->GetObject<Ipv4>();
            ip->SetUp(ip->AddInterface(d.Get(0)));
            r->ports.push_back({d.Get(0), Ipv4Address(kNet + 4 * l + 2)});
            continue;
        }
        // a host's or a device's first link: its interface, .1 of the link's /30
        Ipv4AddressHelper addr(Ipv4Address(kNet + 4 * l), "255.255.255.252");
        Ipv4InterfaceContainer ifc = addr.Assign(NetDeviceContainer(d.Get(0)));
        if (a < H)
            DynamicCast<PointToPointNetDevice>(d.Get(0))->GetQueue()->SetMaxSize(QueueSize("2p"));
        else
            none.Uninstall(d.Get(0)); // a device's port: the FIFO, no queue disc
        r->own = ifc.GetAddress(0).Get();
        r->ports.insert(r->ports.begin(), {d.Get(0), Ipv4Address(kNet + 4 * l + 2)});
        net.node_ip[a] = r->own;
    }
    net.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

extern "C" int ws_ns3_run(const ws_cluster* c, ws_cluster_mode mode, ws_cluster_result* res,
                          char* err, size_t errlen)
{
    auto wall0 = std::chrono::steady_clock::now();
    Defaults(c);
    // a binary heap: 7 % faster than ns-3's default std::map here (the k = 16 scale run);
    // CalendarScheduler is 27 times slower (its buckets do not suit picosecond times)
    Simulator::SetScheduler(ObjectFactory("ns3::HeapScheduler"));
    Run r;
    r.c = c;
    r.mode = mode;
    Forwarding fwd;
    fwd.up.assign(c->topo.uplinks, ws_cluster_linkstat{});
    Net net;
    Build(c, net, &fwd);
    r.devs = &net.devs;
    unsigned H = c->topo.hosts;

    // network drops: every device queue and every queue disc (the hosts')
    r.port_drops.assign(net.devs.size(), 0);
    for (size_t i = 0; i < net.devs.size(); i++)
    {
        Ptr<NetDevice> d = net.devs[i];
        Ptr<PointToPointNetDevice> p = DynamicCast<PointToPointNetDevice>(d);
        p->GetQueue()->TraceConnectWithoutContext(
            "Drop", MakeBoundCallback(&CountPacketDrop, &r.port_drops[i]));
        Ptr<TrafficControlLayer> tcl = d->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> q = tcl ? tcl->GetRootQueueDiscOnDevice(d) : nullptr;
        if (q)
            q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountDrop, &r.net_drops));
    }

    const uint32_t* host_ip = net.node_ip.data();
    const uint32_t* dev_ip = net.node_ip.data() + H;
    r.job = ws_cjob_new(c, mode, host_ip, dev_ip, WorkerTx, &r, err, errlen);
    if (!r.job)
    {
        Simulator::Destroy();
        return -1;
    }
    unsigned W = c->job.workers;
    r.timer.resize(W);
    r.udp.resize(W);
    r.tx.resize(W);
    for (unsigned w = 0; w < W; w++)
        r.worker_of_ip[host_ip[c->job.host[w]]] = w;
    TypeId udp = UdpSocketFactory::GetTypeId(), tcp = TcpSocketFactory::GetTypeId();
    if (WS_MODE_IS_WIRESUM(mode))
    {
        r.dev_sock.resize(c->n_dev);
        r.dev_routing.resize(c->n_dev);
        r.dev_ref.resize(c->n_dev);
        fwd.dev.assign(c->n_dev, nullptr);
        for (unsigned k = 0; k < c->n_dev; k++)
        {
            r.dev_ref[k] = {&r, k};
            r.dev_routing[k] = DynamicCast<TopoRouting>(
                net.nodes.Get(H + k)->GetObject<Ipv4>()->GetRoutingProtocol());
            if (!(fwd.dev[k] = ws_cjob_dev(r.job, k)))
                continue;
            Ptr<Socket> s = Socket::CreateSocket(net.nodes.Get(H + k), udp);
            s->Bind(InetSocketAddress(Ipv4Address(dev_ip[k]), ws_cjob_dev_port(r.job)));
            s->SetIpRecvTos(true);
            s->SetIpRecvTtl(true);
            s->SetRecvPktInfo(true); // the interface it came in on: its port
            s->SetRecvCallback(MakeCallback(&Run::DeviceRecv, &r).Bind(k));
            r.dev_sock[k] = s;
        }
        for (unsigned w = 0; w < W; w++)
        {
            unsigned h = c->job.host[w];
            r.udp[w] = Socket::CreateSocket(net.nodes.Get(h), udp);
            r.udp[w]->Bind(InetSocketAddress(Ipv4Address(host_ip[h]), WS_CLUSTER_WORKER_PORT));
            r.udp[w]->SetIpRecvTos(true);
            r.udp[w]->SetIpRecvTtl(true);
            r.udp[w]->SetRecvCallback(MakeCallback(&Run::WorkerRecv, &r).Bind(w));
        }
    }
    else
    {
        for (unsigned w = 0; w < W; w++)
        {
            unsigned h = c->job.host[w];
            Ptr<Socket> l = Socket::CreateSocket(net.nodes.Get(h), tcp);
            l->Bind(InetSocketAddress(Ipv4Address(host_ip[h]), kStreamPort));
            l->Listen();
            l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                 MakeCallback(&Run::Accept, &r).Bind(w));
        }
        for (unsigned w = 0; w < W; w++)
        {
            unsigned h = c->job.host[w], peers[WS_CJOB_MAX_PEERS];
            unsigned n = ws_cjob_peers(r.job, w, peers);
            for (unsigned k = 0; k < n; k++)
            {
                Ptr<Socket> s = Socket::CreateSocket(net.nodes.Get(h), tcp);
                s->Bind(InetSocketAddress(Ipv4Address(host_ip[h]), 0));
                // at time 0: the nodes (their traffic control) are initialised when the run starts
                InetSocketAddress to(Ipv4Address(host_ip[c->job.host[peers[k]]]), kStreamPort);
                Simulator::ScheduleNow([s, to]() { s->Connect(to); });
                s->SetSendCallback(MakeCallback(&Run::SendReady, &r).Bind(w, k));
                r.tx[w].push_back(s);
            }
        }
    }
    for (unsigned w = 0; w < W; w++)
        r.timer[w] = Simulator::Schedule(PicoSeconds(kStartPs), &Run::Poll, &r, w);
    std::unique_ptr<WsBackground> bg;
    if (c->bg.on)
    {
        bg.reset(new WsBackground(c, net.nodes, host_ip, kStartPs, [&r]() { r.CheckDone(); }));
        r.bg = bg.get();
        if (bg->Setup(err, errlen))
        {
            ws_cjob_free(r.job);
            Simulator::Destroy();
            return -1;
        }
    }

    Simulator::Stop(Seconds(1000));
    Simulator::Run();
    ws_cjob_result(r.job, res);
    std::copy(fwd.up.begin(), fwd.up.end(), res->uplink);
    res->split_flows = fwd.split;
    if (!res->failed && !ws_cjob_finished(r.job))
    {
        res->failed = 1;
        snprintf(res->error, sizeof res->error, "did not complete in 1000 s of simulated time");
    }
    // the port that dropped most (net.devs 2l + e: link l's end e, the side that sends)
    uint64_t port_sum = 0;
    for (size_t i = 0; i < r.port_drops.size(); i++)
    {
        port_sum += r.port_drops[i];
        if (r.port_drops[i] > res->drop_port_packets)
        {
            res->drop_port_packets = r.port_drops[i];
            res->drop_port_link = static_cast<unsigned>(i / 2);
            res->drop_port_end = static_cast<int>(i & 1);
        }
    }
    res->net_drop_packets = r.net_drops + port_sum + fwd.unmarkable;
    res->build_s = net.build_s;
    res->net_ce_marks = fwd.marks;
    if (r.job_end_ps)
    {
        // the busiest worker's link, either way, from the start to the job's end
        res->job_span_s = static_cast<double>(r.job_end_ps - kStartPs) * 1e-12;
        for (unsigned i = 0; i < r.link_bytes.size(); i++)
            if (r.link_bytes[i] > res->link_bytes)
            {
                res->link_bytes = r.link_bytes[i];
                res->link_host = c->job.host[i / 2];
                res->link_down = i & 1;
            }
    }
    if (bg)
    {
        res->has_bg = 1;
        bg->Result(&res->bg);
        if (!res->failed && !bg->Done())
        {
            res->failed = 1;
            snprintf(res->error, sizeof res->error, "%llu of %llu background flows completed",
                     static_cast<unsigned long long>(res->bg.completed),
                     static_cast<unsigned long long>(res->bg.flows));
        }
    }
    res->events = Simulator::GetEventCount();
    ws_cjob_free(r.job);
    Simulator::Destroy();
    res->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return 0;
}
