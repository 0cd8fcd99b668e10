// build/bin/rc_tape_memory [--batch B] [--passage P] [--question Q] [--chars L] [--cell TYPE] [--steps N]
//                          [--data FILE.jsonl] [--keep-gradients]
// Where a training step of the R-Net (rc_model.h) keeps its memory (issue 53 point 5): one batch of B questions
// whose passages all have P tokens and questions Q tokens (the worst case of data.passage_limit and question_limit;
// the words are the running text of FILE's contexts and questions, data/squad/train.jsonl, cut to L characters),
// the recipe's model (experiments/base/rc.json: word vectors 100 fixed, char 8 / 100, hidden 75, 3 layers, dropout
// 0.3). After the forward pass and after backward, the bytes of the tape's values and gradients (Graph::value_bytes,
// grad_bytes) by model part (RcModel's part marks) and by op within each part, in MiB; then N steps more with
// passages 7 tokens shorter each (batches of other shapes, as the trainer's length-sorted batches are), the bytes
// the pool keeps between steps and the process's resident set (its peak: getrusage). backward() releases each
// gradient once its closure has run (Graph::backward); --keep-gradients keeps them all, so that the tables show every
// gradient the step makes (and the resident set what it was before that release).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/memory_use.h"
#include "graph/graph.h"
#include "rc_model.h"

namespace {

using twin::Index;

struct Args {
  Index batch = 8, passage = 400, question = 50, chars = 16;
  int steps = 2;
  std::string cell = "gru", data = "data/squad/train.jsonl";
  bool keep_gradients = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--keep-gradients") {
      a.keep_gradients = true;
      continue;
    }
    TW_CHECK(i + 1 < argc, "rc_tape_memory: ", k, " needs a value");
    const std::string v = argv[++i];
    if (k == "--batch") a.batch = std::stol(v);
    else if (k == "--passage") a.passage = std::stol(v);
    else if (k == "--question") a.question = std::stol(v);
    else if (k == "--chars") a.chars = std::stol(v);
    else if (k == "--steps") a.steps = std::stoi(v);
    else if (k == "--cell") a.cell = v;
    else if (k == "--data") a.data = v;
    else TW_FAIL("rc_tape_memory: unknown option ", k);
  }
  return a;
}

constexpr int kWordVocab = 1000, kCharVocab = 258;   // ids 0 padding, 1 unknown, 2 + byte

struct Text {
  std::vector<std::string> passage, question;   // running tokens of the file's contexts / questions
};

Text read_text(const std::string& path, size_t need_p, size_t need_q) {
  std::ifstream in(path);
  TW_CHECK(in.good(), "rc_tape_memory: cannot read ", path, " (HINT: run data_prep/squad.py or pass --data)");
  Text t;
  std::string line;
  while ((t.passage.size() < need_p || t.question.size() < need_q) && std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    for (const auto& w : j.at("tokens")) t.passage.push_back(w.get<std::string>());
    for (const auto& q : j.at("qas"))
      for (const auto& w : q.at("question_tokens")) t.question.push_back(w.get<std::string>());
  }
  TW_CHECK(t.passage.size() >= need_p && t.question.size() >= need_q, "rc_tape_memory: ", path, " has too few tokens");
  return t;
}

// Sequences of T tokens each, time-major, from `words` starting at `from`.
void fill(const std::vector<std::string>& words, size_t from, Index T, Index B, Index L, std::vector<int>& ids,
          std::vector<int>& chars, twin::Mat& mask) {
  ids.assign(static_cast<size_t>(T * B), 0);
  chars.assign(static_cast<size_t>(T * B * L), 0);
  mask = twin::Mat::Ones(T * B, 1);
  for (Index b = 0; b < B; ++b)
    for (Index t = 0; t < T; ++t) {
      const std::string& w = words[from + static_cast<size_t>(b * T + t)];
      const size_t row = static_cast<size_t>(t * B + b);
      ids[row] = 2 + static_cast<int>(std::hash<std::string>{}(w) % (kWordVocab - 2));
      for (Index c = 0; c < L && c < static_cast<Index>(w.size()); ++c)
        chars[row * static_cast<size_t>(L) + static_cast<size_t>(c)] = 2 + static_cast<unsigned char>(w[c]);
    }
}

