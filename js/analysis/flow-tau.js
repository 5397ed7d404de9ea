// The flow graph's default threshold, apart from the graph's code (js/analysis/flow-graph.js), so the
// page's and the element's state (web/src/state/state.js) name it without loading that code.

/** The LLM Transparency Tool's default threshold. */
export const FLOW_DEFAULT_TAU = 0.04;
