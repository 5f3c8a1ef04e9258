/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SPARSITY_H
#define DLNET_SPARSITY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * Gradient sparsity generators for sparse (OmniReduce-style) aggregation.
 *
 * A worker's tensor is cut into `blocks` blocks of equal size; a block is
 * either all zero or non-zero. A SparsityPattern says, per worker, which
 * blocks are non-zero. Patterns come from a generator (block density d and a
 * placement, deterministic by seed) or from a file the user writes.
 *
 * Everything here is pure logic: no simulator, no global random state.
 * Random draws use std::mt19937_64 (whose output the C++ standard fixes)
 * and our own bounded draw, never std::uniform_int_distribution (whose
 * output is implementation-defined), so a seed gives the same pattern on
 * every platform and compiler.
 */

/// Where each worker's non-zero blocks lie.
enum class SparsityPlacement
{
    RANDOM,   //!< each worker picks its blocks independently, uniformly at random
    OVERLAP,  //!< every worker has the same non-zero blocks
    DISJOINT, //!< no block is non-zero at two workers (while N d <= 1)
};

/// \return the name of a placement: random, overlap or disjoint
std::string ToString(SparsityPlacement placement);
/// \return every placement name, in enum order
const std::vector<std::string>& SparsityPlacementNames();
/// Parse random, overlap or disjoint, or throw std::invalid_argument naming
/// the field and the choices.
SparsityPlacement ParseSparsityPlacement(const std::string& field, const std::string& text);

/// Which blocks of each worker's tensor are non-zero.
struct SparsityPattern
{
    uint32_t workers{0};                    //!< N
    uint64_t blocks{0};                     //!< tensor = blocks x blockElements elements
    std::vector<std::vector<bool>> nonZero; //!< [worker][block]

    /// \return the number of w's blocks that are non-zero
    uint64_t NonZeroBlocks(uint32_t w) const;
    /// \return the fraction of w's blocks that are non-zero
    double Density(uint32_t w) const;
    /// \return the fraction of blocks that are non-zero at one worker or more
    double UnionDensity() const;
    /**
     * The OmniReduce next-non-zero offset: a slot that strides the tensor
     * owns blocks from, from + stride, from + 2 stride, ...
     * \param w worker
     * \param from first block to consider
     * \param stride at least 1
     * \return the first block b >= from with b = from (mod stride) that is
     *         non-zero at w, or UINT64_MAX if there is none
     */
    uint64_t NextNonZero(uint32_t w, uint64_t from, uint64_t stride) const;
};

/**
 * The most (worker, block) flags a pattern may hold: 2^29, 64 MiB of bits (a
 * 64 GiB tensor in blocks of 256 elements on 8 workers: sparse-allreduce --quick
 * --network=flow --densities=1 took 54 s here, 16 GiB 6.8 s, 512 GiB more than
 * 300). Beyond it the time, and the memory, of a run grow without bound with the
 * workers and the tensor (1 TiB on 32768 workers would be 4 TB of flags).
 */
constexpr uint64_t MAX_SPARSITY_FLAGS = uint64_t(1) << 29;

/**
 * \param bytes a tensor's bytes (float32 elements of 4) \param blockElements elements per block
 * \return its blocks, a last partial one padded to a whole (as OmniReduce sends it); 0 for
 *         blockElements 0
 */
uint64_t SparsityBlocks(uint64_t bytes, uint64_t blockElements);

/**
 * Refuse a pattern of more than MAX_SPARSITY_FLAGS flags, naming a field.
 * \param field the option that sets the size (e.g. "max-bytes", "tensor-bytes")
 * \param bytes the tensor's bytes \param blockElements float32 elements per block
 * \param workers the workers
 * \throw std::invalid_argument "<field>: ..." when workers x blocks is too many
 */
void CheckSparsitySize(const std::string& field,
                       uint64_t bytes,
                       uint64_t blockElements,
                       uint64_t workers);

