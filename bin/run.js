#!/usr/bin/env node
import module from 'node:module';
import { execute } from '@oclif/core';

// Node 22+ caches compiled code on disk between runs; Node 20 has no such cache.
module.enableCompileCache?.();

await execute({ dir: import.meta.url });
