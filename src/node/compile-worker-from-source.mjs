// The pool's worker when the server runs from its TypeScript sources (tests, tsx): a worker
// thread does not inherit tsx's loader, so it registers it before loading the worker.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./compile-worker.ts');

export default worker.default;
