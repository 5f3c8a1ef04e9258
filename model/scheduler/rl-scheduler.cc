/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The HeterPS-style RL scheduler: an LSTM policy over the layer chain,
// trained by REINFORCE on the provisioned cost (doc/heterps-rl.md). The only
// file that includes LibTorch (it takes ~15 s to compile and must stay out of
// every header). It is built as its own module, libns3-dlnet-rl.so, that
// rl-scheduler-loader.cc opens the first time "rl" runs: LibTorch and the
// ~290 libraries it needs map ~550 MB of address space and take ~0.9 s to
// load, which every other program of the suite would pay otherwise.

#include "plan-scheduler.h"

#include "ns3/interrupt.h"
#include "ns3/log.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetRlScheduler");

namespace
{

/// Layer kinds of the one-hot feature; any other kind is the last, "other".
const std::array<const char*, 6> KINDS{
    "embedding", "linear", "interaction", "conv", "attention", "mlp"};

// Settings (doc/heterps-rl.md, "Training"). A small network suffices: the
// policy is trained from scratch for one problem, not meant to generalise.
constexpr int64_t HIDDEN = 32;
constexpr double LEARNING_RATE = 5e-3;
constexpr double BASELINE_DECAY = 0.9;     //!< moving-average baseline: b = d b + (1 - d) mean r
constexpr double SCALE_DECAY = 0.9;        //!< running scale of |r - b| the advantage is divided by
constexpr double SCALE_FLOOR = 1e-3;       //!< 0.1 % of cost: differences below are noise
constexpr double ENTROPY_START = 0.5;      //!< entropy bonus per layer, decays linearly to 0
constexpr double GRADIENT_CLIP = 1.0;      //!< max L2 norm of the gradient
constexpr uint32_t COLLAPSE_PATIENCE = 30; //!< stop after this many episodes of one plan only

/// Puts intra-op parallelism to one thread for its life: float sums in one
/// fixed order make the run byte-identical for a seed.
class SingleThreaded
{
public:
    SingleThreaded()
        : m_previous(at::get_num_threads())
    {
        at::set_num_threads(1);
    }

    ~SingleThreaded()
    {
        at::set_num_threads(m_previous);
    }

