// The relative specifiers a module imports (static, side-effect or dynamic: `import(…)`, fetched
// when first called) or starts as a URL: what the layout tests check against each folder's rule.
export function importsOf(text) {
  const specifiers = [];
  for (const m of text.matchAll(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|new URL\(\s*)(['"])(\.{1,2}\/[^'"\n]+)\2/g)) {
    specifiers.push({ spec: m[3], dynamic: /\(/.test(m[1]) });
  }
  return specifiers;
}

/** The folders a README's "- May import:" line names (a/, b/), before any parenthesis. */
export function mayImportLine(text) {
  return text.split('\n').find((l) => l.startsWith('- May import:'));
}
export function foldersNamed(line) {
  const before = line.slice('- May import:'.length).split('(')[0];
  return new Set([...before.matchAll(/(?<![\w/])([a-z0-9-]+)\/(?!\w)/g)].map((m) => m[1]));
}
