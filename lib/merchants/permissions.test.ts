import { describe, expect, it } from 'vitest';
import { assignableRoles, canManageMember, roleAllows } from './permissions';

describe('member roles', () => {
  it('owners hand out every role; admins every role but owner; developers and viewers none', () => {
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'developer', 'viewer']);
    expect(assignableRoles('admin')).toEqual(['admin', 'developer', 'viewer']);
    expect(assignableRoles('developer')).toEqual([]);
    expect(assignableRoles('viewer')).toEqual([]);
  });

  it('an admin manages every seat but an owner’s; only an owner manages an owner', () => {
    expect(canManageMember('owner', 'owner')).toBe(true);
    expect(canManageMember('admin', 'owner')).toBe(false);
    expect(canManageMember('admin', 'developer')).toBe(true);
    expect(canManageMember('developer', 'viewer')).toBe(false);
  });

  it('only owners read the audit log', () => {
    expect(roleAllows('owner', 'audit_log.view')).toBe(true);
    for (const role of ['admin', 'developer', 'viewer'] as const) expect(roleAllows(role, 'audit_log.view')).toBe(false);
  });
});
