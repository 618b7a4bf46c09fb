// net.cc - the ns-3 layer of `wiresum cluster`: the network of a cluster file and the sockets of
// its workers and devices (ns3_run.h). Everything else is C (host/cluster_*.c): this file only
// builds nodes and links, moves payloads between sockets and the C code, and keeps the time
// (picoseconds, the unit of every C call).
#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/point-to-point-module.h>
#include <ns3/traffic-control-module.h>

#include <chrono>
#include <cstdio>
#include <vector>

extern "C" {
#include "ns3_run.h"
}

using namespace ns3;

namespace
{

const uint16_t kRingPort = 50000;
const uint64_t kStartPs = 100000000; // 100 us: TCP connections are up before the first start

uint64_t NowPs() { return static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()); }

Time AtPs(uint64_t t)
{
    uint64_t now = NowPs();
    return PicoSeconds(static_cast<int64_t>(t > now ? t - now : 0));
}

// One run: the nodes, the sockets, the C job.
struct Run
{
    const ws_cluster* c;
    ws_cluster_mode mode;
    ws_cjob* job = nullptr;
    std::vector<Ptr<Socket>> udp;      // wiresum: worker w's socket
    std::vector<Ptr<Socket>> ring_tx;  // ring: worker w -> its successor
    std::vector<EventId> timer;
    Ptr<Socket> dev_sock;
    std::vector<uint8_t> buf;
    uint64_t net_drops = 0;
    std::vector<uint32_t> worker_ip; // worker w's host's address

    void Reschedule(unsigned w);
    void Poll(unsigned w);
    void Send(unsigned w);
    void SendReady(unsigned w, Ptr<Socket>, uint32_t) { Send(w); }
    void CheckDone();
    void WorkerRecv(unsigned w, Ptr<Socket> s);
    void DeviceRecv(Ptr<Socket> s);
    void DeviceService();
    void DeviceSend(std::vector<uint8_t> frame);
    void RingRecv(unsigned w, Ptr<Socket> s);
    void RingAccept(Ptr<Socket> s, const Address& from);
};

void Run::CheckDone()
{
    if (ws_cjob_finished(job))
        Simulator::Stop();
}

void Run::Reschedule(unsigned w)
{
    timer[w].Cancel();
    uint64_t d = ws_cjob_deadline(job, w);
    if (d != WS_CLUSTER_NEVER)
        timer[w] = Simulator::Schedule(AtPs(d), &Run::Poll, this, w);
}

void Run::Poll(unsigned w)
{
    ws_cjob_poll(job, w, NowPs());
    if (mode == WS_MODE_RING)
        Send(w);
    Reschedule(w);
    CheckDone();
}

// ring: as much of worker w's pending stream as its TCP socket takes now
void Run::Send(unsigned w)
{
    Ptr<Socket> s = ring_tx[w];
    const uint8_t* data;
    size_t n;
    while ((n = ws_cjob_stream_pending(job, w, &data)) > 0)
    {
        uint32_t room = s->GetTxAvailable();
        if (room == 0)
            return;
        uint32_t k = static_cast<uint32_t>(std::min<size_t>(n, std::min<uint32_t>(room, 65536)));
        int sent = s->Send(Create<Packet>(data, k));
        if (sent <= 0)
            return;
        ws_cjob_stream_sent(job, w, static_cast<size_t>(sent));
    }
}

void Run::RingRecv(unsigned w, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        buf.resize(p->GetSize());
        p->CopyData(buf.data(), p->GetSize());
        ws_cjob_stream_rx(job, w, buf.data(), buf.size(), NowPs());
    }
    Send(w);
    Reschedule(w);
    CheckDone();
}

