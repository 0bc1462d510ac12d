#!/usr/bin/env -S node --import tsx --no-warnings
// CommonJS like bin/run.js (bin/package.json). oclif runs the TypeScript commands of src/ through tsx.
'use strict';
const { join } = require('node:path');

void import('@oclif/core').then(({ execute }) =>
  // The package root: see bin/run.js.
  execute({ development: true, dir: join(__dirname, '..') }),
);
