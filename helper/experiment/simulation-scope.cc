/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simulation-scope.h"

#include "ns3/collective-backend.h"
#include "ns3/config-parse.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/fabric-net-device.h"
#include "ns3/flow-network.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/scheduler.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/time-resolution.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SimulationScope");

namespace
{

bool g_armed{false}; //!< a scope is open and running: the hook and the time limit apply
/// The open scope's ns-3 time attributes set above zero ("ns3::Type::Attribute"): a run
/// can overrun the clock by its latencies as well as by its rates
std::vector<std::string> g_timeAttributes;

/// Read all of a text as one number: false on anything left over.
template <typename T>
bool
ReadNumber(const std::string& text, T& value)
{
    std::istringstream in(text);
    in >> value;
    return !in.fail() && in.eof() && !text.empty() && !std::isspace(text.front());
}

/**
 * The value of an attribute default from its text; nullptr when it does not
 * read. ns-3's own text readers abort on some bad texts (trailing characters
 * after a number, an unknown time unit or enum name), so the texts of the
 * kinds taken here are read or checked first, and other kinds are refused.
 */
Ptr<AttributeValue>
AttributeFromText(const std::string& name,
                  const TypeId::AttributeInformation& info,
                  const std::string& text)
{
    Ptr<const AttributeChecker> checker = info.checker;
    std::string kind = checker->GetValueTypeName();
    if (kind == "ns3::TimeValue")
    {
        return checker->CreateValidValue(TimeValue(dlnet::ParseTime(name, text)));
    }
    if (kind == "ns3::DataRateValue")
    {
        return checker->CreateValidValue(DataRateValue(dlnet::ParseRate(name, text)));
    }
    if (kind == "ns3::UintegerValue")
    {
        uint64_t v = 0;
        return ReadNumber(text, v) && text.front() != '-'
                   ? checker->CreateValidValue(UintegerValue(v))
                   : nullptr;
    }
    if (kind == "ns3::IntegerValue")
    {
        int64_t v = 0;
        return ReadNumber(text, v) ? checker->CreateValidValue(IntegerValue(v)) : nullptr;
    }
    if (kind == "ns3::DoubleValue")
    {
        double v = 0;
        return ReadNumber(text, v) ? checker->CreateValidValue(DoubleValue(v)) : nullptr;
    }
    if (kind == "ns3::EnumValue")
    {
        std::string names = "|" + checker->GetUnderlyingTypeInformation() + "|";
        if (text.empty() || text.find('|') != std::string::npos
            || names.find("|" + text + "|") == std::string::npos)
        {
            return nullptr;
        }
        return checker->CreateValidValue(StringValue(text));
    }
    // (ns-3.37 names the boolean checker's kind without the namespace)
    if (kind == "ns3::BooleanValue" || kind == "BooleanValue" || kind == "ns3::StringValue")
    {
        return checker->CreateValidValue(StringValue(text));
    }
    throw std::invalid_argument(name + ": an attribute of kind " + kind
                                + " cannot be set from text here");
}

/**
 * The simulator's scheduler (the SchedulerType global's) with a wall-clock
 * check between events: every event goes through RemoveNext, so a check
 * there costs no simulated event and changes no result.
 */
class InterruptScheduler : public Scheduler
{
public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::DlnetInterruptScheduler")
                                .SetParent<Scheduler>()
                                .SetGroupName("Dlnet")
                                .AddConstructor<InterruptScheduler>();
        return tid;
    }

    InterruptScheduler()
        : m_limit(Seconds(dlnet::MAX_TIME_SECONDS).GetTimeStep())
    {
        TypeIdValue type;
        GlobalValue::GetValueByName("SchedulerType", type);
        ObjectFactory factory;
        factory.SetTypeId(type.Get());
        m_inner = factory.Create<Scheduler>();
    }

    void Insert(const Event& ev) override
    {
        m_inner->Insert(ev);
    }

    bool IsEmpty() const override
    {
        return m_inner->IsEmpty();
    }

    Event PeekNext() const override
    {
        return m_inner->PeekNext();
    }

    Event RemoveNext() override
    {
        if (++m_events % 64 == 0 && g_armed)
        {
            try
            {
                dlnet::PollInterrupt();
            }
            catch (const SimulationInterrupted&)
            {
                g_armed = false; // the scope's clean-up empties the queue unchecked
                throw;
            }
        }
        Event next = m_inner->RemoveNext();
        if (next.key.m_ts > m_limit && g_armed)
        {
            m_inner->Insert(next); // the scope's clean-up releases it with the others
            g_armed = false;
            throw SimulatedTimeLimit();
        }
        return next;
    }