void Run::RingAccept(Ptr<Socket> s, const Address& from)
{
    // the predecessor's connection: the worker on this node receives it
    uint32_t ip = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    unsigned pred = 0;
    for (unsigned w = 0; w < c->job.workers; w++)
        if (worker_ip[w] == ip)
            pred = w;
    unsigned self = (pred + 1) % c->job.workers;
    s->SetRecvCallback(MakeCallback(&Run::RingRecv, this).Bind(self));
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

void Run::DeviceRecv(Ptr<Socket> s)
{
    Address from, self;
    s->GetSockName(self);
    InetSocketAddress me = InetSocketAddress::ConvertFrom(self);
    Ptr<Packet> p;
    uint8_t tos, ttl;
    while ((p = s->RecvFrom(from)))
    {
        InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
        Take(p, buf, tos, ttl);
        uint64_t t = ws_cdev_arrive(ws_cjob_dev(job), NowPs(), a.GetIpv4().Get(), a.GetPort(),
                                    me.GetIpv4().Get(), me.GetPort(), tos, ttl, buf.data(),
                                    buf.size());
        if (t != WS_CLUSTER_NEVER)
            Simulator::Schedule(AtPs(t), &Run::DeviceService, this);
    }
}

void EmitFrame(void* ctx, uint64_t at, const uint8_t* f, size_t len)
{
    Run* r = static_cast<Run*>(ctx);
    Simulator::Schedule(AtPs(at), &Run::DeviceSend, r, std::vector<uint8_t>(f, f + len));
}

void Run::DeviceService()
{
    uint64_t t = ws_cdev_service(ws_cjob_dev(job), NowPs(), EmitFrame, this);
    if (t != WS_CLUSTER_NEVER)
        Simulator::Schedule(AtPs(t), &Run::DeviceService, this);
}

// A frame the device sends: its UDP payload to the frame's destination, with its TOS.
void Run::DeviceSend(std::vector<uint8_t> f)
{
    const size_t kAgg = 42, kIp = 14;
    uint32_t dip = static_cast<uint32_t>(f[kIp + 16]) << 24 | f[kIp + 17] << 16 |
                   f[kIp + 18] << 8 | f[kIp + 19];
    uint16_t dport = static_cast<uint16_t>(f[kIp + 22] << 8 | f[kIp + 23]);
    Ptr<Packet> p = Create<Packet>(f.data() + kAgg, f.size() - kAgg);
    SocketIpTosTag tos;
    tos.SetTos(f[kIp + 1]);
    p->AddPacketTag(tos);
    dev_sock->SendTo(p, 0, InetSocketAddress(Ipv4Address(dip), dport));
}

void WorkerTx(void* ctx, unsigned w, uint32_t dip, uint16_t dport, uint8_t tos,
              const uint8_t* payload, size_t plen)
{
    Run* r = static_cast<Run*>(ctx);
    Ptr<Packet> p = Create<Packet>(payload, static_cast<uint32_t>(plen));
    SocketIpTosTag t;
    t.SetTos(tos);
    p->AddPacketTag(t);
    r->udp[w]->SendTo(p, 0, InetSocketAddress(Ipv4Address(dip), dport));
}

void CountDrop(uint64_t* n, Ptr<const QueueDiscItem>) { ++*n; }
void CountPacketDrop(uint64_t* n, Ptr<const Packet>) { ++*n; }

// ns-3's defaults for every run: picoseconds, jumbo TCP segments, per-flow ECMP.
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
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
}

} // namespace