/**
 * Generate a pattern with block density d. Every worker has exactly
 * k = round(d x blocks) non-zero blocks (halves round away from zero), for
 * every placement:
 * - RANDOM: each worker independently picks k distinct blocks uniformly
 *   at random; the expected union density is 1 - (1 - d)^N.
 * - OVERLAP: all workers share the same k blocks (chosen uniformly at
 *   random); the union density is k / blocks (= d).
 * - DISJOINT: the blocks are shuffled once and the workers take consecutive
 *   runs of k blocks of that order, worker 0 first, so no two workers share
 *   a block and the union density is N k / blocks (= N d). When N k >
 *   blocks the placement cannot be disjoint: the runs wrap around the
 *   shuffled order, so the union is capped at all blocks (union density 1
 *   = min(1, N d)), every worker still has exactly k blocks, and each block
 *   is non-zero at floor(N k / blocks) or ceil(N k / blocks) workers (the
 *   least overlap possible).
 *
 * The same arguments give the same pattern on every run and platform;
 * under RANDOM, worker w's blocks depend only on (seed, w, blocks, d).
 *
 * \throw std::invalid_argument naming "density" when d is outside [0, 1]
 *        or NaN, "workers" when workers is 0, "blocks" when blocks is 0 or
 *        workers x blocks is more than MAX_SPARSITY_FLAGS
 */
SparsityPattern GenerateSparsity(
    uint32_t workers, uint64_t blocks, double density, SparsityPlacement placement, uint64_t seed);

/**
 * Read a pattern from a text file. The format (version 1):
 *
 * \verbatim
   # dlnet sparsity pattern: '#' starts a comment, blank lines are ignored
   dlnet-sparsity 1
   workers 4 blocks 1024
   0: 0 5 17 100-131
   1: 3 17
   2:
   3: 0-1023
   \endverbatim
 *
 * - The first line that is not blank or a comment is the magic
 *   `dlnet-sparsity 1`.
 * - The next is `workers N blocks B` (N >= 1, B >= 1).
 * - Then exactly one line per worker w = 0 .. N-1, in any order:
 *   `w:` followed by the indices of w's non-zero blocks, separated by
 *   spaces or tabs, in any order. An index is a whole number in [0, B);
 *   `i-j` (no spaces) stands for every index from i to j inclusive
 *   (i <= j). No block may be listed twice for one worker. A worker with
 *   no non-zero block has a line with nothing after the colon.
 * - Tokens are plain decimal numbers (no sign, no exponent); a line may
 *   end in CR LF.
 *
 * \param path file to read
 * \param expectedWorkers the run's worker count; the file must have
 *        exactly this many (0 takes the file's count)
 * \param expectedBlocks the tensor's block count; the file must have
 *        exactly this many (0 takes the file's count)
 * \throw std::invalid_argument with "path:line: " and what was expected,
 *        for a bad magic or version, a bad header, a worker count other
 *        than expectedWorkers (names "workers"), a block count other than
 *        expectedBlocks (names "blocks"), a worker line that is malformed,
 *        out of range, repeated or missing, a block index that is not a
 *        number, out of range or listed twice, and a reversed range; and
 *        with "path: " when the file cannot be opened.
 */
SparsityPattern ReadSparsityFile(const std::string& path,
                                 uint32_t expectedWorkers,
                                 uint64_t expectedBlocks);

/**
 * Write a pattern in the format ReadSparsityFile reads (runs of two or more
 * consecutive blocks as ranges i-j); reading it back gives the same pattern.
 * \throw std::invalid_argument if the pattern's sizes are inconsistent,
 *        std::runtime_error if the file cannot be written
 */
void WriteSparsityFile(const SparsityPattern& p, const std::string& path);

/**
 * Fill worker w's float32 tensor of blocks x blockElements values, block b
 * being elements [b blockElements, (b + 1) blockElements). Blocks that are
 * zero in the pattern hold exactly 0.0f; every element of a non-zero block
 * holds a non-zero integer in [-8, 8], deterministic from (seed, w,
 * element index), so sums over up to 2^21 workers are exact in float32.
 * \throw std::invalid_argument naming "worker" when w >= p.workers and
 *        "block-elements" when blockElements is 0 or the tensor is too large
 */
std::vector<float> MakeSparseTensor(const SparsityPattern& p,
                                    uint32_t w,
                                    uint32_t blockElements,
                                    uint64_t seed);

/**
 * \return the expected union density for N workers at density d:
 *         1 - (1 - d)^N for RANDOM, d for OVERLAP, min(1, N d) for DISJOINT
 * \throw std::invalid_argument naming "density" or "workers" as
 *        GenerateSparsity does
 */
double ExpectedUnionDensity(double d, uint32_t workers, SparsityPlacement placement);

} // namespace ns3

#endif /* DLNET_SPARSITY_H */
