// The per-family rows of the tensor-name table (weight_names.h), written from the transformers
// model classes: BertModel / BertForMaskedLM, RobertaForMaskedLM, DistilBertForMaskedLM,
// GPT2LMHeadModel, LlamaForCausalLM (and MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM,
// which use the same names).
#include "weight_names.h"

namespace attnscope {

std::vector<std::string> LayerNames::linears() const {
  std::vector<std::string> out;
  for (const std::string* base : {&q, &k, &v, &o, &ff_in, &ff_out, &ff_gate})
    if (!base->empty()) out.push_back(*base);
  return out;
}

namespace {

// Heads and buffers no family's forward reads: BERT's pooler and next-sentence head, the
// position_ids buffers of BERT-shaped saves, GPT-2's causal-mask buffers, Llama's rotary
// inv_freq buffer (older saves; the engine computes the frequencies from config.json).
const std::vector<std::string> kIgnoredRoots = {"pooler.", "cls.seq_relationship."};
const std::vector<std::string> kIgnoredSuffixes = {"position_ids", ".attn.bias", ".attn.masked_bias",
                                                   ".rotary_emb.inv_freq"};

// BertForMaskedLM's head and RobertaLMHead (either may sit on a BERT-shaped checkpoint).
const MlmHeadNames kRobertaHead{"lm_head.dense", "lm_head.layer_norm", "lm_head.decoder.weight", "lm_head.bias",
                                "lm_head.decoder.bias"};
const MlmHeadNames kBertHead{"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                             "cls.predictions.decoder.weight", "cls.predictions.bias",
                             "cls.predictions.decoder.bias"};

FamilyNames bert_shaped(const std::string& prefix) {
  FamilyNames n;
  n.prefix = prefix;
  n.probe = n.word_emb = "embeddings.word_embeddings.weight";
  n.pos_emb = "embeddings.position_embeddings.weight";
  n.type_emb = "embeddings.token_type_embeddings.weight";
  n.ln_emb = "embeddings.LayerNorm";
  n.layers = "encoder.layer.";
  n.layer.q = "attention.self.query";
  n.layer.k = "attention.self.key";
  n.layer.v = "attention.self.value";
  n.layer.o = "attention.output.dense";
  n.layer.ln_attn = "attention.output.LayerNorm";
  n.layer.ff_in = "intermediate.dense";
  n.layer.ff_out = "output.dense";
  n.layer.ln_ffn = "output.LayerNorm";
  n.mlm_heads = {kRobertaHead, kBertHead};
  return n;
}

FamilyNames distilbert() {
  FamilyNames n;
  n.prefix = "distilbert.";
  n.probe = n.word_emb = "embeddings.word_embeddings.weight";
  n.pos_emb = "embeddings.position_embeddings.weight";
  n.ln_emb = "embeddings.LayerNorm";
  n.layers = "transformer.layer.";
  n.layer.q = "attention.q_lin";
  n.layer.k = "attention.k_lin";
  n.layer.v = "attention.v_lin";
  n.layer.o = "attention.out_lin";
  n.layer.ln_attn = "sa_layer_norm";
  n.layer.ff_in = "ffn.lin1";
  n.layer.ff_out = "ffn.lin2";
  n.layer.ln_ffn = "output_layer_norm";
  // vocab_transform → activation → vocab_layer_norm → vocab_projector (tied to the embeddings).
  n.mlm_heads = {{"vocab_transform", "vocab_layer_norm", "vocab_projector.weight", "vocab_projector.bias", ""}};
  return n;
}

FamilyNames gpt2() {
  FamilyNames n;
  n.prefix = "transformer.";
  n.probe = n.word_emb = "wte.weight";
  n.pos_emb = "wpe.weight";
  n.layers = "h.";
  n.layer.q = n.layer.k = n.layer.v = "attn.c_attn";  // one Conv1D: q | k | v side by side
  n.layer.o = "attn.c_proj";
  n.layer.ln_attn = "ln_1";
  n.layer.ff_in = "mlp.c_fc";
  n.layer.ff_out = "mlp.c_proj";
  n.layer.ln_ffn = "ln_2";
  n.conv1d = true;
  n.final_norm = "ln_f";
  n.lm_head = "lm_head.weight";
  return n;
}

FamilyNames llama() {
  FamilyNames n;
  n.prefix = "model.";
  n.probe = n.word_emb = "embed_tokens.weight";
  n.layers = "layers.";
  n.layer.q = "self_attn.q_proj";
  n.layer.k = "self_attn.k_proj";
  n.layer.v = "self_attn.v_proj";
  n.layer.o = "self_attn.o_proj";
  n.layer.q_norm = "self_attn.q_norm";
  n.layer.k_norm = "self_attn.k_norm";
  n.layer.ln_attn = "input_layernorm";
  n.layer.ff_gate = "mlp.gate_proj";
  n.layer.ff_in = "mlp.up_proj";
  n.layer.ff_out = "mlp.down_proj";
  n.layer.ln_ffn = "post_attention_layernorm";
  n.final_norm = "norm";
  n.lm_head = "lm_head.weight";
  return n;
}

FamilyNames with_ignored(FamilyNames n) {
  n.ignored_roots = kIgnoredRoots;
  n.ignored_suffixes = kIgnoredSuffixes;
  return n;
}

}  // namespace

const FamilyNames& family_names(Family family) {
  static const FamilyNames bert = with_ignored(bert_shaped("bert.")), roberta = with_ignored(bert_shaped("roberta.")),
                           distil = with_ignored(distilbert()), gpt = with_ignored(gpt2()),
                           llama_family = with_ignored(llama());
  switch (family) {
    case Family::DistilBert: return distil;
    case Family::Roberta: return roberta;
    case Family::Gpt2: return gpt;
    case Family::Llama: return llama_family;
    case Family::Bert: break;
  }
  return bert;
}

}  // namespace attnscope

namespace attnscope {

std::vector<const FamilyNames*> all_family_names() {
  std::vector<const FamilyNames*> rows;
  for (Family f : {Family::Bert, Family::Roberta, Family::DistilBert, Family::Gpt2, Family::Llama})
    rows.push_back(&family_names(f));
  return rows;
}

}  // namespace attnscope
