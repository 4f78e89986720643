// Validates a SARIF file against the SARIF 2.1.0 schema (draft-04 JSON Schema)
// with ajv; prints the errors and exits 1 when it is not valid.
const Ajv = require('ajv-draft-04'), addFormats = require('ajv-formats'), fs = require('fs');
const schema = JSON.parse(fs.readFileSync(process.argv[2]));
const data = JSON.parse(fs.readFileSync(process.argv[3]));
const ajv = new Ajv({strict: false, allErrors: true, unicodeRegExp: false}); addFormats(ajv);
const ok = ajv.validate(schema, data);
if (!ok) { console.log(JSON.stringify(ajv.errors, null, 1)); process.exit(1); }
console.log('valid: ' + data.runs[0].results.length + ' results');
