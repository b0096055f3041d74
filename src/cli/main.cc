// streamglove: one binary, one subcommand per pipeline stage. main() only
// parses, dispatches and turns a Status into one stderr line and an exit code:
// 0 success, 1 error, 2 bad usage.
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <tbb/global_control.h>

#include "cli/embed_command.h"
#include "cli/eval_commands.h"
#include "cli/mpi_launch.h"
#include "cli/phrases_command.h"
#include "cli/plot_command.h"
#include "cli/store_commands.h"
#include "cli/train_command.h"
#include "cli/vocab_command.h"
#include "streamglove/interrupt.h"
#include "streamglove/options.h"

namespace {

// The exit status of a process whose command failed with `status`, a
// failure every process of its job met alike. A rank of an MPI job that
// leaves the report to another exits 0, and the job's status is the
// reporting rank's: Open MPI's mpirun ends the whole job as soon as any rank
// exits non-zero, which can stop the reporting rank before its error line is
// written.
int FailureExitStatus(bool reports_errors, int status) { return reports_errors ? status : 0; }

}  // namespace

int main(int argc, char** argv) {
  using namespace streamglove;
  // --threads N runs N threads, above the core count too: oneTBB otherwise
  // caps every arena at the cores, and says so on stderr.
  const tbb::global_control threads_above_cores(tbb::global_control::max_allowed_parallelism,
                                                kMaxThreads);
  CLI::App app{"streamglove: GloVe word embeddings for corpora larger than RAM", "streamglove"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "streamglove 0.1.0");
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(std::make_unique<VocabCommand>(&app));
  commands.push_back(std::make_unique<IngestCommand>(&app));
  commands.push_back(std::make_unique<PhrasesCommand>(&app));
  commands.push_back(std::make_unique<StatsCommand>(&app));
  commands.push_back(std::make_unique<DumpCommand>(&app));
  commands.push_back(std::make_unique<VerifyCommand>(&app));
  commands.push_back(std::make_unique<TrainCommand>(&app));
  commands.push_back(std::make_unique<EmbedCommand>(&app));
  CLI::App* eval =
      app.add_subcommand("eval", "Score a vectors file on analogy or similarity benchmarks");
  eval->require_subcommand(1);
  commands.push_back(std::make_unique<EvalAnalogyCommand>(eval));
  commands.push_back(std::make_unique<EvalSimilarityCommand>(eval));
  commands.push_back(std::make_unique<QueryCommand>(&app, QueryCommand::Kind::kNeighbors));
  commands.push_back(std::make_unique<QueryCommand>(&app, QueryCommand::Kind::kAnalogy));
  commands.push_back(std::make_unique<PrintWordVectorsCommand>(&app));
  CLI::App* plot = app.add_subcommand(
      "plot", "Pictures of training: the loss per epoch, a 2-D map of words (SVG)");
  plot->require_subcommand(1);
  commands.push_back(std::make_unique<PlotLossCommand>(plot));
  commands.push_back(std::make_unique<PlotMapCommand>(plot));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Under an MPI launcher every rank parses the same line: one reports.
    const bool reports = MpiLauncherRank() == 0;
    if (reports) fmt::print(stderr, "streamglove: {} (see --help)\n", e.what());
    return FailureExitStatus(reports, 2);
  }
  for (auto& command : commands) {
    if (!command->selected()) continue;
    if (Status s = command->Validate(); !s.ok()) {
      if (command->reports_errors()) fmt::print(stderr, "streamglove: {}\n", s.message());
      return FailureExitStatus(command->reports_errors(), 2);
    }
    InstallInterruptHandlers();
    Status s;
    // Expected failures come back as a Status; an allocation the machine (or
    // `ulimit -v`) refuses, or a thread it cannot start, comes as an
    // exception, and still gets one line and exit 1.
    try {
      s = command->Run();
    } catch (const std::bad_alloc&) {
      s = Status::IOError(
          "out of memory: the machine (or ulimit -v) gave less than this run needs; "
          "lower --memory or --threads where the command takes them");
    } catch (const std::system_error& e) {
      // std::thread reports a refused thread as EAGAIN, whose text alone
      // ("Resource temporarily unavailable") names neither cause nor cure.
      s = Status::IOError(
          e.code() == std::errc::resource_unavailable_try_again
              ? fmt::format("a thread could not start ({}): the machine's limits (ulimit "
                            "-v, -s or -u) leave this run too little; raise them, or lower "
                            "--memory or --threads where the command takes them",
                            e.what())
              : std::string(e.what()));
    } catch (const std::exception& e) {
      s = Status::IOError(e.what());
    }
    if (!s.ok()) {
      const int status = s.code() == Status::Code::kInterrupted ? 128 + InterruptSignal() : 1;
      // A distributed job's outcome, which every rank agreed on, was printed
      // by rank 0; any other failure is this process's own to report.
      if (command->error_printed()) return FailureExitStatus(command->reports_errors(), status);
      PrintErrorLine(s);
      return status;
    }
    return 0;
  }
  return 2;
}
