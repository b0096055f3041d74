// The Python module `streamglove._streamglove` (wrapped by the package
// python/streamglove/): ingest and train as the command line does, the
// vectors back as a NumPy array. Every call releases the GIL while it works
// (a progress callback takes it back for its own call); a failure raises
// streamglove.Error with the command line's one-line message, and a path
// holding a NUL raises ValueError before anything touches the disk.
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <tbb/global_control.h>

#include "streamglove/corpus_reader.h"
#include "streamglove/embed.h"
#include "streamglove/embeddings.h"
#include "streamglove/ingest.h"
#include "streamglove/interrupt.h"
#include "streamglove/options.h"
#include "streamglove/phrases.h"
#include "streamglove/subwords.h"
#include "streamglove/train.h"

namespace py = pybind11;

namespace streamglove {
namespace {

// Raised for every error status: its message is the CLI's error line.
struct StatusError {
  Status status;
};

void ThrowIfError(const Status& s) {
  if (!s.ok()) throw StatusError{s};
}

// `message` as one printable line of Python text, whatever a quoted file put
// in it: bytes that are not UTF-8 (which PyErr_SetString turns into an empty
// message) and characters that are not printable (a newline, a terminal's
// escape, a NUL) are written as escapes: \xff, \x0d, \x1b, \u2028.
py::str PrintableLine(const std::string& message) {
  const py::str text = py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace"));
  if (!text) throw py::error_already_set();
  std::vector<Py_UCS4> line;
  line.reserve(message.size());
  const Py_ssize_t n = PyUnicode_GET_LENGTH(text.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Py_UCS4 c = PyUnicode_READ_CHAR(text.ptr(), i);
    if (Py_UNICODE_ISPRINTABLE(c)) {
      line.push_back(c);
      continue;
    }
    char escaped[16];
    const char* format = c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x";
    std::snprintf(escaped, sizeof escaped, format, static_cast<unsigned>(c));
    for (const char* e = escaped; *e != 0; ++e) line.push_back(static_cast<unsigned char>(*e));
  }
  const py::str printable = py::reinterpret_steal<py::str>(PyUnicode_FromKindAndData(
      PyUnicode_4BYTE_KIND, line.data(), static_cast<Py_ssize_t>(line.size())));
  if (!printable) throw py::error_already_set();
  return printable;
}

// Raises `type` with `message` as PrintableLine writes it.
[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetObject(type, PrintableLine(message).ptr());
  throw py::error_already_set();
}

// A path reaches the file system as a C string, which a NUL cuts short (so
// "p\0 2" would name "p"): refused as Python's open() refuses it, with a
// ValueError, naming the argument.
void CheckPath(const std::string& argument, const std::string& path) {
  if (path.find('\0') != std::string::npos)
    Raise(PyExc_ValueError, argument + ": the path '" + path + "' holds a NUL character");
}

void CheckPaths(const std::string& argument, const std::vector<std::string>& paths) {
  for (size_t i = 0; i < paths.size(); ++i)
    CheckPath(argument + "[" + std::to_string(i) + "]", paths[i]);
}

// The value the library's names (`name_of`) call `name`, or an error listing them.
template <typename Enum>
Enum Pick(const std::string& what, const std::string& name, std::initializer_list<Enum> values,
          const char* (*name_of)(Enum)) {
  Enum picked{};
  if (ParseNamed(name, values, name_of, &picked)) return picked;
  std::string names;
  for (Enum v : values) names += (names.empty() ? "" : ", ") + std::string(name_of(v));
  throw StatusError{Status::InvalidArgument(what + ": '" + name + "' is none of " + names)};
}

// phrases: a phrase list's path, or empty for none.
CorpusOptions MakeCorpusOptions(const std::string& input_format, const std::string& tokenizer,
                                bool lowercase, const std::string& json_field,
                                bool skip_bad_records, const std::string& phrases = "") {
  CorpusOptions c;
  c.format = Pick("input_format", input_format,
                  {InputFormat::kAuto, InputFormat::kText, InputFormat::kJsonl, InputFormat::kWet},
                  InputFormatName);
  c.tokenizer = Pick("tokenizer", tokenizer,
                     {TokenizerKind::kWhitespace, TokenizerKind::kWords, TokenizerKind::kIcu},
                     TokenizerKindName);
  c.lowercase = lowercase;
  c.json_field = json_field;
  c.skip_bad_records = skip_bad_records;
  if (!phrases.empty()) ThrowIfError(PhraseList::Read(phrases, &c.phrases));
  ThrowIfError(ValidateCorpusOptions(c));
  return c;
}

// Passes each epoch to a Python callable, as a dict (epoch, epochs, loss,
// seconds, pairs). An exception the callable raises cannot unwind through
// the trainer's threads: the first is kept, no later epoch is reported, and
// it is raised when training returns.
class EpochReporter {
 public:
  EpochReporter(const std::function<void(py::dict)>& on_epoch, TrainOptions* options) {
    if (!on_epoch) return;
    options->on_epoch = [this, on_epoch](const TrainStats& s, const EpochStats& e) {
      py::gil_scoped_acquire locked;
      if (raised_ != nullptr) return;
      py::dict d;
      d["epoch"] = e.epoch;
      d["epochs"] = s.epochs_planned;
      d["loss"] = e.loss;
      d["seconds"] = e.seconds;
      d["pairs"] = e.pairs;
      try {
        on_epoch(d);
      } catch (py::error_already_set& error) {
        raised_ = std::make_unique<py::error_already_set>(std::move(error));
      }
    };
  }
  // Training's error, unless the callable raised (that one wins).
  void ThrowIfError(const Status& s) const {
    if (raised_ == nullptr) streamglove::ThrowIfError(s);
  }
  void RaiseCallbackError() {
    if (raised_ != nullptr) throw std::move(*raised_);
  }

