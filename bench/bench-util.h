/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// What the benchmarks share: running a case in a child process of its own
// (so that its peak resident memory is its own) and the GPT-3-shaped
// training case on 64 GPUs.

#ifndef DLNET_BENCH_UTIL_H
#define DLNET_BENCH_UTIL_H

#include "ns3/dlnet-module.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <type_traits>

namespace ns3
{
namespace bench
{

/// \return the peak resident set of this process so far, bytes
inline double
PeakRssBytes()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss * 1024.0;
}

/**
 * Run body in a child process and bring back what it returns.
 * \param body the case (its exceptions end the child with GuardedMain's status)
 * \param[out] out what body returned
 * \return false if the child failed
 */
template <typename T>
bool
InChild(const std::function<T()>& body, T& out)
{
    static_assert(std::is_trivially_copyable<T>::value, "sent through a pipe as bytes");
    int fds[2];
    if (pipe(fds) != 0)
    {
        return false;
    }
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0)
    {
        close(fds[0]);
        int status = GuardedMain(
            [&]()
            {
                T value = body();
                return write(fds[1], &value, sizeof(value)) == ssize_t(sizeof(value)) ? 0 : 1;
            });
        _exit(status);
    }
    close(fds[1]);
    bool ok = read(fds[0], &out, sizeof(out)) == ssize_t(sizeof(out));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/**
 * A GPT-3-like iteration on 64 GPUs (8 servers x 8, rail-optimised): TP 8,
 * PP 2, DP 4, 8 microbatches of 1 sample, GPT-3's hidden size, heads,
 * sequence and vocabulary, one iteration, no trace.
 * \param layers transformer layers (GPT-3: 96)
 * \return the configuration (packet level)
 */
inline TrainingConfig
Gpt64(uint32_t layers)
{
    TrainingConfig c;
    c.topology.kind = "rail-optimised";
    c.topology.servers = 8;
    c.topology.gpusPerServer = 8;
    c.model = "transformer";
    TransformerConfig gpt = ZooTransformer("gpt3-175b");
    c.layers = layers;
    c.hidden = gpt.hidden;
    c.heads = gpt.heads;
    c.sequence = gpt.sequence;
    c.vocabulary = gpt.vocabulary;
    c.tp = 8;
    c.pp = 2;
    c.dp = 4;
    c.microbatches = 8;
    c.microbatchSize = 1;
    c.iterations = 1;
    c.trace = false;
    return c;
}

} // namespace bench
} // namespace ns3

#endif /* DLNET_BENCH_UTIL_H */