    void Remove(const Event& ev) override
    {
        m_inner->Remove(ev);
    }

private:
    Ptr<Scheduler> m_inner;
    uint64_t m_events{0};
    uint64_t m_limit; //!< dlnet::MAX_TIME_SECONDS in the time resolution's steps
};

NS_OBJECT_ENSURE_REGISTERED(InterruptScheduler);

} // namespace

namespace
{
/// The options of the program whose command line was read; unset in Python, whose run_*
/// take every option of their config
std::optional<std::vector<std::string>> g_programOptions;

/// Those of candidates the program in hand has, as text; fallback without a program in hand
/// (Python) and "" when it has none of them.
std::string
ProgramOptionsText(const std::vector<std::string>& candidates, const std::string& fallback)
{
    if (!g_programOptions)
    {
        return fallback;
    }
    std::string text;
    for (const std::string& name : candidates)
    {
        if (std::find(g_programOptions->begin(), g_programOptions->end(), name)
            != g_programOptions->end())
        {
            text += (text.empty() ? "" : ", ") + name;
        }
    }
    return text;
}

} // namespace

SimulatedTimeLimit::SimulatedTimeLimit()
    : std::invalid_argument(
        SimulationScope::ClockField(g_timeAttributes) + ": the simulation reached "
        + dlnet::TimeText(dlnet::MAX_TIME_SECONDS)
        + " of simulated time, the most a run may simulate, before it "
          "finished; "
        + SimulationScope::ClockAdvice(g_timeAttributes, SimulationScope::RateOptions()))
{
}

namespace
{
/// Whether the program in hand has the option that sets an attribute.
enum class OptionPresence
{
    PRESENT, //!< the run's own options include it
    ABSENT,  //!< the program sets the attribute itself, with no option of that name
    UNKNOWN  //!< NS_ATTRIBUTE_DEFAULT before a command line was read: no one program in hand
};

/// What a program in hand says of option; otherwise fallback.
OptionPresence
PresenceOf(const std::vector<std::string>* programOptions,
           const std::string& option,
           OptionPresence fallback)
{
    if (!programOptions && g_programOptions)
    {
        programOptions = &*g_programOptions;
    }
    if (!programOptions)
    {
        return fallback;
    }
    return std::find(programOptions->begin(), programOptions->end(), option)
                   != programOptions->end()
               ? OptionPresence::PRESENT
               : OptionPresence::ABSENT;
}

void
RefuseSetByOptions(const Ns3Attributes& attributes,
                   const std::vector<std::pair<std::string, std::string>>& setByOptions,
                   bool withEnvironment,
                   const std::vector<std::string>* programOptions,
                   OptionPresence fallback)
{
    for (const auto& [name, value] :
         withEnvironment ? WithEnvironmentNs3Attributes(attributes) : attributes)
    {
        for (const auto& [path, option] : setByOptions)
        {
            if (path != name)
            {
                continue;
            }
            const std::string shown = dlnet::PrintableText(name);
            switch (PresenceOf(programOptions, option, fallback))
            {
                case OptionPresence::PRESENT:
                    throw std::invalid_argument(shown
                                                + ": dlnet sets it on every object from its "
                                                  "option '"
                                                + option
                                                + "' (a default would be overwritten); use "
                                                + option + " instead");
                case OptionPresence::ABSENT:
                    // the program may set it from an option of another name (fred-vs-mesh's
                    // payload-bytes sets the MTU)
                    throw std::invalid_argument(
                        shown
                        + ": dlnet sets it on every object (a default would "
                          "be overwritten); this run sets it itself (it "
                          "has no option '"
                        + option + "', which others take)");
                case OptionPresence::UNKNOWN:
                    throw std::invalid_argument(shown
                                                + ": dlnet sets it on every object from its "
                                                  "option '"
                                                + option
                                                + "' where a program has that option, and itself "
                                                  "where not (a default would be overwritten); use "
                                                + option + " instead where it applies");
            }
        }
    }
}
} // namespace

void
SetProgramOptions(const std::vector<std::string>& names)
{
    g_programOptions = names;
    FlowNetwork::SetRateOptions(
        SimulationScope::RateOptions()); // (its clock refusal names them too)
}

void
ClearProgramOptions()
{
    g_programOptions.reset();
    FlowNetwork::SetRateOptions("");
}

