#!/usr/bin/env node
// `flc ARGS` exactly as oclif runs it, without bin/run.js's bundled fast path: the commands are
// found and imported from dist/commands. Tests compare the two.
import { execute } from '@oclif/core';

// The package root, as bin/run.js passes it (bin/package.json is not the package's).
await execute({ dir: new URL('../..', import.meta.url).href });
