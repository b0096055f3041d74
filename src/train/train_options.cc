// The training options' presets, names, defaults and validation
// (streamglove/train.h).
#include <cmath>

#include <fmt/format.h>

#include "streamglove/options.h"
#include "streamglove/train.h"
#include "streamglove/units.h"
#include "train/embedding_model.h"
#include "train/sgns_model.h"
#include "train/train_tuning.h"
#include "util/file.h"
#include "util/threads.h"

namespace streamglove {

const std::vector<TrainPreset>& TrainPresets() {
  static const std::vector<TrainPreset> presets = {
      {"glove-demo", "Stanford GloVe's demo.sh: dim 50, 15 epochs, x_max 10", Objective::kGlove, 50,
       15, 10},
      {"demo-time",
       "the best GloVe vectors found in the wall time of Stanford's whole demo: dim 200, 14 "
       "epochs, x_max 10",
       Objective::kGlove, 200, 14, 10},
      {"half-time",
       "GloVe, dim 100, 10 epochs, x_max 10 (29.6% analogy on wiki100M in about 300 s, a third of "
       "demo-time's)",
       Objective::kGlove, 100, 10, 10},
      {"sgns-demo-time",
       "skip-gram (sgns), dim 200, 24 epochs, on a window-5 store: demo-time's analogy score with "
       "better similarity, in Stanford's demo time",
       Objective::kSgns, 200, 24, 10},
  };
  return presets;
}

const TrainPreset* FindTrainPreset(const std::string& name) {
  for (const TrainPreset& p : TrainPresets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

double DefaultEta(Objective objective, bool store_subsampled, uint32_t epochs) {
  if (objective == Objective::kGlove) return 0.05;
  if (!store_subsampled) return 0.075;
  constexpr double kWord2vecAlpha = 0.025, kShortRunCap = 0.05;
  return std::clamp(kWord2vecAlpha * kSgnsFullRateEpochs / std::max<uint32_t>(epochs, 1),
                    kWord2vecAlpha, kShortRunCap);
}

const char* ObjectiveName(Objective objective) {
  return objective == Objective::kSgns ? "sgns" : "glove";
}

bool ParseObjective(const std::string& name, Objective* objective) {
  if (name != "glove" && name != "sgns") return false;
  *objective = name == "sgns" ? Objective::kSgns : Objective::kGlove;
  return true;
}

const char* TrainDeviceName(TrainDevice device) {
  return device == TrainDevice::kCuda ? "cuda" : "cpu";
}

bool ParseTrainDevice(const std::string& name, TrainDevice* device) {
  if (name != "cpu" && name != "cuda") return false;
  *device = name == "cuda" ? TrainDevice::kCuda : TrainDevice::kCpu;
  return true;
}

// Subwords asked for where they cannot train. (Left to the objective's
// default, they are off there: ResolveSubwords.)
static Status ValidateTrainSubwords(const TrainOptions& o) {
  SG_RETURN_IF_ERROR(ValidateSubwordOptions(o.subwords));
  if (!o.subwords.chosen) return Status::OK();
  if (o.subwords.enabled && o.device != TrainDevice::kCpu) {
    return Status::InvalidArgument(fmt::format(
        "--device {} trains words as atoms: add --no-subwords (the n-gram rows train on the CPU)",
        TrainDeviceName(o.device)));
  }
  if (o.subwords.enabled && o.vectors == VectorsKind::kBoth) {
    return Status::InvalidArgument(
        "--vectors both: a word outside the vocabulary has no context half; with subwords give "
        "--vectors word or word+context, or add --no-subwords");
  }
  return Status::OK();
}

void ResolveSubwords(TrainOptions* o) {
  if (!o->subwords.chosen) {
    o->subwords.enabled = o->objective == Objective::kSgns && o->device == TrainDevice::kCpu &&
                          o->vectors != VectorsKind::kBoth;
  }
  // GloVe's subword model writes its input vectors, unless a weight given
  // asks for the context rows it weighs.
  const bool input_only =
      o->subwords.enabled && o->objective == Objective::kGlove && !o->context_weight;
  if (!o->vectors) o->vectors = input_only ? VectorsKind::kWord : VectorsKind::kWordPlusContext;
  if (!o->context_weight) o->context_weight = o->subwords.enabled ? kSubwordContextWeight : 1.0f;
  if (!o->noise_power) o->noise_power = o->subwords.enabled ? kSubwordNoisePower : kWordNoisePower;
}

Status ValidateTrainOptions(const TrainOptions& o) {
  if (o.dim < 1 || o.dim > kMaxDim)
    return Status::InvalidArgument(fmt::format("--dim must be between 1 and {}", kMaxDim));
  if (o.epochs < 1) return Status::InvalidArgument("--epochs must be at least 1");
  if (!o.warm_start.empty() &&
      (!PathExists(o.warm_start) || !PathExists(o.warm_start + ".checkpoint"))) {
    return Status::InvalidArgument(
        fmt::format("--warm-start {}: needs an earlier run's output and its {}.checkpoint",
                    o.warm_start, o.warm_start));
  }
  // Infinities pass the comparisons but train nothing: every update would
  // be non-finite and skipped, or weigh every pair alike.
  if (!(o.x_max > 0 && std::isfinite(o.x_max)))
    return Status::InvalidArgument("--x-max must be a positive number");
  if (!(o.alpha > 0 && std::isfinite(o.alpha)))
    return Status::InvalidArgument("--alpha must be a positive number");
  if (!(o.eta >= 0 && std::isfinite(o.eta)))
    return Status::InvalidArgument(
        "--eta must be a positive number (or 0 for the objective's and store's default)");
  if (!(o.step_scale > 0 && o.step_scale <= 100))
    return Status::InvalidArgument("--step-scale must be in (0, 100]");
  if (!(o.decay_fraction >= 0 && o.decay_fraction <= 1)) {
    return Status::InvalidArgument("--decay-fraction must be in [0, 1]");
  }
  if (o.negatives < 1 || o.negatives > kMaxNegatives) {
    return Status::InvalidArgument(
        fmt::format("--negatives must be between 1 and {}", kMaxNegatives));
  }
  if (o.noise_power && !(*o.noise_power >= 0 && *o.noise_power <= 1))
    return Status::InvalidArgument("--noise-power must be in [0, 1]");
  if (o.context_weight && !(*o.context_weight >= 0 && std::isfinite(*o.context_weight)))
    return Status::InvalidArgument("--context-weight must be a number >= 0");
  if (o.context_weight && o.vectors && *o.vectors != VectorsKind::kWordPlusContext) {
    return Status::InvalidArgument(
        "--context-weight weighs the context row of --vectors word+context, the default");
  }
  if (!(o.subsample >= 0 && o.subsample < 1))
    return Status::InvalidArgument("--subsample must be in [0, 1)");
  SG_RETURN_IF_ERROR(CheckThreads(o.threads));
  if (o.checkpoint_every < 1)
    return Status::InvalidArgument("--checkpoint-every must be at least 1");
  if (o.memory_bytes < kMinMemoryBytes) {
    return Status::InvalidArgument(
        fmt::format("--memory must be at least {}", FormatBytes(kMinMemoryBytes)));
  }
  if (!(o.budget_seconds >= 0 && std::isfinite(o.budget_seconds)))
    return Status::InvalidArgument("--budget must be a positive duration");
  SG_RETURN_IF_ERROR(ValidateTrainSubwords(o));
  if (o.device_sequential && o.device == TrainDevice::kCpu) {
    return Status::InvalidArgument(
        "--device-sequential is for a device (on the CPU, --threads 1 is sequential)");
  }
  if (o.device_memory_bytes > 0 && o.device == TrainDevice::kCpu) {
    return Status::InvalidArgument("--device-memory is for a device (--memory is the host's)");
  }
  if (o.budget_seconds > 0 && o.device != TrainDevice::kCpu) {
    // A budget's rates are measured on the CPU's threads.
    return Status::InvalidArgument(
        fmt::format("--budget plans CPU training: with --device {} give --epochs (and --dim)",
                    TrainDeviceName(o.device)));
  }
  return Status::OK();
}

}  // namespace streamglove
