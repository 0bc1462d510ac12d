#!/usr/bin/env node
// `flc ARGS` exactly as oclif runs it, without bin/run.js's bundled fast path: the commands are
// found and imported from dist/commands. Tests compare the two.
import { execute } from '@oclif/core';

await execute({ dir: new URL('../../bin/run.js', import.meta.url).href });
