// Prints what each chaos run of a CI run found, from the reports the chaos suites write under
// RESPIRE_TEST_REPORT_DIR/chaos: per report, the run's label, the suite, its seed, its figures, and
// its violations with the command that repeats it. Arguments: `<label>=<report dir>`, as for
// count-tests.mjs. It only reports: the suites themselves fail the tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let reports = 0;
for (const arg of process.argv.slice(2)) {
  const at = arg.lastIndexOf('=');
  const [label, dir] = [arg.slice(0, at), join(arg.slice(at + 1), 'chaos')];
  for (const file of existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
    let report;
    try {
      report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (error) {
      console.log(`${label}: ${file}: unreadable (${error.message})`);
      continue;
    }
    reports++;
    const violations = report.violations ?? [];
    console.log(`${label}: ${report.suite}: seed ${report.seed}, ${violations.length} violation${violations.length === 1 ? '' : 's'}`);
    for (const [name, value] of Object.entries(report.figures ?? {})) console.log(`  ${name}: ${value}`);
    for (const rule of new Set(violations.map((v) => v.rule))) console.log(`  VIOLATION ${rule} (${violations.filter((v) => v.rule === rule).length})`);
    if (violations.length > 0) console.log(`  repeat: ${report.repeat}`);
  }
}
if (reports === 0) console.log('no chaos reports');
