#!/usr/bin/env node
// Writes oclif.manifest.json for the packed package (oclif's own generator lives in the
// separate `oclif` package). Only at pack time: a manifest in the working tree would hide
// new commands from `bin/dev.js`.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';

// The manifest must describe the built commands in dist/, never TypeScript sources, which
// oclif would pick under NODE_ENV=test or development.
process.env.NODE_ENV = 'production';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = await Config.load(root);
const plugin = config.getPluginsList().find((p) => p.root === config.root);
writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify(plugin.manifest, null, 2)}\n`);
console.error(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).join(', ')}`);