void
RefuseSetByOptions(const Ns3Attributes& attributes,
                   const std::vector<std::pair<std::string, std::string>>& setByOptions,
                   bool withEnvironment)
{
    RefuseSetByOptions(attributes, setByOptions, withEnvironment, nullptr, OptionPresence::PRESENT);
}

void
CheckNs3Attribute(const std::string& name,
                  const std::string& value,
                  const std::vector<std::string>* programOptions)
{
    // the names and values as typed go into messages: control bytes escaped, a NUL shown
    const std::string shown = dlnet::PrintableText(name);
    std::string::size_type pos = name.rfind("::");
    if (name.rfind("ns3::", 0) != 0 || pos == std::string::npos || pos < 5)
    {
        throw std::invalid_argument(shown + ": expected an ns-3 attribute as ns3::Type::Attribute");
    }
    std::string typeName = name.substr(0, pos);
    std::string attribute = name.substr(pos + 2);
    // Attributes the topology builders, the backends and the engine's requests set on
    // every object from dlnet's own options: a default would be overwritten, silently.
    static const std::vector<std::pair<std::string, std::string>> setByOptions = {
        {"ns3::FabricNetDevice::DataRate", "link-rate"},
        {"ns3::FabricNetDevice::Mtu", "mtu"},
        {"ns3::FabricNetDevice::TrafficClasses", "traffic-classes"},
        {"ns3::FabricNetDevice::FlowControl", "flow-control"},
        {"ns3::FabricNetDevice::TxBufferSize", "buffer-bytes"},
        {"ns3::FabricNetDevice::RxBufferSize", "rx-buffer-bytes"},
        {"ns3::FabricChannel::Delay", "link-delay"},
        {"ns3::FabricSwitch::Latency", "switch-latency"},
        {"ns3::FabricSwitch::EcmpSeed", "ecmp-seed"},
        {"ns3::FabricSwitch::LoadBalancing", "load-balancing"},
        {"ns3::FabricEndpoint::Window", "window"},
        {"ns3::FabricEndpoint::RetransmitTimeout", "retransmit-timeout"},
        {"ns3::CollectiveEngine::Chunks", "chunks"},
        {"ns3::CollectiveEngine::ChunksInFlight", "chunks-in-flight"},
        {"ns3::SwitchmlWorker::Timeout", "aggregation-timeout"},
        {"ns3::OmniReduceWorker::Timeout", "aggregation-timeout"},
        {"ns3::OmniReduceWorker::Threshold", "threshold"},
        {"ns3::FredSwitchProgram::MiddleStages", "middle-stages"},
    };
    RefuseSetByOptions(
        {{name, value}}, setByOptions, false, programOptions, OptionPresence::UNKNOWN);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw std::invalid_argument(shown + ": no ns-3 type " + dlnet::PrintableText(typeName));
    }
    if (tid.IsChildOf(CollectiveBackend::GetTypeId()))
    {
        // the experiments make each backend with its attributes set from their options
        throw std::invalid_argument(shown
                                    + ": dlnet sets a collective backend's attributes from "
                                      "the experiment's options (a default would be "
                                      "overwritten); use the option instead (--help lists "
                                      "them)");
    }
    std::string known;
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (info.name != attribute)
        {
            known += (known.empty() ? "" : ", ") + info.name;
            continue;
        }
        if (!(info.flags & TypeId::ATTR_CONSTRUCT))
        {
            throw std::invalid_argument(shown + ": the attribute has no initial value to set");
        }
        if (!AttributeFromText(name, info, value))
        {
            const std::string kind = info.checker->GetValueTypeName();
            if (kind.find("BooleanValue") != std::string::npos)
            {
                throw std::invalid_argument(shown + ": got '" + dlnet::PrintableText(value)
                                            + "'; expected true or false (or 1 or 0)");
            }
            throw std::invalid_argument(shown + ": got '" + dlnet::PrintableText(value)
                                        + "'; not a valid " + kind + " ("
                                        + info.checker->GetUnderlyingTypeInformation() + ")");
        }
        return;
    }
    TypeId::AttributeInformation inherited;
    if (tid.LookupAttributeByName(attribute, &inherited))
    {
        throw std::invalid_argument(shown + ": " + dlnet::PrintableText(typeName)
                                    + " inherits the attribute; name the type that defines it");
    }
    throw std::invalid_argument(shown + ": " + dlnet::PrintableText(typeName)
                                + " has no attribute '" + dlnet::PrintableText(attribute)
                                + "'; its attributes: " + (known.empty() ? "none" : known));
}