    SingleThreaded(const SingleThreaded&) = delete;
    SingleThreaded& operator=(const SingleThreaded&) = delete;

private:
    int m_previous;
};

/// \return ln(1 + x) / ln(1 + max): bytes on a log scale in [0, 1] for this model
double
LogShare(double x, double max)
{
    return max > 0 ? std::log1p(x) / std::log1p(max) : 0.0;
}

/**
 * \return the per-layer features [L, F] (doc/heterps-rl.md, "Features"):
 * kind one-hot (7), position, parallel fraction, output / parameter / sync
 * bytes on a log scale (3), then per type: log10 of its time over the
 * layer's fastest, log10 of its price x time over the layer's cheapest,
 * log10 of its time over the mean layer's time on that type.
 */
torch::Tensor
LayerFeatures(const CostModel& model)
{
    const SchedulingProblem& problem = model.GetProblem();
    const auto& layers = problem.profile.layers;
    const uint32_t nLayers = model.Layers();
    const uint32_t nTypes = model.Types();
    double maxOutput = 0;
    double maxParameters = 0;
    double maxSync = 0;
    std::vector<double> meanSeconds(nTypes, 0.0);
    for (const auto& layer : layers)
    {
        maxOutput = std::max(maxOutput, double(layer.outputBytes));
        maxParameters = std::max(maxParameters, double(layer.parameterBytes));
        maxSync = std::max(maxSync, double(layer.syncBytes));
        for (uint32_t t = 0; t < nTypes; ++t)
        {
            meanSeconds[t] += layer.seconds[t] / nLayers;
        }
    }
    const int64_t nFeatures = int64_t(KINDS.size()) + 1 + 2 + 3 + 3 * nTypes;
    std::vector<float> values;
    values.reserve(size_t(nLayers) * nFeatures);
    for (uint32_t l = 0; l < nLayers; ++l)
    {
        const ProfiledLayer& layer = layers[l];
        size_t kind = KINDS.size();
        for (size_t k = 0; k < KINDS.size(); ++k)
        {
            if (layer.kind == KINDS[k])
            {
                kind = k;
            }
        }
        for (size_t k = 0; k <= KINDS.size(); ++k)
        {
            values.push_back(k == kind ? 1.0f : 0.0f);
        }
        values.push_back(nLayers > 1 ? float(l) / float(nLayers - 1) : 0.0f);
        values.push_back(float(layer.parallelFraction));
        values.push_back(float(LogShare(double(layer.outputBytes), maxOutput)));
        values.push_back(float(LogShare(double(layer.parameterBytes), maxParameters)));
        values.push_back(float(LogShare(double(layer.syncBytes), maxSync)));
        double fastest = std::numeric_limits<double>::infinity();
        double cheapest = std::numeric_limits<double>::infinity();
        for (uint32_t t = 0; t < nTypes; ++t)
        {
            fastest = std::min(fastest, layer.seconds[t]);
            cheapest
                = std::min(cheapest, layer.seconds[t] * problem.catalogue.types[t].pricePerHour);
        }
        for (uint32_t t = 0; t < nTypes; ++t)
        {
            const double seconds = layer.seconds[t];
            values.push_back(float(std::log10(seconds / fastest)));
            values.push_back(
                float(std::log10(seconds * problem.catalogue.types[t].pricePerHour / cheapest)));
            values.push_back(float(std::log10(seconds / meanSeconds[t])));
        }
    }
    return torch::from_blob(values.data(), {int64_t(nLayers), nFeatures}, torch::kFloat32).clone();
}

/**
 * The policy: a bidirectional LSTM encodes the layer chain (each layer sees
 * what comes before and after it); an LSTM cell decodes the plan layer by
 * layer from the layer's features, its encoding and the type sampled for
 * the previous layer (autoregressive: staying on a type, i.e. a contiguous
 * stage, is learnable), into logits over the types.
 */
struct PolicyImpl : torch::nn::Module
{
    PolicyImpl(int64_t features, int64_t types)
        : encoder(register_module(
            "encoder",
            torch::nn::LSTM(torch::nn::LSTMOptions(features, HIDDEN).bidirectional(true))))
        , decoder(register_module("decoder",
                                  torch::nn::LSTMCell(features + 2 * HIDDEN + types, HIDDEN)))
        , head(register_module("head", torch::nn::Linear(HIDDEN, types)))
        , m_types(types)
    {
    }

    /// What a batch of plans drawn from the policy is, with what training needs.
    struct Rollout
    {
        std::vector<SchedulingPlan> plans;
        torch::Tensor logProbability; //!< [N]: sum over layers of log pi(type)
        torch::Tensor entropy;        //!< [N]: sum over layers of the policy's entropy
    };