 private:
  std::unique_ptr<py::error_already_set> raised_;
};

py::dict PyIngest(const std::string& store, const std::vector<std::string>& paths, uint32_t window,
                  uint64_t min_count, uint64_t max_vocab, double subsample, bool fixed_vocab,
                  const std::string& weighting, const std::string& input_format,
                  const std::string& tokenizer, bool lowercase, const std::string& json_field,
                  bool skip_bad_records, const std::string& phrases, size_t memory, int threads,
                  bool progress) {
  CheckPath("store", store);
  CheckPaths("inputs", paths);
  const CorpusOptions corpus =
      MakeCorpusOptions(input_format, tokenizer, lowercase, json_field, skip_bad_records, phrases);
  IngestOptions o;
  o.window = window;
  o.min_count = min_count;
  o.max_vocab = max_vocab;
  o.subsample = subsample;
  o.fixed_vocabulary = fixed_vocab;
  o.weighting =
      Pick("weighting", weighting,
           {DistanceWeighting::kHarmonic, DistanceWeighting::kLinear, DistanceWeighting::kNone},
           DistanceWeightingName);
  o.memory_bytes = memory;
  o.threads = threads;
  o.progress = progress;
  ThrowIfError(ValidateIngestOptions(o));
  std::vector<InputFile> inputs;
  ThrowIfError(ExpandInputs(paths, corpus.format, &inputs));
  IngestStats s;
  {
    // Ctrl-C stops the call as it stops the command (after a committed
    // batch), and is raised as KeyboardInterrupt.
    ScopedInterruptHandlers interruptible;
    py::gil_scoped_release unlocked;
    ThrowIfError(streamglove::Ingest(store, inputs, corpus, o, &s));
  }
  py::dict d;
  d["inputs_ingested"] = s.inputs_ingested;
  d["inputs_skipped"] = s.inputs_skipped;
  d["tokens"] = s.tokens;
  d["pair_increments"] = s.increments;
  d["vocab_size"] = s.vocab_size;
  d["new_words"] = s.new_words;
  d["seconds"] = s.vocab_seconds + s.count_seconds + s.commit_seconds;
  d["messages"] = s.messages;
  return d;
}

// subwords: None leaves TrainOptions' default (on for sgns).
void SetSubwords(std::optional<bool> subwords, TrainOptions* o) {
  if (!subwords) return;
  o->subwords.chosen = true;
  o->subwords.enabled = *subwords;
}

py::dict PyTrain(const std::string& store, const std::string& output, const std::string& objective,
                 uint32_t dim, uint32_t epochs, double x_max, double budget, uint64_t seed,
                 int threads, size_t memory, uint64_t min_count, uint64_t max_vocab,
                 const std::string& warm_start, bool resume, bool progress,
                 std::optional<bool> subwords, const std::function<void(py::dict)>& on_epoch) {
  CheckPath("store", store);
  CheckPath("output", output);
  CheckPath("warm_start", warm_start);
  TrainOptions o;
  o.objective = Pick("objective", objective, {Objective::kGlove, Objective::kSgns}, ObjectiveName);
  o.dim = dim;
  o.epochs = epochs;
  o.x_max = x_max;
  o.budget_seconds = budget;
  o.budget_choices.objective = false;
  o.seed = seed;
  o.threads = threads;
  o.memory_bytes = memory;
  o.min_count = min_count;
  o.max_vocab = max_vocab;
  o.warm_start = warm_start;
  o.resume = resume;
  o.progress = progress;
  SetSubwords(subwords, &o);
  EpochReporter reporter(on_epoch, &o);
  ThrowIfError(ValidateTrainOptions(o));
  TrainStats s;
  {
    ScopedInterruptHandlers interruptible;  // as in PyIngest: a checkpoint is kept
    py::gil_scoped_release unlocked;
    const Status status = streamglove::Train(store, output, o, &s);
    reporter.ThrowIfError(status);
  }
  reporter.RaiseCallbackError();
  py::dict d;
  d["vocab_size"] = s.vocab_size;
  d["pairs"] = s.pairs;
  d["epochs"] = s.epochs.size();
  d["dim"] = s.dim;
  d["objective"] = ObjectiveName(s.objective);
  d["seconds"] = s.seconds;
  std::vector<double> losses;
  for (const EpochStats& e : s.epochs) losses.push_back(e.loss);
  d["losses"] = losses;
  return d;
}

py::list PyPhrases(const std::vector<std::string>& paths, const std::string& store,
                   const std::string& output, const std::string& score,
                   std::optional<double> threshold, uint64_t min_count, uint32_t passes,
                   const std::string& input_format, const std::string& tokenizer, bool lowercase,
                   const std::string& json_field, bool skip_bad_records, size_t memory, int threads,
                   bool progress) {
  CheckPaths("inputs", paths);
  CheckPath("store", store);
  CheckPath("output", output);
  const CorpusOptions corpus =
      MakeCorpusOptions(input_format, tokenizer, lowercase, json_field, skip_bad_records);
  PhraseOptions o;
  o.score = Pick("score", score, {PhraseScore::kWord2Phrase, PhraseScore::kNpmi}, PhraseScoreName);
  o.threshold = threshold.value_or(o.score == PhraseScore::kNpmi ? 0.5 : 100);
  o.min_count = min_count;
  o.passes = passes;
  o.memory_bytes = memory;
  o.threads = threads;
  o.progress = progress;
  ThrowIfError(ValidatePhraseOptions(o));
  std::vector<InputFile> inputs;
  ThrowIfError(ExpandInputs(paths, corpus.format, &inputs));
  std::vector<Phrase> found;
  {
    ScopedInterruptHandlers interruptible;
    py::gil_scoped_release unlocked;
    PhraseStats stats;
    ThrowIfError(FindPhrases(store, inputs, corpus, o, &found, &stats));
    ThrowIfError(PhraseList(found).Write(output));
  }
  py::list out;
  for (const Phrase& p : found)
    out.append(py::make_tuple(p.pass, p.left, p.right, p.score, p.count));
  return out;
}

py::dict PyEmbed(const std::vector<std::string>& paths, const std::string& output,
                 const std::string& objective, std::string store, double budget, uint32_t epochs,
                 uint32_t dim, uint64_t min_count, bool fixed_vocab, uint64_t seed, int threads,
                 size_t memory, const std::string& input_format, const std::string& tokenizer,
                 bool lowercase, const std::string& json_field, bool skip_bad_records,
                 const std::string& phrases, bool progress, std::optional<bool> subwords,
                 const std::function<void(py::dict)>& on_epoch) {
  CheckPaths("inputs", paths);
  CheckPath("output", output);
  CheckPath("store", store);
  const CorpusOptions corpus =
      MakeCorpusOptions(input_format, tokenizer, lowercase, json_field, skip_bad_records, phrases);
  EmbedOptions options;
  options.settings = EmbedSettingsFor(
      Pick("objective", objective, {Objective::kGlove, Objective::kSgns}, ObjectiveName));
  IngestOptions& i = options.settings.ingest;
  TrainOptions& t = options.settings.train;
  if (epochs > 0) t.epochs = epochs;
  if (dim > 0) t.dim = dim;
  i.min_count = t.min_count = min_count;
  i.fixed_vocabulary = fixed_vocab;
  t.seed = seed;
  SetSubwords(subwords, &t);
  i.threads = t.threads = threads;
  i.memory_bytes = t.memory_bytes = memory;
  i.progress = t.progress = progress;
  // Every budget reaches ValidateTrainOptions (0: none), which refuses for
  // embed what it refuses for train (a negative or non-finite one).
  options.budget_seconds = t.budget_seconds = budget;
  if (budget > 0) {
    t.budget_choices.objective = false;
    t.budget_choices.dim = dim == 0;
    t.budget_choices.x_max = false;
  }
  EpochReporter reporter(on_epoch, &t);
  ThrowIfError(ValidateIngestOptions(i));
  ThrowIfError(ValidateTrainOptions(t));
  std::vector<InputFile> inputs;
  ThrowIfError(ExpandInputs(paths, corpus.format, &inputs));
  if (store.empty()) store = output + ".store";
  EmbedStats s;
  {
    ScopedInterruptHandlers interruptible;  // as in PyIngest
    py::gil_scoped_release unlocked;
    const Status status = Embed(store, inputs, corpus, output, options, &s);
    reporter.ThrowIfError(status);
  }
  reporter.RaiseCallbackError();
  py::dict d;
  d["store"] = store;
  d["inputs_ingested"] = s.ingest.inputs_ingested;
  d["tokens"] = s.ingest.tokens;
  d["new_words"] = s.ingest.new_words;
  d["vocab_size"] = s.train.vocab_size;
  d["dim"] = s.train.dim;
  d["epochs"] = s.train.epochs.size();
  d["resumed"] = s.resumed;
  d["ingest_seconds"] = s.ingest_seconds;
  d["seconds"] = s.seconds;
  return d;
}

// (words, float32 matrix of one row per word), in the file's order.
py::tuple PyLoadVectors(const std::string& path) {
  CheckPath("path", path);
  auto embeddings = std::make_unique<Embeddings>();
  {
    py::gil_scoped_release unlocked;
    ThrowIfError(embeddings->Load(path));
  }
  const uint32_t n = embeddings->size(), dim = embeddings->dim();
  py::array_t<float> matrix({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(dim)});
  float* out = matrix.mutable_data();
  std::vector<std::string> words(n);
  {
    py::gil_scoped_release unlocked;
    for (uint32_t i = 0; i < n; ++i) {
      words[i] = embeddings->word(i);
      for (uint32_t k = 0; k < dim; ++k)
        out[size_t{i} * dim + k] = static_cast<float>(embeddings->value(i, k));
    }
  }
  return py::make_tuple(words, matrix);
}

// (found, float32 matrix): any word's vector from a vectors file or a subword
// model (a word without one: a zero row, found False).
py::tuple PyWordVectors(const std::string& path, const std::vector<std::string>& words) {
  CheckPath("path", path);
  Embeddings embeddings;
  {
    py::gil_scoped_release unlocked;
    ThrowIfError(embeddings.Load(path));
  }
  const uint32_t dim = embeddings.dim();
  py::array_t<float> matrix(
      {static_cast<py::ssize_t>(words.size()), static_cast<py::ssize_t>(dim)});
  float* out = matrix.mutable_data();
  std::vector<bool> found(words.size());
  std::vector<float> v;
  for (size_t i = 0; i < words.size(); ++i) {
    found[i] = embeddings.WordVector(words[i], &v);
    for (uint32_t k = 0; k < dim; ++k) out[i * dim + k] = found[i] ? v[k] : 0.0f;
  }
  return py::make_tuple(found, matrix);
}

py::list PyCharNgrams(const std::string& word, uint32_t minn, uint32_t maxn, uint32_t buckets) {
  py::list out;
  for (const std::string& g : CharNgrams(word, minn, maxn))
    out.append(py::make_tuple(py::bytes(g).attr("decode")("utf-8", "surrogateescape"),
                              NgramHash(g) % buckets));
  return out;
}

}  // namespace
}  // namespace streamglove