const Ns3Attributes&
EnvironmentNs3Attributes()
{
    struct Parsed
    {
        Ns3Attributes attributes;
        std::string error;
    };
    static const Parsed parsed = []()
    {
        Parsed p;
        // ns-3 sets the global values from NS_GLOBAL_VALUE as the program loads (and
        // aborts there on a value it cannot read); it skips a name it does not know, and
        // every run sets the seed and run number from its options
        const std::string global
            = std::getenv("NS_GLOBAL_VALUE") ? std::getenv("NS_GLOBAL_VALUE") : "";
        for (std::string::size_type cur = 0; cur < global.size();)
        {
            std::string::size_type next = std::min(global.find(';', cur), global.size());
            const std::string item = global.substr(cur, next - cur);
            const std::string name = item.substr(0, item.find('='));
            cur = next + 1;
            GlobalValue::Iterator known = GlobalValue::Begin();
            while (known != GlobalValue::End() && (*known)->GetName() != name)
            {
                ++known;
            }
            if (item.empty())
            {
                continue;
            }
            if (name == "RngSeed" || name == "RngRun")
            {
                p.error = "NS_GLOBAL_VALUE: " + name + ": every run sets it from its option '"
                          + (name == "RngSeed" ? "seed" : "run") + "'; use that instead";
                return p;
            }
            if (item.find('=') == std::string::npos || known == GlobalValue::End())
            {
                p.error = "NS_GLOBAL_VALUE: got '" + dlnet::PrintableText(item)
                          + "'; expected Name=value with a global value's name (--PrintGlobals "
                            "lists them)";
                return p;
            }
        }
        const char* env = std::getenv("NS_ATTRIBUTE_DEFAULT");
        if (env == nullptr)
        {
            return p;
        }
        const std::string text = env;
        unsetenv("NS_ATTRIBUTE_DEFAULT"); // ns-3 reads it only when an object is made
        std::string::size_type cur = 0;
        while (cur <= text.size())
        {
            std::string::size_type next = std::min(text.find(';', cur), text.size());
            const std::string item = text.substr(cur, next - cur);
            cur = next + 1;
            if (item.empty())
            {
                continue; // ns-3 skips empty items too
            }
            std::string::size_type equal = item.find('=');
            try
            {
                if (equal == std::string::npos)
                {
                    throw std::invalid_argument("got '" + dlnet::PrintableText(item)
                                                + "'; expected ns3::Type::Attribute=value");
                }
                CheckNs3Attribute(item.substr(0, equal), item.substr(equal + 1));
            }
            catch (const std::invalid_argument& e)
            {
                p.error = std::string("NS_ATTRIBUTE_DEFAULT: ") + e.what();
                return p;
            }
            p.attributes.emplace_back(item.substr(0, equal), item.substr(equal + 1));
        }
        return p;
    }();
    if (!parsed.error.empty())
    {
        throw std::invalid_argument(parsed.error);
    }
    return parsed.attributes;
}

Ns3Attributes
WithEnvironmentNs3Attributes(const Ns3Attributes& attributes)
{
    Ns3Attributes all = EnvironmentNs3Attributes();
    all.insert(all.end(), attributes.begin(), attributes.end());
    return all;
}

namespace
{
/// Attribute defaults, each checked and read.
typedef std::vector<std::pair<std::string, Ptr<AttributeValue>>> ParsedNs3Attributes;

/// WithEnvironmentNs3Attributes, each checked and read.
ParsedNs3Attributes
ParsedAttributes(const Ns3Attributes& attributes)
{
    ParsedNs3Attributes parsed;
    for (const auto& [name, value] : WithEnvironmentNs3Attributes(attributes))
    {
        CheckNs3Attribute(name, value);
        std::string::size_type pos = name.rfind("::");
        TypeId::AttributeInformation info;
        TypeId::LookupByName(name.substr(0, pos))
            .LookupAttributeByName(name.substr(pos + 2), &info);
        parsed.emplace_back(name, AttributeFromText(name, info, value));
    }
    return parsed;
}

/// The time attributes set above zero, each named once (the last value counts).
std::vector<std::string>
PositiveTimeAttributes(const ParsedNs3Attributes& parsed)
{
    std::vector<std::string> names;
    for (const auto& [name, value] : parsed)
    {
        names.erase(std::remove(names.begin(), names.end(), name), names.end());
        Ptr<const TimeValue> time = DynamicCast<const TimeValue>(value);
        if (time && time->Get().IsStrictlyPositive())
        {
            names.push_back(name);
        }
    }
    return names;
}
} // namespace