    /**
     * Draw `count` plans (greedy: one plan, each layer's most likely type)
     * as one batch through the decoder.
     */
    Rollout Run(const torch::Tensor& features, int64_t count, bool greedy, at::Generator& generator)
    {
        const int64_t nLayers = features.size(0);
        torch::Tensor context = std::get<0>(encoder->forward(features.unsqueeze(1))).squeeze(1);
        torch::Tensor inputs = torch::cat({features, context}, 1);
        torch::Tensor h = torch::zeros({count, HIDDEN});
        torch::Tensor c = torch::zeros({count, HIDDEN});
        torch::Tensor previous = torch::zeros({count, m_types});
        Rollout rollout;
        rollout.plans.assign(size_t(count), SchedulingPlan(size_t(nLayers)));
        rollout.logProbability = torch::zeros({count});
        rollout.entropy = torch::zeros({count});
        for (int64_t l = 0; l < nLayers; ++l)
        {
            torch::Tensor input
                = torch::cat({inputs[l].unsqueeze(0).expand({count, inputs.size(1)}), previous}, 1);
            std::tie(h, c) = decoder->forward(input, std::make_tuple(h, c));
            torch::Tensor logp = torch::log_softmax(head->forward(h), 1);
            torch::Tensor p = logp.exp();
            torch::Tensor chosen
                = greedy ? p.argmax(1, true) : torch::multinomial(p.detach(), 1, true, generator);
            rollout.logProbability = rollout.logProbability + logp.gather(1, chosen).squeeze(1);
            rollout.entropy = rollout.entropy - (p * logp).sum(1);
            chosen = chosen.squeeze(1);
            auto type = chosen.accessor<int64_t, 1>();
            for (int64_t i = 0; i < count; ++i)
            {
                rollout.plans[size_t(i)][size_t(l)] = uint32_t(type[i]);
            }
            previous = torch::one_hot(chosen, m_types).to(torch::kFloat32);
        }
        return rollout;
    }

    torch::nn::LSTM encoder;
    torch::nn::LSTMCell decoder;
    torch::nn::Linear head;
    int64_t m_types;
};

TORCH_MODULE(Policy);

/**
 * The reward of an evaluated plan, scale-free (doc/heterps-rl.md, "Reward"):
 * -ln(cost / reference) for a feasible plan; for an infeasible one
 * -(penalty + ln(limit / throughput reached)), where the penalty exceeds
 * ln(most a feasible plan can cost / reference), so every infeasible plan
 * ranks below every feasible one and the faster of two infeasible plans
 * ranks higher.
 */
class Reward
{
public:
    Reward(const CostModel& model, double reference)
        : m_limit(model.GetProblem().throughputLimit)
        , m_reference(reference)
    {
        const SchedulingProblem& problem = model.GetProblem();
        double allHourly = 0;
        for (const auto& type : problem.catalogue.types)
        {
            allHourly += type.pricePerHour * type.available;
        }
        // a feasible plan runs at >= limit on at most every instance there is
        const double mostCost = problem.samples / m_limit / 3600 * allHourly;
        m_penalty = std::max(0.0, std::log(mostCost / m_reference)) + 1;
    }

    double operator()(const PlanEvaluation& e) const
    {
        if (e.feasible)
        {
            return -std::log(e.cost / m_reference);
        }
        // a plan that reaches nothing (0 samples/s) ranks last but finitely
        const double reached = std::max(e.throughput, m_limit * 1e-12);
        return -(m_penalty + std::log(std::max(1.0, m_limit / reached)));
    }

private:
    double m_limit;
    double m_reference;
    double m_penalty;
};

ScheduleResult
RunRl(const CostModel& model, const SchedulerOptions& options)
{
    options.Validate();
    const uint32_t episodes = options.episodes ? options.episodes : RL_DEFAULT_EPISODES;
    const uint32_t samples
        = options.samplesPerEpisode ? options.samplesPerEpisode : RL_DEFAULT_SAMPLES;
    const uint32_t nTypes = model.Types();
    const uint32_t nLayers = model.Layers();

    ScheduleResult result;
    result.scheduler = "rl";
    bool haveBest = false;
    auto consider = [&](PlanEvaluation e)
    {
        if (!haveBest || IsBetter(e, result.best))
        {
            result.best = std::move(e);
            haveBest = true;
            return true;
        }
        return false;
    };

    // The reference cost: the cheapest feasible all-<type> plan; when none
    // is feasible, the most a feasible plan can cost (Reward's bound).
    double reference = 0;
    for (uint32_t t = 0; t < nTypes; ++t)
    {
        PlanEvaluation e = model.Evaluate(SchedulingPlan(nLayers, t));
        if (e.feasible && (reference == 0 || e.cost < reference))
        {
            reference = e.cost;
        }
        consider(std::move(e));
    }
    if (reference == 0)
    {
        const SchedulingProblem& problem = model.GetProblem();
        for (const auto& type : problem.catalogue.types)
        {
            reference += type.pricePerHour * type.available;
        }
        reference *= problem.samples / problem.throughputLimit / 3600;
    }
    const Reward reward(model, reference);

    SingleThreaded singleThreaded;
    torch::manual_seed(options.seed);
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);
    const torch::Tensor features = LayerFeatures(model);
    Policy policy(features.size(1), int64_t(nTypes));
    torch::optim::Adam optimiser(policy->parameters(), torch::optim::AdamOptions(LEARNING_RATE));

