/** The permission strings the specification names; a role may carry only these. */
export const PERMISSIONS = [
  'admin:read',
  'admin:write',
  'audit:read',
  'metrics:read',
  'config:read',
  'config:write',
  'users:read',
  'users:manage',
  'flags:read',
  'flags:write',
  'roles:write',
  'roles:assign',
] as const;
