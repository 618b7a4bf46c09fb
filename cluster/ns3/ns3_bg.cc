// ns3_bg.cc - DCTCP and the background TCP flows of the ns-3 layer (ns3_bg.h).
#include "ns3_bg.h"

using namespace ns3;

namespace
{
const uint16_t kBgPort = 60000;

uint64_t NowPs() { return static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()); }

} // namespace

void WsEcnDefaults(const ws_cluster* c)
{
    if (!c->topo.ecn_bytes)
        return;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
    // every segment acknowledged: DCTCP's windows of one or two jumbo segments would otherwise
    // wait for the 200 ms delayed-ACK timer (measured: a ring step stalled 200 ms)
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
}

WsBackground::WsBackground(const ws_cluster* c, NodeContainer nodes, const uint32_t* host_ip,
                           uint64_t start_ps, std::function<void()> on_done)
    : c_(c), hosts_(nodes), ip_(host_ip, host_ip + c->topo.hosts), start_ps_(start_ps),
      on_done_(std::move(on_done))
{
}

WsBackground::~WsBackground() { ws_bg_free(g_); }

int WsBackground::Setup(char* err, size_t errlen)
{
    g_ = ws_bg_new(c_, start_ps_, err, errlen);
    if (!g_)
        return -1;
    TypeId tcp = TcpSocketFactory::GetTypeId();
    for (unsigned h = 0; h < c_->topo.hosts; h++)
    {
        Ptr<Socket> l = Socket::CreateSocket(hosts_.Get(h), tcp);
        l->Bind(InetSocketAddress(Ipv4Address(ip_[h]), kBgPort));
        l->Listen();
        l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&WsBackground::Accept, this));
    }
    size_t n = ws_bg_count(g_);
    left_.resize(n);
    for (size_t i = 0; i < n; i++)
    {
        const ws_bg_flow* f = ws_bg_flow_at(g_, i);
        left_[i] = f->bytes;
        Simulator::Schedule(PicoSeconds(static_cast<int64_t>(f->start_ps)), &WsBackground::Start,
                            this, i);
    }
    return 0;
}

bool WsBackground::Done() const { return ws_bg_done(g_); }

void WsBackground::Result(ws_bg_result* r) const { ws_bg_result_get(g_, r); }

void WsBackground::Start(size_t i)
{
    const ws_bg_flow* f = ws_bg_flow_at(g_, i);
    Ptr<Socket> s = Socket::CreateSocket(hosts_.Get(f->src), TcpSocketFactory::GetTypeId());
    s->Bind(InetSocketAddress(Ipv4Address(ip_[f->src]), 0));
    Address self;
    s->GetSockName(self);
    by_src_[{ip_[f->src], InetSocketAddress::ConvertFrom(self).GetPort()}] = i;
    s->SetSendCallback(MakeCallback(&WsBackground::SendMore, this).Bind(i));
    s->Connect(InetSocketAddress(Ipv4Address(ip_[f->dst]), kBgPort));
    SendMore(i, s, 0);
}

// as much of flow i as its socket takes now; closed once all of it is handed over
void WsBackground::SendMore(size_t i, Ptr<Socket> s, uint32_t)
{
    while (left_[i] > 0)
    {
        uint32_t room = s->GetTxAvailable();
        if (room == 0)
            return;
        uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(left_[i], std::min(room, 65536u)));
        int sent = s->Send(Create<Packet>(k));
        if (sent <= 0)
            return;
        left_[i] -= static_cast<uint64_t>(sent);
        if (left_[i] == 0)
            s->Close();
    }
}

void WsBackground::Accept(Ptr<Socket> s, const Address& from)
{
    InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
    auto it = by_src_.find({a.GetIpv4().Get(), a.GetPort()});
    if (it == by_src_.end())
        return; // not a background flow's
    s->SetRecvCallback(MakeCallback(&WsBackground::Recv, this).Bind(it->second));
    by_src_.erase(it);
}

void WsBackground::Recv(size_t i, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
        ws_bg_rx(g_, i, p->GetSize(), NowPs());
    if (ws_bg_flow_at(g_, i)->done_ps)
        s->Close();
    if (ws_bg_done(g_))
        on_done_();
}
