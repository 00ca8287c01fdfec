import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../build/stale';
import { PERMISSIONS, ROLES, type Permission, type Role } from '../../server/src/auth/roles';
import type { KeyScope } from '../../server/src/db/schema';
import { operationName, type ControlOperation } from './control-operations';

/** docs/teams.md, "Roles and permissions", as the permission suite reads it. */
export interface PermissionsDoc {
  roles: Record<Role, Permission[]>;
  scopes: Record<KeyScope, Permission[]>;
  /** The text between the operations markers, trimmed. */
  operations: string;
}

const DOC = 'docs/teams.md';
const START = '<!-- operations-by-permission:start -->';
const END = '<!-- operations-by-permission:end -->';
const SCOPES: readonly KeyScope[] = ['read', 'control', 'admin', 'ingest'];

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/**
 * The table whose rows are permissions (`| \`project.view\` | … |`) and whose columns, after the first two, are roles
 * (`owner`) and key scopes (`read key`): which permissions each holds, in PERMISSIONS order.
 */
export function permissionsDoc(): PermissionsDoc {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  const lines = text.split('\n');
  const first = lines.findIndex((line) => /^\|\s*`project\.view`/.test(line));
  if (first < 2) throw new Error(`${DOC}: no table with a \`project.view\` row`);
  const header = cells(lines[first - 2]!);
  const holders: Record<string, Permission[]> = {};
  for (let i = first; lines[i]?.startsWith('|'); i++) {
    const row = cells(lines[i]!);
    const permission = row[0]!.replace(/`/g, '') as Permission;
    header.forEach((column, c) => {
      if (c >= 2 && row[c] === '✓') (holders[column] ??= []).push(permission);
    });
  }
  const held = (column: string) => PERMISSIONS.filter((p) => holders[column]?.includes(p));
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  return {
    roles: Object.fromEntries(ROLES.map((role) => [role, held(role)])) as Record<Role, Permission[]>,
    scopes: Object.fromEntries(SCOPES.map((scope) => [scope, held(`${scope} key`)])) as Record<KeyScope, Permission[]>,
    operations: start < 0 || end < start ? '' : text.slice(start + START.length, end).trim(),
  };
}

/** A role's or scope's permissions in PERMISSIONS order, as permissionsDoc reads them. */
export const inPermissionOrder = <K extends string>(grants: Readonly<Record<K, readonly Permission[]>>) =>
  Object.fromEntries(
    Object.entries<readonly Permission[]>(grants).map(([holder, held]) => [
      holder,
      PERMISSIONS.filter((p) => held.includes(p)),
    ]),
  ) as Record<K, Permission[]>;

/** The operations list docs/teams.md holds: one line per permission, its operations by path. */
export function operationsByPermission(operations: readonly ControlOperation[]): string {
  return PERMISSIONS.map((permission) => {
    const names = operations
      .filter((op) => op.permission === permission)
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
      .map((op) => `\`${operationName(op)}\``);
    return `- \`${permission}\`: ${names.length > 0 ? names.join(', ') : 'none yet'}`;
  }).join('\n');
}
