/**
 * Whether the run is CI's, which must run every test: `CI` set to anything but empty, `false` or
 * `0` (CI services set `true`, some `1`). The tests that skip when a tool or service is missing fail
 * instead under CI, all by this one rule.
 */
export const UNDER_CI = !['', 'false', '0'].includes((process.env.CI ?? '').trim().toLowerCase());
