/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-flow.h"

#include "aggregation-flow.h"
#include "switchml-header.h"
#include "switchml-worker.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchmlFlow");

std::vector<float>
SwitchmlFlow::Sum(const std::vector<std::vector<float>>& inputs, uint32_t k)
{
    uint32_t n = inputs.size();
    uint64_t elements = n ? inputs[0].size() : 0;
    std::vector<float> out(elements, 0.0f);
    for (uint64_t first = 0; first < elements; first += k)
    {
        uint32_t count = std::min<uint64_t>(k, elements - first);
        int8_t exponent = SwitchmlHeader::NO_EXPONENT;
        for (const auto& in : inputs)
        {
            exponent = std::max(exponent, SwitchmlWorker::BlockExponent(in.data() + first, count));
        }
        double scale = SwitchmlWorker::Scale(exponent, n);
        for (uint32_t i = 0; i < count; ++i)
        {
            // int32 addition as the switch does it (the scale keeps it from wrapping)
            uint32_t sum = 0;
            for (const auto& in : inputs)
            {
                sum += uint32_t(static_cast<int32_t>(std::llround(in[first + i] * scale)));
            }
            out[first + i] = scale > 0 ? float(int32_t(sum) / scale) : 0.0f;
        }
    }
    return out;
}

void
SwitchmlFlow::Start(const Cluster& cluster,
                    const AggregationTree& tree,
                    const Communicator& comm,
                    uint64_t elements,
                    uint32_t k,
                    uint32_t pool,
                    uint8_t tc,
                    const std::vector<std::vector<float>>& inputs,
                    SwitchmlHelper::DoneCallback done)
{
    Ptr<FlowNetwork> network = cluster.flow;
    NS_ASSERT(network && pool > 0 && k > 0 && elements > 0);
    uint32_t n = comm.GetSize();
    // each tree node's links to its parent and back
    std::vector<uint32_t> up(tree.nodes.size()), down(tree.nodes.size());
    for (uint32_t v = 0; v < tree.nodes.size(); ++v)
    {
        const AggregationTree::Node& node = tree.nodes[v];
        if (node.parent == AggregationTree::NO_PARENT)
        {
            continue;
        }
        const AggregationTree::Node& parent = tree.nodes[node.parent];
        up[v] = network->GetLink(cluster.switches[node.switchIndex]->GetPort(node.parentPort));
        for (uint32_t c = 0; c < parent.children.size(); ++c)
        {
            if (parent.children[c] == v)
            {
                down[v] = network->GetLink(
                    cluster.switches[parent.switchIndex]->GetPort(parent.childPorts[c]));
            }
        }
    }
    // every worker's way up to the root and down again
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> place; // rank -> (node, index)
    for (uint32_t v = 0; v < tree.nodes.size(); ++v)
    {
        for (uint32_t i = 0; i < tree.nodes[v].ranks.size(); ++i)
        {
            place[tree.nodes[v].ranks[i]] = {v, i};
        }
    }
    std::vector<FlowLeg> ups, downs;
    std::set<uint32_t> treeLinks;
    for (uint32_t rank : comm.ranks)
    {
        auto [v, i] = place.at(rank);
        const AggregationTree::Node& node = tree.nodes[v];
        std::vector<uint32_t> upLinks{network->GetLink(cluster.endpoints[rank]->GetDevice())};
        std::vector<uint32_t> downLinks{
            network->GetLink(cluster.switches[node.switchIndex]->GetPort(node.rankPorts[i]))};
        for (uint32_t w = v; tree.nodes[w].parent != AggregationTree::NO_PARENT;
             w = tree.nodes[w].parent)
        {
            upLinks.push_back(up[w]);
            downLinks.insert(downLinks.begin(), down[w]);
        }
        FlowUses upUses, downUses;
        for (uint32_t link : upLinks)
        {
            upUses.emplace_back(link, 1.0);
        }
        for (uint32_t link : downLinks)
        {
            downUses.emplace_back(link, 1.0);
        }
        ups.push_back(LegOver(*network, upUses));
        downs.push_back(LegOver(*network, downUses));
        for (uint32_t link : upLinks)
        {
            treeLinks.insert(link);
        }
        for (uint32_t link : downLinks)
        {
            treeLinks.insert(link);
        }
    }
    // one copy of the stream on each link of the tree (a switch sends its rack's sum up once)
    FlowUses uses;
    for (uint32_t link : treeLinks)
    {
        uses.emplace_back(link, 1.0);
    }
    // a round of packets of x bytes: the last contribution reaches the root,
    // the result comes down to the farthest worker
    auto roundTrip = [&ups, &downs](double x, bool serialised)
    {
        double upTime = 0;
        double downTime = 0;
        for (std::size_t w = 0; w < ups.size(); ++w)
        {
            upTime = std::max(upTime, serialised ? ups[w].Time(x) : ups[w].Latency(x));
            downTime = std::max(downTime, downs[w].Time(x));
        }
        return upTime + downTime;
    };

    const double header = SwitchmlHeader::SERIALIZED_SIZE + FabricHeader::SERIALIZED_SIZE;
    const double full = 4.0 * k + header;
    uint64_t chunks = (elements + k - 1) / k;
    uint64_t rounds = (chunks + pool - 1) / pool;
    uint64_t lastChunks = chunks - (rounds - 1) * pool;
    double lastBytes = 4.0 * (elements - (rounds - 1) * pool * k) + header * lastChunks;
    double dataBytes = 4.0 * elements + header * chunks;

    std::vector<FlowStage> stages(3);
    for (auto& s : stages)
    {
        s.spec.uses = uses;
        s.spec.priority = tc;
    }
    // round 0: every slot's exponent probe
    stages[0].spec.bytes = header * pool;
    // the data, from the first probe's result on, one window per round trip
    stages[1].spec.bytes = dataBytes - lastBytes;
    stages[1].spec.cap = pool * full / roundTrip(full, true);
    stages[1].notBefore = roundTrip(header, true);
    // the last round: nothing left to wait for before sending it
    stages[2].spec.bytes = lastBytes;
    stages[2].notBefore = stages[1].notBefore;
    // ... and its packets come back: the last chunk's (it may be short) or a
    // full one sent just before it, whose store and forward takes longer
    double shortest = 4.0 * (elements - (chunks - 1) * k) + header;
    stages[2].after = roundTrip(shortest, false);
    if (lastChunks > 1)
    {
        double slowest = ups[0].first;
        for (const auto& leg : ups)
        {
            slowest = std::min(slowest, leg.first);
        }
        stages[2].after = std::max(stages[2].after, roundTrip(full, false) - shortest / slowest);
    }

    auto record = std::make_shared<SwitchmlJobRecord>();
    record->start = Simulator::Now();
    record->workers.resize(n);
    std::vector<float> sum;
    if (!inputs.empty())
    {
        sum = Sum(inputs, k);
    }
    for (auto& w : record->workers)
    {
        w.start = record->start;
        w.packetsSent = pool + chunks;
        w.bytesUp = 4 * elements;
        w.bytesDown = 4 * elements;
        w.output = sum;
    }
    NS_LOG_INFO("switchml at flow level: " << n << " workers, " << chunks << " chunks, pool "
                                           << pool << ", window cap " << stages[1].spec.cap
                                           << " B/s, round trip " << roundTrip(full, true) << " s");
    RunFlowStages(network,
                  std::move(stages),
                  [record, done]()
                  {
                      record->end = Simulator::Now();
                      for (auto& w : record->workers)
                      {
                          w.end = record->end;
                      }
                      if (!done.IsNull())
                      {
                          done(*record);
                      }
                  });
}

} // namespace ns3
