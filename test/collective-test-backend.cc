/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A collective backend that exists only in the test-runner: a new algorithm
// is one file and its registration (doc/dlnet.rst, "Adding a collective
// backend", quotes this file). "gather-broadcast" all-reduce: every member
// sends its buffer to communicator index 0, which sums them and sends the
// result back to each member. Its suite, dlnet-collective-test-backend,
// runs it by name through RunCollective.

#include "ns3/dlnet-module.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GatherBroadcastBackend");

/**
 * \ingroup dlnet-tests
 * \brief All-reduce through a root: n-1 buffers in, n-1 results out.
 */
class GatherBroadcastBackend : public CollectiveBackend
{
public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::GatherBroadcastBackend")
                                .SetParent<CollectiveBackend>()
                                .SetGroupName("Dlnet")
                                .AddConstructor<GatherBroadcastBackend>();
        return tid;
    }

    std::string GetName() const override
    {
        return "gather-broadcast";
    }

    bool Implements(CollectiveOp op) const override
    {
        return op == CollectiveOp::ALL_REDUCE;
    }

    void Validate(const CollectiveRequest& request,
                  const Topology& topology,
                  const Communicator& comm) const override
    {
        CollectiveBackend::Validate(request, topology, comm); // op, topology, group
        request.Validate(comm.GetSize());                     // bytes, element size
    }

    /// The root's link carries n-1 buffers in, then n-1 buffers out.
    double Bound(const CollectiveRequest& request,
                 const Communicator& comm,
                 const NetworkModel& model) const override
    {
        double n = comm.GetSize();
        return n < 2 ? 0 : 2 * (model.alpha + (n - 1) * request.bytes / model.bandwidth);
    }

    /// Two phases for the shared-link estimate: everyone to the root, the root to everyone.
    std::vector<LinkPhase> Phases(const CollectiveRequest& request,
                                  const Communicator& comm) const override
    {
        LinkPhase gather;
        LinkPhase broadcast;
        for (uint32_t i = 1; i < comm.GetSize(); ++i)
        {
            gather.messages.push_back({comm.ranks[i], comm.ranks[0], request.bytes});
            broadcast.messages.push_back({comm.ranks[0], comm.ranks[i], request.bytes});
        }
        return {gather, broadcast};
    }

    void Start(const Cluster& cluster,
               const Topology& topology,
               const Communicator& comm,
               CollectiveRequest request,
               DoneCallback done) override
    {
        Validate(request, topology, comm);
        uint32_t n = comm.GetSize();
        m_comm = comm;
        m_request = std::move(request);
        m_done = done;
        m_endpoints.clear();
        for (uint32_t rank : comm.ranks)
        {
            m_endpoints.push_back(cluster.endpoints[rank]);
            m_endpoints.back()->SetReceiveCallback(
                MakeCallback(&GatherBroadcastBackend::Receive, this));
        }
        m_record = CollectiveRecord();
        m_record.communicator = comm.name;
        m_record.op = m_request.op;
        m_record.algorithm = GetName();
        m_record.bytes = m_request.bytes;
        m_record.start = Simulator::Now();
        m_record.bytesSent.assign(n, 0);
        m_record.bytesReceived.assign(n, 0);
        m_arrived = 0;
        bool functional = !m_request.inputs.empty();
        if (functional)
        {
            m_record.outputs.assign(n, {});
            m_record.outputs[0] = std::move(m_request.inputs[0]); // the root's sum starts here
        }
        for (uint32_t i = 1; i < n; ++i)
        {
            FabricPayload data;
            if (functional)
            {
                data = std::make_shared<const std::vector<uint8_t>>(std::move(m_request.inputs[i]));
            }
            Send(i, 0, data);
        }
        if (n == 1)
        {
            Simulator::ScheduleNow(&GatherBroadcastBackend::Finish, this);
        }
    }

private:
    void Send(uint32_t from, uint32_t to, FabricPayload data)
    {
        m_endpoints[from]->Send(m_comm.ranks[to], m_request.bytes, m_comm.tc, {}, data);
        m_record.bytesSent[from] += m_request.bytes;
        ++m_record.messages;
    }

    void Receive(const FabricMessage& message)
    {
        uint32_t n = m_comm.GetSize();
        uint32_t index = 0;
        while (m_comm.ranks[index] != message.dst)
        {
            ++index;
        }
        m_record.bytesReceived[index] += message.bytes;
        ++m_arrived;
        if (index == 0) // a member's buffer at the root
        {
            if (message.data)
            {
                ReduceSum(m_request.type,
                          m_record.outputs[0].data(),
                          message.data->data(),
                          m_request.bytes);
            }
            if (m_arrived == n - 1) // all in: send the sum to everyone
            {
                FabricPayload sum;
                if (message.data)
                {
                    sum = std::make_shared<const std::vector<uint8_t>>(m_record.outputs[0]);
                }
                for (uint32_t i = 1; i < n; ++i)
                {
                    Send(0, i, sum);
                }
            }
            return;
        }
        if (message.data) // the result at a member
        {
            m_record.outputs[index] = *message.data;
        }
        if (m_arrived == 2 * (n - 1))
        {
            Finish();
        }
    }

    void Finish()
    {
        for (auto& ep : m_endpoints)
        {
            ep->SetReceiveCallback(FabricEndpoint::MessageCallback());
        }
        m_endpoints.clear();
        m_record.end = Simulator::Now();
        m_done(m_record);
    }

    Communicator m_comm;
    CollectiveRequest m_request;
    DoneCallback m_done;
    std::vector<Ptr<FabricEndpoint>> m_endpoints; //!< by communicator index
    CollectiveRecord m_record;
    uint32_t m_arrived{0}; //!< messages delivered so far
};

NS_OBJECT_ENSURE_REGISTERED(GatherBroadcastBackend);

namespace
{
// The registration: the name users write (--algorithm=gather-broadcast), its
// place in listings, one line of help, the experiment options it takes
// (none), how to make one, and that it does not aggregate in the network
// (so auto may choose it).
const bool g_registered = CollectiveRegistry::Add(
    {"gather-broadcast",
     1000,
     "all-reduce through communicator index 0 (a test backend)",
     {},
     []()
     {
         return Ptr<CollectiveBackend>(CreateObject<GatherBroadcastBackend>());
     },
     false});
} // namespace

} // namespace ns3
