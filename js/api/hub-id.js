// What a Hugging Face model id looks like, for the loader (js/api/sources.js), the explorer page's
// URL parameters and hub field, and the <attn-scope> model attribute: 'name' (legacy, no
// namespace, e.g. bert-base-uncased) or 'owner/name'; each part 1–96 letters, digits, '-', '_'
// or '.', starting with a letter or digit and not ending in '-' or '.', and never '..' (a path
// climbing out of /<owner>/<name>/resolve/ on the hub).
const PART = '[A-Za-z0-9](?:[\\w.-]{0,94}\\w)?';
const HUB_ID = new RegExp(`^${PART}(?:/${PART})?$`);

export function isHubId(value) {
  return typeof value === 'string' && HUB_ID.test(value) && !value.includes('..');
}
