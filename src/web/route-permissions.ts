/**
 * Which action of domain/permissions.ts each page and form post of the
 * workspace is (by method and route), checked for every request in one hook
 * (plugin.ts): a role that may not do it gets the 403 page, whatever a page
 * showed. Signed-in routes not listed read reports, which every role may.
 * The pages hide the controls of these actions with the same can().
 */
import type { Action } from '../domain/permissions.js';

export const ROUTE_ACTIONS: Readonly<Record<string, Action>> = {
  'GET /reports/new': 'add_people',
  'POST /reports/new': 'add_people',
  'GET /reports/:report_id/import': 'add_people',
  'POST /reports/:report_id/import': 'add_people',
  'POST /reports/:report_id/refresh': 'refresh_report',
  'POST /reports/:report_id/people/:profile_id/refresh': 'refresh_report',
  'POST /reports/:report_id/refresh-schedule': 'refresh_report',
  'POST /reports/:report_id/archive': 'archive_report',
  'POST /reports/:report_id/people/:profile_id/remove': 'remove_person',
  'POST /reports/:report_id/share': 'share_report',
  'GET /reports/:report_id/links': 'share_report',
  'POST /reports/:report_id/links': 'share_report',
  'POST /reports/:report_id/links/:link_id/revoke': 'share_report',
  'POST /reports/:report_id/links/revoke-all': 'share_report',
  'POST /reports/:report_id/links/people-export': 'share_report',
  'POST /reports/:report_id/company-name': 'share_report',
  'POST /settings/keys': 'manage_workspace',
  'POST /settings/keys/:id/revoke': 'manage_workspace',
  'POST /settings/invitations': 'manage_workspace',
  'POST /settings/invitations/:id/revoke': 'manage_workspace',
  'POST /settings/members/:id/role': 'manage_workspace',
  'POST /settings/members/:id/remove': 'manage_workspace',
  'POST /settings/workspace': 'manage_workspace',
  'POST /reports/:report_id/people/:profile_id/erase': 'erase_person',
  'GET /reports/:report_id/people/:profile_id/export.json': 'erase_person',
  'GET /settings/privacy': 'own_workspace',
  'POST /settings/privacy/delete-workspace': 'own_workspace',
  'POST /settings/workspace/name': 'rename_workspace',
};

/** The action a request to `route` (its pattern, e.g. /reports/:report_id) is; reading for unlisted routes. */
export function actionOf(method: string, route: string): Action {
  return ROUTE_ACTIONS[`${method} ${route}`] ?? 'read_reports';
}