extern "C" int ws_ns3_run(const ws_cluster* c, ws_cluster_mode mode, ws_cluster_result* res,
                          char* err, size_t errlen)
{
    auto wall0 = std::chrono::steady_clock::now();
    Defaults(c);
    Run r;
    r.c = c;
    r.mode = mode;
    const ws_cluster_topo& t = c->topo;

    // the rack: hosts and devices on point-to-point links to the ToR, an IPv4 router
    NodeContainer hosts, tor, devs;
    hosts.Create(t.hosts);
    tor.Create(1);
    devs.Create(c->n_dev);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper link;
    link.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("2p")); // the queue disc queues
    TrafficControlHelper tc;
    tc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES,
                                                 static_cast<uint32_t>(t.queue_bytes))));
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<uint32_t> host_ip(t.hosts);
    std::vector<Ptr<NetDevice>> all;
    auto connect = [&](Ptr<Node> n, const ws_cluster_link& l) {
        DataRate rate(static_cast<uint64_t>(l.rate));
        link.SetDeviceAttribute("DataRate", DataRateValue(rate));
        link.SetDeviceAttribute("Mtu", UintegerValue(t.mtu));
        link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(l.delay_ns)));
        NetDeviceContainer d = link.Install(n, tor.Get(0));
        tc.Install(d.Get(1)); // the switch's port
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        addr.NewNetwork();
        all.push_back(d.Get(0));
        all.push_back(d.Get(1));
        return ifc.GetAddress(0).Get();
    };
    for (unsigned h = 0; h < t.hosts; h++)
        host_ip[h] = connect(hosts.Get(h), t.host_link);
    std::vector<uint32_t> dev_ip(c->n_dev);
    for (unsigned k = 0; k < c->n_dev; k++)
        dev_ip[k] = connect(devs.Get(k), c->dev[k].link);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // network drops: the switch's queue discs and every device queue
    for (auto& d : all)
    {
        Ptr<PointToPointNetDevice> p = DynamicCast<PointToPointNetDevice>(d);
        p->GetQueue()->TraceConnectWithoutContext("Drop",
                                                  MakeBoundCallback(&CountPacketDrop, &r.net_drops));
        Ptr<TrafficControlLayer> tcl = d->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> q = tcl->GetRootQueueDiscOnDevice(d);
        if (q)
            q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountDrop, &r.net_drops));
    }

    int dev = c->job.device;
    r.job = ws_cjob_new(c, mode, host_ip.data(), dev >= 0 ? dev_ip[dev] : 0, WorkerTx, &r, err,
                        errlen);
    if (!r.job)
    {
        Simulator::Destroy();
        return -1;
    }
    unsigned W = c->job.workers;
    r.timer.resize(W);
    r.udp.resize(W);
    r.ring_tx.resize(W);
    for (unsigned w = 0; w < W; w++)
        r.worker_ip.push_back(host_ip[c->job.host[w]]);
    TypeId udp = UdpSocketFactory::GetTypeId(), tcp = TcpSocketFactory::GetTypeId();
    if (mode == WS_MODE_WIRESUM)
    {
        r.dev_sock = Socket::CreateSocket(devs.Get(dev), udp);
        r.dev_sock->Bind(InetSocketAddress(Ipv4Address(dev_ip[dev]), ws_cjob_dev_port(r.job)));
        r.dev_sock->SetIpRecvTos(true);
        r.dev_sock->SetIpRecvTtl(true);
        r.dev_sock->SetRecvCallback(MakeCallback(&Run::DeviceRecv, &r));
        for (unsigned w = 0; w < W; w++)
        {
            unsigned h = c->job.host[w];
            r.udp[w] = Socket::CreateSocket(hosts.Get(h), udp);
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
            Ptr<Socket> l = Socket::CreateSocket(hosts.Get(h), tcp);
            l->Bind(InetSocketAddress(Ipv4Address(host_ip[h]), kRingPort));
            l->Listen();
            l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                 MakeCallback(&Run::RingAccept, &r));
        }
        for (unsigned w = 0; w < W; w++)
        {
            unsigned h = c->job.host[w], succ = c->job.host[(w + 1) % W];
            r.ring_tx[w] = Socket::CreateSocket(hosts.Get(h), tcp);
            r.ring_tx[w]->Bind(InetSocketAddress(Ipv4Address(host_ip[h]), 0));
            // at time 0: the nodes (their traffic control) are initialised when the run starts
            Ptr<Socket> s = r.ring_tx[w];
            InetSocketAddress to(Ipv4Address(host_ip[succ]), kRingPort);
            Simulator::ScheduleNow([s, to]() { s->Connect(to); });
            r.ring_tx[w]->SetSendCallback(MakeCallback(&Run::SendReady, &r).Bind(w));
        }
    }
    for (unsigned w = 0; w < W; w++)
        r.timer[w] = Simulator::Schedule(PicoSeconds(kStartPs), &Run::Poll, &r, w);

    Simulator::Stop(Seconds(1000));
    Simulator::Run();
    ws_cjob_result(r.job, res);
    if (!res->failed && !ws_cjob_finished(r.job))
    {
        res->failed = 1;
        snprintf(res->error, sizeof res->error, "did not complete in 1000 s of simulated time");
    }
    res->net_drop_packets = r.net_drops;
    ws_cjob_free(r.job);
    Simulator::Destroy();
    res->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return 0;
}
