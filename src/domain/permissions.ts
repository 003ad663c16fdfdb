/**
 * What each workspace role may do (docs/web.md, "Roles"): the one table the
 * web's pages consult to show or hide a control and its form posts consult
 * to refuse one (403), so a hidden button and a refused post never disagree.
 * - viewer: reads reports, people, evidence and the CSV; changes nothing.
 * - member: also creates reports, adds people, scans a report or a person
 *   again and sets a report's refresh schedule (all of which spend the scan
 *   allowance as adding people does).
 * - admin and owner: everything, including archiving, removing people,
 *   sharing (the public link, private links), the workspace's settings
 *   (keys, members, invitations, limits) and a person's erasure and export.
 * - owner alone: the audit log, deleting the workspace and renaming it. Who may give which role is
 *   canAssign (web-tokens.ts).
 */
import type { Role } from './web-tokens.js';

export type Action =
  /** Reports, a report's page and progress, a person's page, evidence, the people CSV. */
  | 'read_reports'
  /** A new report, and people added to a report (form or CSV import). */
  | 'add_people'
  /** A report's people scanned again ("Scan again", "Try these again"), and its refresh schedule. */
  | 'refresh_report'
  /** Archiving and unarchiving a report. */
  | 'archive_report'
  /** Removing a person from a report. */
  | 'remove_person'
  /** The public link on or off; private links created, listed and revoked. */
  | 'share_report'
  /** API keys, members, invitations and the workspace's settings. */
  | 'manage_workspace'
  /** Erasing a person and exporting what is stored about them (docs/privacy.md). */
  | 'erase_person'
  /** Deleting the workspace, and its audit log (owners only). */
  | 'own_workspace'
  /** The workspace's name: the owners' only, as it is what every member and client sees. */
  | 'rename_workspace';

export const ACTIONS: readonly Action[] = [
  'read_reports',
  'add_people',
  'refresh_report',
  'archive_report',
  'remove_person',
  'share_report',
  'manage_workspace',
  'erase_person',
  'own_workspace',
  'rename_workspace',
];

const ALLOWED: Record<Role, readonly Action[]> = {
  owner: ACTIONS,
  admin: ACTIONS.filter((a) => a !== 'own_workspace' && a !== 'rename_workspace'),
  member: ['read_reports', 'add_people', 'refresh_report'],
  viewer: ['read_reports'],
};

export function can(role: Role, action: Action): boolean {
  return ALLOWED[role].includes(action);
}

/** The message of the 403 page when a role may not do `action`. */
export function refusal(action: Action): string {
  if (action === 'rename_workspace') return 'Only owners can rename the workspace. Nothing was changed.';
  const what: Record<Exclude<Action, 'read_reports' | 'add_people' | 'refresh_report' | 'rename_workspace'>, string> = {
    archive_report: 'archive or unarchive reports',
    remove_person: 'remove people from reports',
    share_report: "change a report's sharing and its private links",
    manage_workspace: 'manage keys, members and workspace settings',
    erase_person: 'erase people or export what is stored about them',
    own_workspace: '',
  };
  if (action === 'read_reports' || action === 'add_people') {
    return 'Your role reads reports only: creating reports and adding people is for members, admins and owners. Nothing was changed.';
  }
  if (action === 'refresh_report') {
    return 'Your role reads reports only: scanning people again and scheduling refreshes is for members, admins and owners. Nothing was changed.';
  }
  if (action === 'own_workspace') return 'Only owners can read the audit log and delete the workspace. Nothing was changed.';
  return `Only owners and admins can ${what[action]}. Nothing was changed.`;
}
