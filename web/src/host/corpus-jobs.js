// What the run controller's corpus jobs call (the heads table, the map, the ablation), in one
// module it fetches on the first such job: a host showing other views does not download the
// corpus sample's code (the element's frozen figures and most of its views).
export { cachedCorpus, cachedCorpusMap, corpusMap, corpusSummary } from '../model/corpus.js';
export { corpusAblation } from '../panels/ablation.js';
