// Linked with --post-js: runs inside the Emscripten glue's module function, after its own
// definitions. The glue decodes every std::string the engine returns (tokens, decoded text,
// vocabulary lines, error messages) with UTF8ToString, which hands strings over 16 bytes to a
// `new TextDecoder("utf8")` — and a TextDecoder by default drops a leading U+FEFF as a byte order
// mark. A token or a decode that starts with U+FEFF is text, not a file's BOM: Hugging Face keeps
// it, so the glue's decoder must too (tests/js/keep-bom.test.js). Strings of 16 bytes or fewer take
// the glue's hand-written decoder, which already keeps it.
// The threaded build's heap is a SharedArrayBuffer, which browsers' TextDecoder refuses to read
// (Node's accepts it): its glue wraps the decoder to copy such bytes first (TextDecoderWrapper),
// and so must this replacement.
if (typeof UTF8Decoder !== 'undefined' && typeof TextDecoder !== 'undefined') {
  const keepBom = new TextDecoder('utf8', { ignoreBOM: true });
  const shared = (bytes) => typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer;
  UTF8Decoder = { decode: (bytes) => keepBom.decode(shared(bytes) ? bytes.slice() : bytes) };
}