PYBIND11_MODULE(_streamglove, m) {
  using namespace streamglove;
  using namespace pybind11::literals;
  m.doc() = "streamglove's library: ingest a corpus into a store, train vectors, load them";
  // threads= above the core count runs that many threads, as --threads does
  // (src/cli/main.cc): oneTBB otherwise caps an arena at the cores, and says
  // so on stderr. For the interpreter's life; it only raises oneTBB's cap.
  static const tbb::global_control threads_above_cores(tbb::global_control::max_allowed_parallelism,
                                                       kMaxThreads);
  static py::exception<StatusError> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const py::str message = PrintableLine(e.status.message());
      PyErr_SetObject(
          e.status.code() == Status::Code::kInterrupted ? PyExc_KeyboardInterrupt : error.ptr(),
          message.ptr());
    }
  });
  const size_t gib = size_t{1} << 30;
  m.def("ingest", &PyIngest,
        "Counts the inputs' co-occurrences into the store (created if new); resumable, "
        "and a later call adds new inputs. Returns the summary as a dict.",
        "store"_a, "inputs"_a, py::kw_only(), "window"_a = 10, "min_count"_a = 5, "max_vocab"_a = 0,
        "subsample"_a = 0.0, "fixed_vocab"_a = false, "weighting"_a = "harmonic",
        "input_format"_a = "auto", "tokenizer"_a = "whitespace", "lowercase"_a = false,
        "json_field"_a = "text", "skip_bad_records"_a = false, "phrases"_a = "", "memory"_a = gib,
        "threads"_a = 0, "progress"_a = false);
  m.def("train", &PyTrain,
        "Trains vectors on the store and writes them to output (GloVe text). on_epoch, if "
        "given, is called after each epoch with a dict (epoch, epochs, loss, seconds, pairs). "
        "budget (seconds, 0: none) chooses dim, epochs and x_max as `train --budget` does.",
        "store"_a, "output"_a, py::kw_only(), "objective"_a = "glove", "dim"_a = 50,
        "epochs"_a = 25, "x_max"_a = 100.0, "budget"_a = 0.0, "seed"_a = 1, "threads"_a = 0,
        "memory"_a = gib, "min_count"_a = 0, "max_vocab"_a = 0, "warm_start"_a = "",
        "resume"_a = false, "progress"_a = false, "subwords"_a = py::none(),
        "on_epoch"_a = nullptr);
  m.def("embed", &PyEmbed,
        "Corpus to vectors in one call, as `streamglove embed`: counts the inputs into a store "
        "made for the objective (store: default OUTPUT.store, kept: a later call adds inputs, "
        "a rerun after an interruption resumes), then trains. budget (seconds, 0: none) covers "
        "both stages; epochs and dim 0 take the objective's (sgns: 100 x 5, glove: 50 x 15). "
        "fixed_vocab: GloVe's new store fixes its vocabulary, as --fixed-vocab.",
        "inputs"_a, "output"_a, py::kw_only(), "objective"_a = "sgns", "store"_a = "",
        "budget"_a = 0.0, "epochs"_a = 0, "dim"_a = 0, "min_count"_a = 5, "fixed_vocab"_a = false,
        "seed"_a = 1, "threads"_a = 0, "memory"_a = gib, "input_format"_a = "auto",
        "tokenizer"_a = "whitespace", "lowercase"_a = false, "json_field"_a = "text",
        "skip_bad_records"_a = false, "phrases"_a = "", "progress"_a = false,
        "subwords"_a = py::none(), "on_epoch"_a = nullptr);
  m.def("phrases", &PyPhrases,
        "Finds the inputs' phrases as `streamglove phrases` does (bigram stores per pass under "
        "store, kept for reruns), writes their list to output (the --phrases / phrases= format) "
        "and returns them as [(pass, left, right, score, count)]. threshold None: 100 for "
        "word2phrase, 0.5 for npmi.",
        "inputs"_a, "store"_a, "output"_a, py::kw_only(), "score"_a = "word2phrase",
        "threshold"_a = py::none(), "min_count"_a = 5, "passes"_a = 2, "input_format"_a = "auto",
        "tokenizer"_a = "whitespace", "lowercase"_a = false, "json_field"_a = "text",
        "skip_bad_records"_a = false, "memory"_a = gib, "threads"_a = 0, "progress"_a = false);
  m.def("load_vectors", &PyLoadVectors,
        "Reads a vectors file (GloVe text, word2vec text or binary): (words, float32 matrix).",
        "path"_a);
  m.def("word_vectors", &PyWordVectors,
        "Any word's vector, (found, float32 matrix): a vectors file answers its words, a subword "
        "model (train's OUT.model) every word from its character n-grams.",
        "path"_a, "words"_a);
  m.def("char_ngrams", &PyCharNgrams,
        "A word's character n-grams and their buckets, fastText's scheme: [(ngram, bucket)].",
        "word"_a, "minn"_a = 3, "maxn"_a = 6, "buckets"_a = kDefaultSubwordBuckets);
}
