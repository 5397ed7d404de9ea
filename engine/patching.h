// Activation patching (denoising, as TransformerLens' `patching` module defines it): a clean and a
// corrupted prompt of the same length; the metric is the logit difference LD = logit[answer] −
// logit[wrong] at one position; each cell runs the corrupted prompt with one activation replaced by
// the clean run's and scores (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted): 1 restores
// the clean answer fully, 0 changes nothing. The replacement is a hook write (hooks.h); a cell at
// layer l starts from the corrupted run's residual stream entering l instead of recomputing the
// layers below (Transformer::forward_from_layer). Encoder–decoders: seq2seq_patching.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "transformer.h"

namespace attnscope {

// The patched activation and what a cell is:
//   ResidPre (layer, position): blocks.l.hook_resid_pre at that position;
//   AttnOut (layer, position): blocks.l.hook_attn_out (after W_O and its bias) at that position;
//   MlpOut (layer, position): blocks.l.hook_mlp_out at that position;
//   Head (layer, head): that query head's context (hook_z, before W_O) at every position;
//   Pattern (layer, head): that head's attention probabilities at every position (the values it
//     weights stay the corrupted run's).
enum class PatchSite { ResidPre, AttnOut, MlpOut, Head, Pattern };

// "resid_pre", "attn_out", "mlp_out", "head", "pattern"; E_INPUT naming them for anything else.
PatchSite parse_patch_site(const std::string& name);
const char* patch_site_name(PatchSite site);
bool patch_site_by_head(PatchSite site);

// The hook point a site's cell at `layer` writes (Head: hook_z; Pattern: attn.hook_pattern).
HookSite patch_hook_site(PatchSite site);

// Writes the clean values of one cell into the hook tensor t of the site: position `column`'s row
// (ResidPre, AttnOut, MlpOut), query head `column`'s head_dim columns of every row (Head), or head
// `column`'s `queries` rows of probabilities (Pattern). `clean` is the clean run's tensor there.
void write_patch_cell(PatchSite site, int column, int head_dim, int queries, const float* clean, HookTensor& t);

// (LD − corrupted) / (clean − corrupted) of each LD; E_INPUT when clean = corrupted (there is no
// difference to restore, every score would be 0/0).
std::vector<double> patch_scores(const std::vector<double>& lds, double clean, double corrupted);

// What one patching grid compares.
struct PatchingInput {
  std::vector<int32_t> clean, corrupted;  // token ids, equal lengths
  int32_t answer = 0, wrong = 0;          // vocabulary ids, different
  int position = -1;                      // where LD is read; −1: the last position
  PatchSite site = PatchSite::ResidPre;
};

// The two runs of a grid and its rows on demand, so that a host can stop between rows and show
// each as it comes. Holds the corrupted run's residual stream entering every layer and the clean
// run's values at the site (L·T·C floats each; patterns L·H·T·T). Keeps a reference to the model.
class PatchingRun {
 public:
  // Runs both prompts. E_INPUT for unequal lengths (naming both), answer = wrong or either outside
  // the vocabulary, a position outside the prompt, a model without a language-model head (E_WEIGHTS
  // from lm_logits), or the errors of Transformer::forward.
  PatchingRun(const Transformer& model, PatchingInput input);

  int layers() const { return layers_; }
  // Cells per row: the positions (ResidPre, AttnOut, MlpOut) or the heads (Head, Pattern).
  int columns() const { return columns_; }
  int position() const { return position_; }
  double clean_ld() const { return clean_ld_; }
  double corrupted_ld() const { return corrupted_ld_; }

  // LD_patched of every cell of one layer (columns() values).
  std::vector<double> patched_lds(int layer);
  // (LD − LD_corrupted) / (LD_clean − LD_corrupted) of each LD; E_INPUT when the two runs give the
  // same LD (there is no difference to restore, every score would be 0/0).
  std::vector<double> scores(const std::vector<double>& lds) const;

 private:
  double logit_difference(const float* hidden_row) const;

  const Transformer& model_;
  PatchingInput input_;
  int layers_ = 0, tokens_ = 0, columns_ = 0, position_ = 0;
  double clean_ld_ = 0, corrupted_ld_ = 0;
  std::vector<float> corrupted_resid_;  // (L, T, C): the corrupted run entering each layer
  std::vector<float> clean_site_;       // (L, T, width) or (L, H, T, T) for patterns
  size_t site_stride_ = 0;              // floats per layer in clean_site_
  int site_width_ = 0;                  // row width of the site's hook tensor
  ForwardResult result_;
  Activations activations_;
};

// Every row of a grid at once: (L, columns) scores, row-major.
struct PatchingGrid {
  double clean_ld = 0, corrupted_ld = 0;
  int layers = 0, columns = 0;
  std::vector<double> scores;
};
PatchingGrid patch_grid(const Transformer& model, const PatchingInput& input);

}  // namespace attnscope
