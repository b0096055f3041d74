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

namespace {

// Epochs of `c` that fit in `seconds` (checkpoints and the vectors file
// included), and the time they take.
uint32_t EpochsThatFit(const BudgetCandidate& c, double seconds, uint32_t checkpoint_every,
                       double* used) {
  const auto cost = [&](uint32_t epochs) {
    const uint32_t checkpoints =
        epochs / checkpoint_every + (epochs % checkpoint_every != 0 ? 1 : 0);
    return c.setup_seconds + epochs * c.epoch_seconds + (checkpoints + 1) * c.checkpoint_seconds;
  };
  uint32_t epochs = 0;
  while (epochs < kBudgetMaxEpochs && cost(epochs + 1) <= seconds) ++epochs;
  *used = cost(std::max<uint32_t>(epochs, 1));
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
  std::vector<double> used(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    fits[i] = EpochsThatFit(candidates[i], usable, checkpoint_every, &used[i]);
  }
  const auto plan_of = [&](size_t i) {
    BudgetPlan plan;
    plan.objective = objective;
    plan.dim = candidates[i].dim;
    plan.epochs = std::max<uint32_t>(fits[i], 1);
    plan.predicted_seconds = used[i];
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

uint32_t ReplanBudgetEpochs(uint32_t planned, uint32_t epochs_done, double epoch_seconds,
                            double seconds_left, double final_seconds, double budget_seconds,
                            uint32_t max_epochs) {
  if (epochs_done >= planned) return planned;
  const uint32_t remaining = planned - epochs_done;
  const double overrun = remaining * epoch_seconds + final_seconds - seconds_left;
  const bool last_tenth = remaining <= std::max<uint32_t>(2, planned / 10);
  const bool clearly_off = std::abs(overrun) > kBudgetReplanShare * budget_seconds;
  // The most epochs whose rest fits what is left, each taking `per_epoch`.
  const auto fit = [&](double per_epoch) {
    return epochs_done +
           std::floor(std::max(0.0, seconds_left - final_seconds) / std::max(per_epoch, 1e-9));
  };
  if (overrun > 0) {
    if (!clearly_off && !last_tenth) return planned;
    return static_cast<uint32_t>(std::min(fit(epoch_seconds), static_cast<double>(planned)));
  }
  // Lengthening keeps a margin (kBudgetLengthenMargin of an epoch each): a
  // plan made longer on fast epochs must still fit when the next run slower.
  const double margin_epoch = epoch_seconds * (1 + kBudgetLengthenMargin);
  if (!clearly_off && !(last_tenth && -overrun >= margin_epoch)) return planned;
  return static_cast<uint32_t>(std::clamp(fit(margin_epoch), static_cast<double>(planned),
                                          static_cast<double>(std::max(planned, max_epochs))));
}

Status WriteBudgetPlan(const std::string& path, const BudgetPlan& plan) {
  AtomicFileWriter out;
  SG_RETURN_IF_ERROR(out.Open(path));
  SG_RETURN_IF_ERROR(out.Append(
      fmt::format("objective\t{}\ndim\t{}\nepochs\t{}\nx_max\t{}\neta\t{}\n",
                  ObjectiveName(plan.objective), plan.dim, plan.epochs, plan.x_max, plan.eta)));
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
