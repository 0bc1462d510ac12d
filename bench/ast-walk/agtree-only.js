#!/usr/bin/env node
// Baseline for the walk benchmark: a process that parses FILE with AGTree and nothing else.
import { readFileSync } from 'node:fs';
import { FilterListParser, defaultParserOptions } from '@adguard/agtree';

const text = readFileSync(process.argv[2], 'utf8');
const options = { ...defaultParserOptions, tolerant: true, isLocIncluded: false, includeRaws: false };
const list = FilterListParser.parse(text, options);
process.stderr.write(`${list.children.length} rules\n`);
