#include "train/budget_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "util/file.h"

namespace streamglove {

Objective BudgetObjective(uint32_t store_window, bool store_subsampled) {
  return store_window <= 10 || store_subsampled ? Objective::kSgns : Objective::kGlove;
}

uint32_t BudgetMinEpochs(Objective objective, bool store_subsampled) {
  if (objective == Objective::kGlove) return 10;
  return store_subsampled ? 10 : 20;
}

uint32_t BudgetFloorDim(Objective objective) { return objective == Objective::kSgns ? 100 : 0; }

double PlannedEpochs(const BudgetPlan& plan) { return plan.epochs - 1 + plan.last_epoch_share; }

void SetPlannedEpochs(double epochs, BudgetPlan* plan) {
  // In whole hundredths: a plan file states its length exactly.
  // (Clamped far above any plan's length: a cast of a huge double wraps.)
  const auto hundredths =
      static_cast<uint64_t>(std::floor(std::clamp(epochs, 0.0, 1e6) * 100 + 1e-6));
  const uint32_t least = static_cast<uint32_t>(std::lround(kBudgetLeastShare * 100));
  const auto whole = static_cast<uint32_t>(hundredths / 100);
  uint32_t part = hundredths % 100;
  if (part < least) part = whole == 0 ? least : 0;
  plan->epochs = part == 0 ? whole : whole + 1;
  plan->last_epoch_share = part == 0 ? 1.0 : part / 100.0;
}

namespace {

// The time `epochs` of `c` take (a partial last one by its share), their
// checkpoints and the vectors file included.
double EpochsCost(const BudgetCandidate& c, double epochs, uint32_t checkpoint_every) {
  const auto started = static_cast<uint32_t>(std::ceil(epochs - 1e-9));
  const uint32_t checkpoints =
      started / checkpoint_every + (started % checkpoint_every != 0 ? 1 : 0);
  return c.setup_seconds + epochs * c.epoch_seconds + (checkpoints + 1) * c.checkpoint_seconds;
}

// Whole epochs of `c` that fit in `seconds` (up to kBudgetMaxEpochs).
uint32_t WholeEpochsThatFit(const BudgetCandidate& c, double seconds, uint32_t checkpoint_every) {
  uint32_t epochs = 0;
  while (epochs < kBudgetMaxEpochs && EpochsCost(c, epochs + 1, checkpoint_every) <= seconds)
    ++epochs;
  return epochs;
}

}  // namespace

BudgetPlan PlanBudget(Objective objective, bool store_subsampled,
                      const std::vector<BudgetCandidate>& candidates, double budget_seconds,
                      double seconds_left, uint32_t checkpoint_every) {
  const double usable = seconds_left - kBudgetMargin * budget_seconds;
  const uint32_t min_epochs = BudgetMinEpochs(objective, store_subsampled);
  const uint32_t floor_dim = std::min(BudgetFloorDim(objective), candidates.back().dim);
  std::vector<uint32_t> fits(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    fits[i] = WholeEpochsThatFit(candidates[i], usable, checkpoint_every);
  }
  const auto plan_of = [&](size_t i) {
    const BudgetCandidate& c = candidates[i];
    BudgetPlan plan;
    plan.objective = objective;
    plan.dim = c.dim;
    double epochs = fits[i];
    if (fits[i] < kBudgetMaxEpochs) {
      // What is left after the whole epochs, trained as part of one more
      // (whose checkpoint is already counted when it adds none).
      const double over = EpochsCost(c, fits[i] + 1, checkpoint_every) - usable;
      epochs += std::max(0.0, 1 - over / std::max(c.epoch_seconds, 1e-9));
    }
    SetPlannedEpochs(epochs, &plan);
    plan.predicted_seconds = EpochsCost(c, PlannedEpochs(plan), checkpoint_every);
    plan.short_budget = fits[i] < min_epochs;
    return plan;
  };
  for (size_t i = candidates.size(); i-- > 0;) {
    if (candidates[i].dim >= floor_dim && fits[i] >= min_epochs) return plan_of(i);
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].dim >= floor_dim && fits[i] >= (min_epochs + 1) / 2) return plan_of(i);
  }
  return plan_of(0);
}

