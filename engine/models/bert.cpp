// The BERT family: BERT, DistilBERT, MiniLM (BERT's layers, smaller) and RoBERTa. Post-norm
// encoder layers, x ← LayerNorm(x + Attention(x)); x ← LayerNorm(x + FFN(x)), bidirectional, over
// learned positions (and token types) added to the word embeddings and normalised.
#include "models/family.h"
#include "weight_reader.h"

namespace attnscope {

const LayerSpec kBertLayer{NormPlacement::After, NormKind::LayerNorm, FeedForwardKind::Plain, Positions::Learned};

// RoBERTa numbers positions as transformers' create_position_ids_from_input_ids: padding tokens
// sit at position pad_token_id, the others count on from pad_token_id + 1, skipping the padding.
std::vector<int32_t> bert_position_ids(const ModelConfig& config, const std::vector<int32_t>& ids, int first) {
  if (config.family != Family::Roberta) return consecutive_positions(config, ids, first);
  std::vector<int32_t> positions(ids.size());
  int32_t seen = 0;
  for (size_t t = 0; t < ids.size(); ++t)
    positions[t] = ids[t] == config.pad_token_id ? config.pad_token_id : config.pad_token_id + ++seen;
  return positions;
}

namespace {

// Layers of nn.Linear and LayerNorms, every linear layer C wide but the feed-forward's F.
void read_layer(const ModelConfig& c, const Reader& r, const LayerNames& n, const std::string& p, LayerWeights& L) {
  const int64_t C = c.hidden_size, F = c.intermediate_size;
  r.linear(p + n.q, C, C, L.q_w, L.q_b);
  r.linear(p + n.k, C, C, L.k_w, L.k_b);
  r.linear(p + n.v, C, C, L.v_w, L.v_b);
  r.linear(p + n.o, C, C, L.o_w, L.o_b);
  r.layer_norm(p + n.ln_attn, C, L.ln_attn_g, L.ln_attn_b);
  r.linear(p + n.ff_in, F, C, L.ff_i_w, L.ff_i_b);
  r.linear(p + n.ff_out, C, F, L.ff_o_w, L.ff_o_b);
  r.layer_norm(p + n.ln_ffn, C, L.ln_out_g, L.ln_out_b);
}

}  // namespace

// BertModel / BertForMaskedLM, RobertaModel / RobertaForMaskedLM, DistilBertModel /
// DistilBertForMaskedLM, and the masked-LM head when one is stored.
ModelWeights load_bert(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const FamilyNames& names = family_names(c.family);
  ModelWeights w = read_checkpoint(c, names, Reader{st, detect_prefix(st, names), precision}, read_layer);
  load_mlm_head(c, names, st, precision, w);
  return w;
}

}  // namespace attnscope
