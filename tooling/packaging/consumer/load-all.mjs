// Loads every entry point of every packed package both ways, require() and import(), in a fresh
// consumer project, and checks that both formats export the same names. Then shows the
// dual-package hazard the packages are built to survive: an error from the CommonJS copy is not
// an instance of the ESM copy's class, but isRespireError (name + code) recognises it.
// Usage: node load-all.mjs <entry specifier>...
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/`);
const failures = [];
const names = (module) =>
  Object.keys(module)
    .filter((key) => key !== 'default' && key !== '__esModule')
    .sort();

for (const specifier of process.argv.slice(2)) {
  let cjs;
  let esm;
  try {
    cjs = require(specifier);
    esm = await import(specifier);
  } catch (error) {
    failures.push(`${specifier}: ${error instanceof Error ? error.stack : error}`);
    continue;
  }
  const [a, b] = [names(cjs), names(esm)];
  if (a.length === 0 || a.join() !== b.join()) {
    failures.push(`${specifier}: require() exports [${a.join(', ')}] but import() exports [${b.join(', ')}]`);
  }
  if (typeof cjs.RespireValidationError === 'function' && typeof esm.isRespireError === 'function') {
    const fromCjs = new cjs.RespireValidationError('option', 'must be a number');
    const fromEsm = new esm.RespireValidationError('option', 'must be a number');
    if (!esm.isRespireError(fromCjs, 'INVALID_ARGUMENT') || !cjs.isRespireError(fromEsm, 'INVALID_ARGUMENT')) {
      failures.push(`${specifier}: isRespireError does not recognise an error from the other format's copy`);
    }
    if (fromCjs instanceof esm.RespireValidationError) {
      failures.push(`${specifier}: the CommonJS and ESM builds share a class (expected two copies: is the CJS build a re-export?)`);
    }
  }
}

if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`${process.argv.length - 2} entry points: require() and import() load the same exports; isRespireError holds across both copies`);
