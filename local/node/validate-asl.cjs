'use strict';
// Validates Amazon States Language files with asl-validator 4.0.0 (JSON schema, JSONPath
// syntax, transition targets, terminal states, Task ARNs).
//
//   node validate-asl.cjs <file.asl.json> [more files...]
//
// Prints `OK <file>` or `INVALID <file>` followed by one indented line per error.
// Exit code: 0 all valid, 1 at least one invalid, 2 a file could not be read or parsed.
const fs = require('node:fs');
const aslValidator = require('asl-validator');

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node validate-asl.cjs <file.asl.json> [more files...]\n');
  process.exit(2);
}

let exitCode = 0;
for (const file of files) {
  let definition;
  try {
    definition = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    process.stdout.write(`ERROR ${file}\n  ${err.message}\n`);
    exitCode = 2;
    continue;
  }
  const { isValid, errorsText } = aslValidator(definition);
  if (isValid) {
    process.stdout.write(`OK ${file}\n`);
  } else {
    process.stdout.write(`INVALID ${file}\n`);
    // errorsText gives `<ERROR_CODE>: <message>` per error; a schema failure can repeat.
    const lines = [...new Set(errorsText('\n').split('\n'))];
    for (const line of lines) process.stdout.write(`  ${line}\n`);
    exitCode = Math.max(exitCode, 1);
  }
}
process.exit(exitCode);