double ReplanBudgetEpochs(double planned, uint32_t epochs_done, double epoch_seconds,
                          double seconds_left, double final_seconds, double budget_seconds,
                          double max_epochs) {
  // Done with a plan's partial last epoch: nothing to change. (Done with
  // its whole last epoch, time left may lengthen it.)
  if (epochs_done > planned + 1e-9) return planned;
  const double remaining = std::max(0.0, planned - epochs_done);
  const double overrun = remaining * epoch_seconds + final_seconds - seconds_left;
  const bool last_tenth = remaining <= std::max(2.0, planned / 10);
  const bool clearly_off = std::abs(overrun) > kBudgetReplanShare * budget_seconds;
  // The most epochs whose rest fits what is left, each taking `per_epoch`,
  // as a plan states them (SetPlannedEpochs), and never fewer than are done.
  const auto fit = [&](double per_epoch) {
    BudgetPlan plan;
    const double rest = std::max(0.0, seconds_left - final_seconds) / std::max(per_epoch, 1e-9);
    SetPlannedEpochs(epochs_done + rest, &plan);
    return std::max(PlannedEpochs(plan), static_cast<double>(epochs_done));
  };
  if (overrun > 0) {
    if (!clearly_off && !last_tenth) return planned;
    return std::min(fit(epoch_seconds), planned);
  }
  // Lengthening keeps a margin (kBudgetLengthenMargin of an epoch each): a
  // plan made longer on fast epochs must still fit when the next run slower.
  const double longer = fit(epoch_seconds * (1 + kBudgetLengthenMargin));
  if (!clearly_off && !(last_tenth && longer - planned >= kBudgetLeastShare - 1e-9)) return planned;
  return std::clamp(longer, planned, std::max(planned, max_epochs));
}

double RefitLastEpochShare(double planned, double trained, double epoch_seconds,
                           double seconds_left) {
  const double rate = trained / std::max(epoch_seconds, 1e-9);  // of the epoch per second
  double share = trained + rate * std::max(seconds_left, 0.0);
  if (share > planned)
    share = std::max(planned, ReachableShare(trained, epoch_seconds, seconds_left));
  return std::clamp(share, trained, 1.0);
}

double ReachableShare(double trained, double epoch_seconds, double seconds_left) {
  const double rate = trained / std::max(epoch_seconds, 1e-9);
  return trained + rate * std::max(seconds_left, 0.0) / (1 + kBudgetLengthenMargin);
}

Status WriteBudgetPlan(const std::string& path, const BudgetPlan& plan) {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  SG_RETURN_IF_ERROR(out.Append(
      fmt::format("objective\t{}\ndim\t{}\nepochs\t{}\nlast_epoch_share\t{}\nx_max\t{}\neta\t{}\n",
                  ObjectiveName(plan.objective), plan.dim, plan.epochs, plan.last_epoch_share,
                  plan.x_max, plan.eta)));
  if (plan.subword_buckets > 0)
    SG_RETURN_IF_ERROR(out.Append(fmt::format("subword_buckets\t{}\n", plan.subword_buckets)));
  return out.Commit();
}

Status ReadBudgetPlan(const std::string& path, BudgetPlan* plan) {
  std::string text;
  SG_RETURN_IF_ERROR(ReadFileToString(path, &text));
  const auto bad = [&](const std::string& why) {
    return Status::Corruption(fmt::format("{}: not a budget plan ({})", path, why));
  };
  BudgetPlan read;
  bool objective = false, dim = false, epochs = false, x_max = false;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) return bad("last line unterminated");
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return bad(fmt::format("line '{}' has no tab", line));
    const std::string key = line.substr(0, tab), value = line.substr(tab + 1);
    char* rest = nullptr;
    if (key == "objective") {
      if (!ParseObjective(value, &read.objective)) return bad(fmt::format("objective '{}'", value));
      objective = true;
    } else if (key == "dim" || key == "epochs") {
      const unsigned long n = std::strtoul(value.c_str(), &rest, 10);
      if (value.empty() || *rest != '\0' || n < 1 || n > 100000)
        return bad(fmt::format("{} '{}'", key, value));
      (key == "dim" ? read.dim : read.epochs) = static_cast<uint32_t>(n);
      (key == "dim" ? dim : epochs) = true;
    } else if (key == "subword_buckets") {  // optional: see BudgetPlan::subword_buckets
      const unsigned long n = std::strtoul(value.c_str(), &rest, 10);
      if (value.empty() || *rest != '\0' || n < 1 || n >= (1ul << 31))
        return bad(fmt::format("{} '{}'", key, value));
      read.subword_buckets = static_cast<uint32_t>(n);
    } else if (key == "last_epoch_share") {  // optional: plans before it trained whole epochs
      const double v = std::strtod(value.c_str(), &rest);
      if (value.empty() || *rest != '\0' || !(v > 0 && v <= 1))
        return bad(fmt::format("{} '{}'", key, value));
      read.last_epoch_share = v;
    } else if (key == "x_max" || key == "eta") {  // eta optional: see BudgetPlan::eta
      const double v = std::strtod(value.c_str(), &rest);
      if (value.empty() || *rest != '\0' || !(v > 0))
        return bad(fmt::format("{} '{}'", key, value));
      (key == "x_max" ? read.x_max : read.eta) = v;
      x_max = x_max || key == "x_max";
    } else {
      return bad(fmt::format("unknown key '{}'", key));
    }
  }
  if (!(objective && dim && epochs && x_max)) return bad("a key is missing");
  *plan = read;
  return Status::OK();
}

}  // namespace streamglove
