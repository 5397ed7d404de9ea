// Embind glue for the interventions (engine/patching.h, engine/steering.h): a Model holds at most
// one patching grid in progress, computed a row per call so that JavaScript can report progress and
// stop between rows, and the steering its generation steps apply.
#pragma once
#include <emscripten/val.h>

#include <memory>

#include "hooks.h"
#include "patching.h"
#include "seq2seq_patching.h"
#include "steering.h"
#include "transformer.h"

namespace attnscope::bindings {

class Interventions {
 public:
  // Runs both prompts; {layers, columns, position, cleanLd, corruptedLd}. `site` a patching site's
  // name; position −1: the last. E_INPUT also when the two LDs are equal (nothing to restore).
  emscripten::val start_patch(const Transformer& model, const emscripten::val& clean, const emscripten::val& corrupted,
                              int answer, int wrong, int position, const emscripten::val& site);
  // One row: {lds, scores} (Float64Array of columns values). E_INPUT without a grid started.
  emscripten::val patch_row(int layer);
  void end_patch() { patching_.reset(); }

  // The mean residual stream difference (to − from) entering `layer` (Float32Array of C values).
  static emscripten::val steering_vector_js(const Transformer& model, int layer, const emscripten::val& from,
                                            const emscripten::val& to);
  // Every later extend() adds strength · vector to the residual stream entering `layer`.
  void set_steering(const Transformer& model, int layer, const emscripten::val& vector, double strength);
  void clear_steering() { steering_on_ = false; }
  const Hooks* steering_hooks() const { return steering_on_ ? &steering_hooks_ : nullptr; }

 private:
  std::unique_ptr<PatchingRun> patching_;
  Steering steering_;
  Hooks steering_hooks_;
  bool steering_on_ = false;
};

// The same for an encoder–decoder: patching either stack's sites, and steering the decoder.
class Seq2SeqInterventions {
 public:
  // clean, corrupted: the sources; decoder_ids: decoder_start_token_id then the target; stack
  // "decoder" or "encoder". Returns as Interventions::start_patch.
  emscripten::val start_patch(const Seq2Seq& model, const emscripten::val& clean, const emscripten::val& corrupted,
                              const emscripten::val& decoder_ids, int answer, int wrong, const emscripten::val& site,
                              const emscripten::val& stack);
  emscripten::val patch_row(int layer);
  void end_patch() { patching_.reset(); }

  // Every later decode adds strength · vector to the residual stream entering decoder layer `layer`.
  void set_steering(const Seq2Seq& model, int layer, const emscripten::val& vector, double strength);
  void clear_steering() { steering_on_ = false; }
  const Hooks* steering_hooks() const { return steering_on_ ? &steering_hooks_ : nullptr; }

 private:
  std::unique_ptr<Seq2SeqPatchingRun> patching_;
  Steering steering_;
  Hooks steering_hooks_;
  bool steering_on_ = false;
};

}  // namespace attnscope::bindings