twin::rc::RcBatch make(const Text& text, Index B, Index P, Index Q, Index L) {
  twin::rc::RcBatch b;
  b.batch = B, b.passage_len = P, b.question_len = Q, b.word_len = L;
  fill(text.passage, 0, P, B, L, b.passage_words, b.passage_chars, b.passage_mask);
  fill(text.question, 0, Q, B, L, b.question_words, b.question_chars, b.question_mask);
  b.answer_start.assign(static_cast<size_t>(B), 0);
  b.answer_end.assign(static_cast<size_t>(B), static_cast<int>(std::min<Index>(3, P - 1)));
  return b;
}

constexpr double kMiB = 1024.0 * 1024.0;

struct Bytes {
  double value = 0, grad = 0;
  long nodes = 0;
};

void report(const twin::Graph& g, const twin::rc::RcModel::PartMarks& marks) {
  std::map<std::string, Bytes> parts;
  std::map<std::string, std::map<std::string, Bytes>> ops;
  Bytes total;
  size_t m = 0;
  for (twin::NodeId id = 0; id < static_cast<twin::NodeId>(g.size()); ++id) {
    while (m + 1 < marks.size() && marks[m + 1].second <= static_cast<size_t>(id)) ++m;
    const std::string part = marks.empty() || static_cast<size_t>(id) < marks[0].second ? "(before)" : marks[m].first;
    const double v = static_cast<double>(g.value_bytes(id)) / kMiB, d = static_cast<double>(g.grad_bytes(id)) / kMiB;
    for (Bytes* b : {&parts[part], &ops[part][g.op(id)], &total}) b->value += v, b->grad += d, ++b->nodes;
  }
  std::printf("| part | nodes | values MiB | gradients MiB | largest ops (values + gradients MiB) |\n"
              "|---|---|---|---|---|\n");
  for (const auto& [name, at] : marks) {
    if (!parts.count(name)) continue;
    const Bytes& b = parts[name];
    std::vector<std::pair<double, std::string>> by;
    for (const auto& [op, ob] : ops[name]) by.emplace_back(ob.value + ob.grad, op);
    std::sort(by.rbegin(), by.rend());
    std::string top;
    for (size_t i = 0; i < by.size() && i < 5; ++i) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %.0f", i ? ", " : "", by[i].second.c_str(), by[i].first);
      top += buf;
    }
    std::printf("| %s | %ld | %.0f | %.0f | %s |\n", name.c_str(), b.nodes, b.value, b.grad, top.c_str());
  }
  std::printf("| total | %ld | %.0f | %.0f | |\n", total.nodes, total.value, total.grad);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    const Text text = read_text(a.data, static_cast<size_t>(a.batch * a.passage),
                                static_cast<size_t>(a.batch * a.question));
    twin::rc::RcModelConfig cfg;   // experiments/base/rc.json's model section
    cfg.word_dim = 100;
    cfg.cell.type = a.cell;
    twin::ParamStore store(1);
    twin::rc::RcModel model(cfg, kWordVocab, kCharVocab, store);
    twin::rc::RcModel::PartMarks marks;
    model.set_part_marks(&marks);
    twin::Graph g(twin::Mode::kTrain);
    g.keep_gradients(a.keep_gradients);
    twin::Rng rng(1);
    std::printf("B=%ld P=%ld Q=%ld L=%ld cell %s; RSS before the step %.0f MiB\n\n", a.batch, a.passage, a.question,
                a.chars, a.cell.c_str(), twin::current_rss_mb());
    for (int step = 0; step <= a.steps; ++step) {
      const Index P = a.passage - 7 * step;
      TW_CHECK(P > 3, "rc_tape_memory: --steps too many for --passage");
      g.clear();
      marks.clear();
      const twin::rc::RcBatch batch = make(text, a.batch, P, a.question, a.chars);
      twin::Var loss = model.summed_loss(g, batch, rng, true);
      const double rss_fwd = twin::current_rss_mb();
      if (step == 0) {
        std::printf("After the forward pass (%.0f MiB resident):\n\n", rss_fwd);
        report(g, marks);
      }
      g.backward(loss);
      store.zero_grad();
      if (step == 0) {
        std::printf("\nAfter backward (%.0f MiB resident):\n\n", twin::current_rss_mb());
        report(g, marks);
        std::printf("\n");
      }
      std::printf("step %d (P=%ld): resident %.0f MiB after forward, %.0f after backward, peak %.0f; pool before "
                  "the step's clear held %.0f MiB\n", step, P, rss_fwd, twin::current_rss_mb(), twin::peak_rss_mb(),
                  static_cast<double>(g.pooled_bytes()) / kMiB);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rc_tape_memory: %s\n", e.what());
    return 2;
  }
}