    double baseline = 0;
    double scale = 0;
    uint32_t collapsed = 0;
    for (uint32_t episode = 1; episode <= episodes; ++episode)
    {
        dlnet::PollInterrupt(); // (Ctrl-C in Python: thousands of episodes take minutes)
        PolicyImpl::Rollout rollout = policy->Run(features, samples, false, generator);
        std::vector<float> rewards(samples);
        double mean = 0;
        for (uint32_t i = 0; i < samples; ++i)
        {
            PlanEvaluation e = model.Evaluate(rollout.plans[i]);
            rewards[i] = float(reward(e));
            mean += rewards[i] / samples;
            if (consider(std::move(e)))
            {
                result.convergedEpisode = episode;
            }
        }
        result.curve.push_back(mean);
        if (episode == 1)
        {
            baseline = mean;
            for (float r : rewards)
            {
                scale += std::abs(r - baseline) / samples;
            }
        }
        // the advantage against the baseline of the episodes before, in
        // units of its running spread: steps stay the same size when the
        // rewards narrow from infeasible penalties to cost differences
        std::vector<float> advantages(samples);
        double spread = 0;
        for (uint32_t i = 0; i < samples; ++i)
        {
            spread += std::abs(rewards[i] - baseline) / samples;
        }
        scale = SCALE_DECAY * scale + (1 - SCALE_DECAY) * spread;
        for (uint32_t i = 0; i < samples; ++i)
        {
            advantages[i] = float((rewards[i] - baseline) / std::max(scale, SCALE_FLOOR));
        }
        baseline = BASELINE_DECAY * baseline + (1 - BASELINE_DECAY) * mean;

        const double entropyWeight = ENTROPY_START * (1 - double(episode - 1) / episodes);
        torch::Tensor advantage
            = torch::from_blob(advantages.data(), {int64_t(samples)}, torch::kFloat32).clone();
        torch::Tensor loss
            = -(advantage * rollout.logProbability).mean() - entropyWeight * rollout.entropy.mean();
        optimiser.zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(policy->parameters(), GRADIENT_CLIP);
        optimiser.step();

        // a policy that draws one plan only has nothing left to learn from
        bool one = std::all_of(rollout.plans.begin(),
                               rollout.plans.end(),
                               [&](const SchedulingPlan& p)
                               {
                                   return p == rollout.plans[0];
                               });
        collapsed = one ? collapsed + 1 : 0;
        if (collapsed >= COLLAPSE_PATIENCE)
        {
            NS_LOG_INFO("rl: the policy draws one plan only since episode "
                        << episode + 1 - collapsed << "; stopped at " << episode);
            break;
        }
    }
    {
        torch::NoGradGuard guard;
        PolicyImpl::Rollout greedy = policy->Run(features, 1, true, generator);
        if (consider(model.Evaluate(greedy.plans[0])))
        {
            result.convergedEpisode = uint32_t(result.curve.size());
        }
    }
    return result;
}

} // namespace

} // namespace ns3

/**
 * The entry rl-scheduler-loader.cc finds with dlsym: C linkage keeps its
 * name plain; exceptions (std::invalid_argument) pass through to the caller.
 */
extern "C" void
DlnetRunRlScheduler(const ns3::CostModel* model,
                    const ns3::SchedulerOptions* options,
                    ns3::ScheduleResult* result)
{
    *result = ns3::RunRl(*model, *options);
}
