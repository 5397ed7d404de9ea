// Embind glue for activation patching and steering (interventions.h).
#include "interventions.h"

#include "convert.h"
#include "error.h"

namespace attnscope::bindings {

namespace {

template <typename T>
val copy_of(const std::vector<T>& data) {  // a fresh typed array (never a view of the heap)
  return val(emscripten::typed_memory_view(data.size(), data.data())).call<val>("slice");
}

// {layers, columns, position, cleanLd, corruptedLd} of a grid just started.
template <typename Run>
val grid_start(const Run& run) {
  run.scores({});  // E_INPUT now, not at the first row, when there is nothing to restore
  val out = val::object();
  out.set("layers", run.layers());
  out.set("columns", run.columns());
  out.set("position", run.position());
  out.set("cleanLd", run.clean_ld());
  out.set("corruptedLd", run.corrupted_ld());
  return out;
}

template <typename Run>
val grid_row(Run* run, int layer) {
  if (!run) throw Error("E_INPUT", "no patching grid started (startPatch first)");
  const std::vector<double> lds = run->patched_lds(layer);
  val out = val::object();
  out.set("lds", copy_of(lds));
  out.set("scores", copy_of(run->scores(lds)));
  return out;
}

}  // namespace

val Interventions::start_patch(const Transformer& model, const val& clean, const val& corrupted, int answer, int wrong,
                               int position, const val& site) {
  patching_.reset();
  PatchingInput input;
  input.clean = int32_vector_from_js(clean);
  input.corrupted = int32_vector_from_js(corrupted);
  input.answer = answer;
  input.wrong = wrong;
  input.position = position;
  input.site = parse_patch_site(string_from_js(site));
  auto run = std::make_unique<PatchingRun>(model, std::move(input));
  val out = grid_start(*run);
  patching_ = std::move(run);
  return out;
}

val Interventions::patch_row(int layer) { return grid_row(patching_.get(), layer); }

val Interventions::steering_vector_js(const Transformer& model, int layer, const val& from, const val& to) {
  return copy_of(steering_vector(model, layer, int32_vector_from_js(from), int32_vector_from_js(to)));
}

void Interventions::set_steering(const Transformer& model, int layer, const val& vector, double strength) {
  Steering next;
  next.layer = layer;
  next.vector = float_vector_from_js(vector);
  next.strength = static_cast<float>(strength);
  check_steering(next, model.config().num_layers, model.config().hidden_size);
  steering_ = std::move(next);
  steering_hooks_ = attnscope::steering_hooks(steering_);
  steering_on_ = true;
}

val Seq2SeqInterventions::start_patch(const Seq2Seq& model, const val& clean, const val& corrupted,
                                     const val& decoder_ids, int answer, int wrong, const val& site, const val& stack) {
  patching_.reset();
  Seq2SeqPatchingInput input;
  input.clean_source = int32_vector_from_js(clean);
  input.corrupted_source = int32_vector_from_js(corrupted);
  input.decoder_ids = int32_vector_from_js(decoder_ids);
  input.answer = answer;
  input.wrong = wrong;
  input.site = parse_patch_site(string_from_js(site));
  const std::string stack_name = string_from_js(stack);
  if (stack_name != "decoder" && stack_name != "encoder")
    throw Error("E_INPUT", "patching stack \"" + stack_name + "\" is not decoder or encoder");
  input.stack = stack_name == "encoder" ? HookStack::Encoder : HookStack::Decoder;
  auto run = std::make_unique<Seq2SeqPatchingRun>(model, std::move(input));
  val out = grid_start(*run);
  patching_ = std::move(run);
  return out;
}

val Seq2SeqInterventions::patch_row(int layer) { return grid_row(patching_.get(), layer); }

void Seq2SeqInterventions::set_steering(const Seq2Seq& model, int layer, const val& vector, double strength) {
  Steering next;
  next.layer = layer;
  next.vector = float_vector_from_js(vector);
  next.strength = static_cast<float>(strength);
  next.stack = HookStack::Decoder;
  check_steering(next, model.config().decoder_layers, model.config().d_model);
  steering_ = std::move(next);
  steering_hooks_ = attnscope::steering_hooks(steering_);
  steering_on_ = true;
}

}  // namespace attnscope::bindings
