/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Registers "rl" in the scheduler registry and opens the module that
// implements it (libns3-dlnet-rl.so, next to this library) the first time it
// runs: only programs that run rl load LibTorch (rl-scheduler.cc says why).

#include "plan-scheduler.h"

#include "ns3/log.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetRlSchedulerLoader");

namespace
{

using RunRlEntry = void (*)(const CostModel*, const SchedulerOptions*, ScheduleResult*);

/// The module's file name, beside the library this function is in.
std::string
ModulePath()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&ModulePath), &info) == 0 || !info.dli_fname)
    {
        return "libns3-dlnet-rl.so";
    }
    std::string self = info.dli_fname;
    const auto slash = self.rfind('/');
    return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1))
           + "libns3-dlnet-rl.so";
}

/// \return the module's entry; std::runtime_error naming the file and why when it cannot load
RunRlEntry
LoadRl()
{
    const std::string path = ModulePath();
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module)
    {
        const char* why = dlerror();
        throw std::runtime_error("scheduler rl: cannot load " + path + " ("
                                 + (why ? why : "unknown") + "); build it with ./dlnet build");
    }
    auto entry = reinterpret_cast<RunRlEntry>(dlsym(module, "DlnetRunRlScheduler"));
    if (!entry)
    {
        throw std::runtime_error("scheduler rl: " + path + " has no DlnetRunRlScheduler");
    }
    NS_LOG_INFO("loaded " << path);
    // never closed: its static objects (LibTorch's) live until the process ends
    return entry;
}

ScheduleResult
RunRl(const CostModel& model, const SchedulerOptions& options)
{
    static const RunRlEntry entry = LoadRl();
    ScheduleResult result;
    entry(&model, &options, &result);
    return result;
}

} // namespace

static const bool g_rlRegistered = SchedulerRegistry::Add(
    {"rl",
     2,
     "HeterPS-style: an LSTM policy over the layers trained by REINFORCE on the provisioned cost",
     RunRl});

} // namespace ns3
