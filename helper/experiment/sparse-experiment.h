/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SPARSE_EXPERIMENT_H
#define DLNET_SPARSE_EXPERIMENT_H

#include "collective-experiment.h"
#include "experiment-options.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief OmniReduce's micro-benchmark: AllReduce of one float32 tensor whose
 * blocks are non-zero with density d; sparse block aggregation (omnireduce)
 * against ring AllReduce and dense in-network aggregation (switchml), swept
 * over link rates, worker counts and densities.
 *
 * For each rate and worker count N: a star of N + max(N, A) hosts, the
 * workers on ranks 0..N-1, the aggregators after them. omnireduce runs at
 * every density; ring and switchml once (they move the whole tensor).
 *
 * The four sweep lists are kept as text; empty means the default, which
 * `quick` changes (a list given explicitly still wins).
 */
struct SparseConfig
{
    /// The collective options that apply (mtu 9000 by default: fused packets fit);
    /// topology, communicator, sizes and algorithm are set per point.
    CollectiveConfig base{DefaultBase()};
    std::string tensorBytes{""};     //!< float32 tensor; empty: 100MiB (quick: 16MiB)
    std::string densities{""};       //!< omnireduce block densities; empty: the default list
    std::string workers{""};         //!< worker counts N; empty: 2,4,8 (quick: 8)
    std::string rates{""};           //!< link rates; empty: 10Gbps,100Gbps (quick: 100Gbps)
    std::string placement{"random"}; //!< random, overlap or disjoint non-zero blocks
    double loss{0};                  //!< packet loss rate; above 0 the fabric is lossy
    bool quick{false};               //!< the demo sweep's defaults
    Ns3Attributes ns3Attributes;     //!< ns-3 attribute defaults, set after each run's reset

    /// Throw std::invalid_argument naming the first bad field (every point is checked).
    void Validate() const;

    /// \return the tensor size as text, default resolved
    std::string TensorText() const;
    /// \return the densities as text, default resolved
    std::string DensitiesText() const;
    /// \return the worker counts as text, default resolved
    std::string WorkersText() const;
    /// \return the rates as text, default resolved
    std::string RatesText() const;

    /// \return the tensor size in bytes (validated)
    uint64_t TensorBytes() const;
    /// \return the densities (validated)
    std::vector<double> Densities() const;
    /// \return the worker counts (validated)
    std::vector<uint32_t> Workers() const;
    /// \return the link rates (validated)
    std::vector<std::string> Rates() const;

    /// \return the collective defaults of the benchmark
    static CollectiveConfig DefaultBase();
};

/// One simulation of the sweep: one row of sparse-allreduce.csv.
struct SparseRow
{
    std::string rate; //!< as given
    uint64_t rateBps{0};
    uint32_t workers{0};
    uint32_t aggregators{0};
    std::string aggregatorPlacement; //!< servers, colocated or switch
    std::string placement;           //!< random, overlap or disjoint
    std::string algorithm;           //!< omnireduce, ring or switchml
    double density{NAN};             //!< omnireduce only
    double unionDensity{NAN};        //!< omnireduce only: of the pattern that ran
    uint64_t bytes{0};
    uint32_t blockElements{0};
    uint32_t messageBlocks{0};
    double lossRate{0};
    double speedupOverRing{0}; //!< ring's time / this time (same rate and N)
    CollectiveRow run;         //!< what the collective experiment measured
};

/// What the sweep measured.
struct SparseResult
{
    std::vector<SparseRow> rows; //!< per (rate, N): ring, switchml, omnireduce per density
    double wallSeconds{0};       //!< not written to result files (not deterministic)
};

/// Called after each (rate, N) group: its rows (ring, switchml, then omnireduce) and wall time.
using SparseProgress = std::function<void(const std::vector<SparseRow>& group, double wall)>;

/// \return the options of the sparse experiment (command line and Python)
const std::vector<ExperimentOption<SparseConfig>>& SparseOptions();

/**
 * Run the sweep: validate every point, then one simulation per point.
 * \param config the sweep
 * \param progress called after each (rate, N) group (optional)
 * \return the rows
 */
SparseResult RunSparse(const SparseConfig& config, const SparseProgress& progress = nullptr);

} // namespace ns3

#endif /* DLNET_SPARSE_EXPERIMENT_H */
