// Activation patching over the hook points (patching.h): the clean run is read at the site, the
// corrupted run's residual stream is kept at every layer, and a cell is the corrupted run from the
// cell's layer on with one hook writing the clean value in.
#include "patching.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "error.h"
#include "half.h"

namespace attnscope {

namespace {

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

constexpr const char* kSiteNames[] = {"resid_pre", "attn_out", "mlp_out", "head", "pattern"};

// One vocabulary row of the unembedding, widened to f32.
std::vector<float> unembedding_row(const WeightMatrix& w, int32_t id, int C) {
  std::vector<float> row(C);
  const size_t at = static_cast<size_t>(id) * C;
  if (w.is_f16()) f16_to_f32(row.data(), w.f16.data() + at, C);
  else std::copy_n(w.f32.data() + at, C, row.data());
  return row;
}

}  // namespace

PatchSite parse_patch_site(const std::string& name) {
  const auto* found = std::find(std::begin(kSiteNames), std::end(kSiteNames), name);
  if (found == std::end(kSiteNames))
    bad_input("patching site \"" + name + "\" is not one of resid_pre, attn_out, mlp_out, head, pattern");
  return static_cast<PatchSite>(found - std::begin(kSiteNames));
}

const char* patch_site_name(PatchSite site) { return kSiteNames[static_cast<int>(site)]; }

bool patch_site_by_head(PatchSite site) { return site == PatchSite::Head || site == PatchSite::Pattern; }

HookSite patch_hook_site(PatchSite site) {
  switch (site) {
    case PatchSite::ResidPre: return HookSite::ResidPre;
    case PatchSite::AttnOut: return HookSite::AttnOut;
    case PatchSite::MlpOut: return HookSite::MlpOut;
    case PatchSite::Head: return HookSite::Z;
    case PatchSite::Pattern: return HookSite::Pattern;
  }
  return HookSite::ResidPre;
}

PatchingRun::PatchingRun(const Transformer& model, PatchingInput input) : model_(model), input_(std::move(input)) {
  const ModelConfig& c = model.config();
  const size_t clean_len = input_.clean.size(), corrupted_len = input_.corrupted.size();
  if (clean_len != corrupted_len)
    bad_input("the clean prompt has " + std::to_string(clean_len) + " tokens and the corrupted one " +
              std::to_string(corrupted_len) + ": patching needs the same token length");
  for (auto [id, name] : {std::pair{input_.answer, "answer"}, std::pair{input_.wrong, "wrong"}})
    if (id < 0 || id >= c.vocab_size)
      bad_input(std::string(name) + " token id " + std::to_string(id) + " is out of vocab range [0, " +
                std::to_string(c.vocab_size) + ")");
  if (input_.answer == input_.wrong)
    bad_input("answer and wrong are the same token (" + std::to_string(input_.answer) + "): their logit difference is 0");
  layers_ = c.num_layers;
  tokens_ = static_cast<int>(clean_len);
  position_ = input_.position < 0 ? tokens_ - 1 : input_.position;
  if (tokens_ > 0 && position_ >= tokens_)
    bad_input("metric position " + std::to_string(position_) + " is outside the " + std::to_string(tokens_) +
              " tokens");
  const int H = c.num_heads, C = c.hidden_size, T = tokens_;
  columns_ = patch_site_by_head(input_.site) ? H : T;
  const HookSite hook_site = patch_hook_site(input_.site);
  site_width_ = input_.site == PatchSite::Head ? c.q_width() : input_.site == PatchSite::Pattern ? T : C;
  const size_t site_rows = input_.site == PatchSite::Pattern ? static_cast<size_t>(H) * T : T;
  site_stride_ = site_rows * site_width_;

  // The clean run read at the site of every layer, the corrupted one entering every layer.
  clean_site_.resize(static_cast<size_t>(layers_) * site_stride_);
  corrupted_resid_.resize(static_cast<size_t>(layers_) * T * C);
  Hooks read_clean, read_corrupted;
  for (int l = 0; l < layers_; ++l) {
    float* site_to = clean_site_.data() + l * site_stride_;
    read_clean.add({HookStack::Model, hook_site, l}, [site_to](const HookPoint&, HookTensor& t) {
      std::copy_n(t.data, static_cast<size_t>(t.rows) * t.width, site_to);
    }, false);
    float* resid_to = corrupted_resid_.data() + static_cast<size_t>(l) * T * C;
    read_corrupted.add({HookStack::Model, HookSite::ResidPre, l}, [resid_to](const HookPoint&, HookTensor& t) {
      std::copy_n(t.data, static_cast<size_t>(t.rows) * t.width, resid_to);
    }, false);
  }
  ForwardOptions options;
  options.attentions = false;
  options.hooks = &read_clean;
  model_.forward(input_.clean, {}, {}, options, result_, activations_);
  clean_ld_ = logit_difference(result_.hidden_out.data() + static_cast<size_t>(position_) * C);
  options.hooks = &read_corrupted;
  model_.forward(input_.corrupted, {}, {}, options, result_, activations_);
  corrupted_ld_ = logit_difference(result_.hidden_out.data() + static_cast<size_t>(position_) * C);
}

double PatchingRun::logit_difference(const float* hidden_row) const {
  const ModelConfig& c = model_.config();
  const int C = c.hidden_size;
  if (!c.is_decoder()) {  // the masked-LM head's transform first: the whole head on one row
    const std::vector<float> logits = model_.lm_logits(hidden_row, 1);
    return static_cast<double>(logits[input_.answer]) - logits[input_.wrong];
  }
  // Decoders: the head is the unembedding alone (no bias), so only two of its rows are needed.
  const std::vector<float> answer = unembedding_row(model_.unembedding(), input_.answer, C);
  const std::vector<float> wrong = unembedding_row(model_.unembedding(), input_.wrong, C);
  double ld = 0;
  for (int i = 0; i < C; ++i) ld += static_cast<double>(hidden_row[i]) * (static_cast<double>(answer[i]) - wrong[i]);
  return ld;
}

std::vector<double> PatchingRun::patched_lds(int layer) {
  if (layer < 0 || layer >= layers_)
    bad_input("layer " + std::to_string(layer) + " is outside [0, " + std::to_string(layers_) + ")");
  const ModelConfig& c = model_.config();
  const int C = c.hidden_size, T = tokens_, dh = c.head_dim();
  const float* clean = clean_site_.data() + layer * site_stride_;
  const float* start = corrupted_resid_.data() + static_cast<size_t>(layer) * T * C;
  const PatchSite site = input_.site;
  std::vector<double> lds(columns_);
  for (int column = 0; column < columns_; ++column) {
    // The cell: the clean values of one position's row, one head's columns, or one head's rows.
    Hooks patch;
    patch.add({HookStack::Model, patch_hook_site(site), layer}, [&](const HookPoint&, HookTensor& t) {
      write_patch_cell(site, column, dh, T, clean, t);
    }, true);
    ForwardOptions options;
    options.attentions = false;
    options.hooks = &patch;
    model_.forward_from_layer(layer, start, T, {}, options, result_, activations_);
    lds[column] = logit_difference(result_.hidden_out.data() + static_cast<size_t>(position_) * C);
  }
  return lds;
}

std::vector<double> PatchingRun::scores(const std::vector<double>& lds) const {
  return patch_scores(lds, clean_ld_, corrupted_ld_);
}

void write_patch_cell(PatchSite site, int column, int head_dim, int queries, const float* clean, HookTensor& t) {
  if (site == PatchSite::Head) {
    const size_t col = static_cast<size_t>(column) * head_dim;
    for (int r = 0; r < t.rows; ++r)
      std::copy_n(clean + static_cast<size_t>(r) * t.width + col, head_dim, t.data + static_cast<size_t>(r) * t.width + col);
    return;
  }
  const size_t rows = site == PatchSite::Pattern ? queries : 1;
  const size_t at = static_cast<size_t>(column) * rows * t.width;
  std::copy_n(clean + at, rows * t.width, t.data + at);
}

std::vector<double> patch_scores(const std::vector<double>& lds, double clean, double corrupted) {
  const double denominator = clean - corrupted;
  if (denominator == 0)
    bad_input("the clean and corrupted prompts give the same logit difference (" + std::to_string(clean) +
              "): there is no difference to restore");
  std::vector<double> out(lds.size());
  for (size_t i = 0; i < lds.size(); ++i) out[i] = (lds[i] - corrupted) / denominator;
  return out;
}

PatchingGrid patch_grid(const Transformer& model, const PatchingInput& input) {
  PatchingRun run(model, input);
  PatchingGrid grid;
  grid.clean_ld = run.clean_ld();
  grid.corrupted_ld = run.corrupted_ld();
  grid.layers = run.layers();
  grid.columns = run.columns();
  for (int l = 0; l < run.layers(); ++l) {
    const std::vector<double> row = run.scores(run.patched_lds(l));
    grid.scores.insert(grid.scores.end(), row.begin(), row.end());
  }
  return grid;
}

}  // namespace attnscope
