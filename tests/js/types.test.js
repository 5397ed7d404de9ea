// The hand-written declarations (js/index.d.ts, js/worker/client.d.ts) against the compiler and the
// runtime: a consumer file written like the README must type-check under --strict (and its marked
// wrong uses must fail), and every runtime export must be declared, every declared value exported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const consumer = fileURLToPath(new URL('./types/consumer.ts', import.meta.url));

const program = ts.createProgram([consumer], {
  strict: true, noEmit: true, skipLibCheck: false,
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
});
const checker = program.getTypeChecker();

function format(diagnostics) {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n',
  });
}

test('a README-style consumer type-checks under --strict against the package declarations', () => {
  const diagnostics = ts.getPreEmitDiagnostics(program);
  assert.equal(diagnostics.length, 0, format(diagnostics));
  // The checker really read our declarations through package.json "exports" (not an `any` module).
  const declarations = program.getSourceFiles().map((f) => f.fileName)
    .filter((f) => f.startsWith(root + 'js/'));
  assert.deepEqual(declarations.sort(), [root + 'js/index.d.ts', root + 'js/worker/client.d.ts']);
});

/** Value (not type-only) exports a declaration file declares. */
function declaredValues(file) {
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(root + file));
  return checker.getExportsOfModule(symbol)
    .filter((s) => s.flags & ts.SymbolFlags.Value).map((s) => s.name).sort();
}

for (const [declarations, runtime] of [['js/index.d.ts', '../../js/index.js'],
  ['js/worker/client.d.ts', '../../js/worker/client.js']]) {
  test(`${declarations} declares exactly the values ${runtime.slice(6)} exports`, async () => {
    const exported = Object.keys(await import(runtime)).sort();
    assert.deepEqual(declaredValues(declarations), exported);
  });
}

// The option names each call accepts are listed once at runtime (js/api/options.js: the API and the
// worker client reject any other); the declarations must offer the same names, no more, no fewer.
test('the declared option interfaces name exactly the options js/api/options.js accepts', async () => {
  const options = await import('../../js/api/options.js');
  const index = checker.getSymbolAtLocation(program.getSourceFile(root + 'js/index.d.ts'));
  const exports = new Map(checker.getExportsOfModule(index).map((s) => [s.name, s]));
  const propertiesOf = (name) => checker.getDeclaredTypeOfSymbol(exports.get(name)).getProperties().map((p) => p.name).sort();
  for (const [declared, accepted] of [['LoadOptions', options.LOAD_OPTIONS], ['TokenizeOptions', options.TOKENIZE_OPTIONS],
    ['RunOptions', options.RUN_OPTIONS], ['RunIdsOptions', options.RUN_IDS_OPTIONS], ['GenerateOptions', options.GENERATE_OPTIONS]]) {
    assert.deepEqual(propertiesOf(declared), [...accepted].sort(), declared);
  }
});