SimulationScope::SimulationScope(uint32_t seed, uint64_t run, const Ns3Attributes& attributes)
{
    if (seed == 0 || seed > dlnet::MAX_RNG_SEED)
    {
        throw std::invalid_argument("seed: got " + std::to_string(seed)
                                    + "; expected a whole number from 1 to "
                                    + std::to_string(dlnet::MAX_RNG_SEED));
    }
    Clean();
    dlnet::UsePicoseconds();
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    const ParsedNs3Attributes parsed = ParsedAttributes(attributes);
    for (const auto& [name, value] : parsed)
    {
        Config::SetDefault(name, *value);
    }
    g_timeAttributes = PositiveTimeAttributes(parsed);
    // always: it holds the run to the simulated-time limit (and calls the hook, if any)
    Simulator::SetScheduler(ObjectFactory("ns3::DlnetInterruptScheduler"));
    g_armed = true;
}

SimulationScope::~SimulationScope()
{
    Clean();
}

std::vector<std::string>
SimulationScope::TimeAttributesOf(const Ns3Attributes& attributes)
{
    return PositiveTimeAttributes(ParsedAttributes(attributes));
}

std::string
SimulationScope::ClockField(const std::vector<std::string>& timeAttributes)
{
    std::string field;
    for (const std::string& name : timeAttributes)
    {
        field += name + ", ";
    }
    return field + "rates";
}

// (the program's own, when one is in hand: heterps offers
// fabric-link-rate and oversubscription, not link-rate, for its catalogue gives the NIC rates)
std::string
SimulationScope::RateOptions()
{
    const std::string text = ProgramOptionsText({"link-rate",
                                                 "nvlink-rate",
                                                 "nic-rate",
                                                 "fabric-link-rate",
                                                 "global-link-rate",
                                                 "local-link-rate",
                                                 "host-groups",
                                                 "rates",
                                                 "npu-bandwidth",
                                                 "io-rate"},
                                                "link-rate, nvlink-rate, nic-rate, rates, ...");
    if (text.empty())
    {
        return "none of this program's options sets one";
    }
    // (the leaf-spine's uplinks: link-rate over oversubscription)
    const std::string lower = ProgramOptionsText({"oversubscription"}, "");
    return lower.empty() ? text : text + "; lower " + lower;
}

bool
SimulationScope::LossyFabric()
{
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> device = DynamicCast<FabricNetDevice>((*node)->GetDevice(i));
            PointerValue model;
            if (device)
            {
                device->GetAttribute("ReceiveErrorModel", model);
                if (model.Get<ErrorModel>())
                {
                    return true;
                }
            }
        }
    }
    return false;
}

std::string
SimulationScope::ClockAdvice(const std::vector<std::string>& timeAttributes,
                             const std::string& rateOptions,
                             bool lossy,
                             const std::vector<std::string>& more)
{
    std::vector<std::string> remedies{"raise the link rates (" + rateOptions + ")"};
    for (const std::string& name : timeAttributes)
    {
        remedies.push_back("lower " + name);
    }
    // the program's own size options, when one is in hand (training: microbatches, ...)
    const std::string sizes = ProgramOptionsText({"min-bytes",
                                                  "max-bytes",
                                                  "message-bytes",
                                                  "messages",
                                                  "bytes",
                                                  "tensor-bytes",
                                                  "microbatches",
                                                  "iterations",
                                                  "batches",
                                                  "batch",
                                                  "layers"},
                                                 "");
    remedies.push_back("lower the sizes" + (sizes.empty() ? "" : " (" + sizes + ")"));
    if (lossy)
    {
        // retransmissions may be what takes so long, which the limit cannot tell
        const std::string loss = ProgramOptionsText({"loss-rate", "loss"}, "loss-rate");
        remedies.push_back("lower the loss rate" + (loss.empty() ? "" : " (" + loss + ")"));
    }
    remedies.insert(remedies.end(), more.begin(), more.end());
    return dlnet::JoinChoices(remedies);
}

void
SimulationScope::Clean()
{
    g_armed = false;
    g_timeAttributes.clear();
    Simulator::Destroy();
    Names::Clear();
    Config::Reset();
}

void
SimulationScope::SetInterruptHook(std::function<bool()> hook)
{
    dlnet::SetInterruptCheck(std::move(hook));
}

} // namespace ns3
